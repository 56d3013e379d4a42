//! Whole timer systems on the drivers' models, one module per SoC: the time base, the
//! clockevent driving hwtimer-core's timer queue, async sleeps and bounded waits, in one
//! virtual time.

mod exynos;
mod loongarch;
mod otto;
