//! The control-register strategy of the driver before the multi-core fix, as the baseline
//! the two-core tests show failing (feature `unstable-baselines`; not part of the public
//! API, no semver promise).
//!
//! [`StaleShadow`] is one core's view of the block as the old `GlobalTimer` kept it: the
//! shared bits (`TIMER_ENABLE`, `PRESCALER`) are captured once, at
//! [`new`](StaleShadow::new), changed only by this core's own
//! [`start`](StaleShadow::start)/[`stop`](StaleShadow::stop), and written back with this
//! core's banked bits on **every** control write. A second core's copy, made before the
//! first core started the counter, stops the counter for the whole cluster the next time
//! it arms or shuts down its comparator; a `stop` on one core is undone by the other
//! core's next arm.

use hwtimer_core::{RegisterBus, RegisterBusExt};

use hwtimer_core::Reg;

use super::map::{
    GT_COMP0, GT_COMP1, GT_CONTROL, GT_CONTROL_BANKED, GT_CONTROL_COMP_ENABLE,
    GT_CONTROL_IRQ_ENABLE, GT_CONTROL_PRESCALER_MASK, GT_CONTROL_PRESCALER_SHIFT,
    GT_CONTROL_SHARED, GT_CONTROL_TIMER_ENABLE, GT_INT_STATUS, GT_INT_STATUS_EVENT_FLAG,
};

/// A register of the block at a byte offset from the model's map.
const fn reg(offset: usize) -> Reg<u32> {
    Reg::new(offset)
}

/// One core's control shadow, the pre-fix way (see the [module docs](self)).
#[derive(Debug)]
pub struct StaleShadow<B: RegisterBus<Word = u32>> {
    bus: B,
    shared: u32,
    banked: u32,
}

impl<B: RegisterBus<Word = u32>> StaleShadow<B> {
    /// Capture the control register once (1 read), keeping the configured `prescaler`.
    pub fn new(bus: B, prescaler: u8) -> Self {
        let found = bus.read_raw(reg(GT_CONTROL));
        let mut shared =
            (u32::from(prescaler) << GT_CONTROL_PRESCALER_SHIFT) & GT_CONTROL_PRESCALER_MASK;
        if found & GT_CONTROL_TIMER_ENABLE != 0 {
            shared |= GT_CONTROL_TIMER_ENABLE;
        }
        Self {
            bus,
            shared,
            banked: found & GT_CONTROL_BANKED,
        }
    }

    fn write(&self) {
        self.bus.write_raw(
            reg(GT_CONTROL),
            (self.shared & GT_CONTROL_SHARED) | self.banked,
        );
    }

    /// Start the counter: the shadow's enable set, written with the banked bits.
    pub fn start(&mut self) {
        self.shared |= GT_CONTROL_TIMER_ENABLE;
        self.write();
    }

    /// Stop the counter: the shadow's enable cleared, written with the banked bits.
    pub fn stop(&mut self) {
        self.shared &= !GT_CONTROL_TIMER_ENABLE;
        self.write();
    }

    /// Arm this core's comparator at `at` (disable, `GT_COMP0/1`, enable with its
    /// interrupt): every control write carries the shadow's shared bits.
    pub fn arm(&mut self, at: u64) {
        self.banked = 0;
        self.write();
        self.bus.write_raw(reg(GT_COMP0), at as u32);
        self.bus.write_raw(reg(GT_COMP1), (at >> 32) as u32);
        self.banked = GT_CONTROL_COMP_ENABLE | GT_CONTROL_IRQ_ENABLE;
        self.write();
    }

    /// Shut this core's comparator down (1 control write with the shadow's shared bits,
    /// then the event flag cleared).
    pub fn shutdown(&mut self) {
        self.banked = 0;
        self.write();
        self.bus
            .write_raw(reg(GT_INT_STATUS), GT_INT_STATUS_EVENT_FLAG);
    }
}
