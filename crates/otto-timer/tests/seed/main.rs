//! The seed measurement on the model: a continuous-clocksource delay against a periodic
//! HZ=100 tick.

mod proof;
