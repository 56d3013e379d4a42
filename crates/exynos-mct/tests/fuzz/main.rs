//! Property tests over the model: arbitrary counter values, WSTAT behaviour and register
//! garbage never make the driver panic or hang, and time never goes backwards.

mod properties;
