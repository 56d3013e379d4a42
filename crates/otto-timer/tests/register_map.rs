//! The driver's register map (`otto_timer::regs`, `otto_timer::soc`) against the model's
//! own (`otto_timer::sim::map`), entry by entry. The two are written from the sources
//! separately; the Otto timer has no QEMU model, so this is where a wrong fact in either
//! one shows. Each assertion names the fact, so a failure says which side to check
//! against the source cited beside the model's constant.

use otto_timer::regs::{
    self, CNT, COUNTER_BITS, COUNTER_MASK, CTRL, DATA, HW_MIN_TARGET, INT, MAX_DIVISOR,
    TIMER_STRIDE, TimerRegs,
};
use otto_timer::sim::map;
use otto_timer::sim::{LOST_IRQ_WINDOW_NS, OttoModel};
use otto_timer::{Config, Soc};

#[test]
fn register_offsets_agree() {
    assert_eq!(TIMER_STRIDE, map::TIMER_STRIDE, "timer stride");
    for n in [0, 1, 4, 5] {
        let r = TimerRegs::of(n);
        let base = n * map::TIMER_STRIDE;
        assert_eq!(
            r.data.offset(),
            base + map::RTTM_DATA,
            "RTTM_DATA of timer {n}"
        );
        assert_eq!(
            r.cnt.offset(),
            base + map::RTTM_CNT,
            "RTTM_CNT of timer {n}"
        );
        assert_eq!(
            r.ctrl.offset(),
            base + map::RTTM_CTRL,
            "RTTM_CTRL of timer {n}"
        );
        assert_eq!(
            r.int.offset(),
            base + map::RTTM_INT,
            "RTTM_INT of timer {n}"
        );
        assert_eq!(
            regs::decode(r.ctrl.offset()),
            map::decode(r.ctrl.offset()),
            "decode of timer {n}"
        );
    }
}

#[test]
fn ctrl_fields_agree() {
    assert_eq!(
        CTRL::ENABLE::SET.value,
        map::RTTM_CTRL_ENABLE,
        "RTTM_CTRL_ENABLE"
    );
    assert_eq!(
        CTRL::MODE::Timer.value,
        map::RTTM_CTRL_TIMER,
        "RTTM_CTRL_TIMER"
    );
    assert_eq!(
        CTRL::MODE::Counter.value,
        map::RTTM_CTRL_COUNTER,
        "RTTM_CTRL_COUNTER"
    );
    assert_eq!(
        CTRL::DIVISOR.mask << CTRL::DIVISOR.shift,
        map::RTTM_CTRL_DIVISOR_MASK,
        "CTRL divisor field"
    );
    assert_eq!(
        u32::from(MAX_DIVISOR),
        map::RTTM_MAX_DIVISOR,
        "RTTM_MAX_DIVISOR"
    );
}

#[test]
fn int_fields_agree() {
    assert_eq!(INT::IE::SET.value, map::RTTM_INT_ENABLE, "RTTM_INT_ENABLE");
    assert_eq!(
        INT::IP::SET.value,
        map::RTTM_INT_PENDING,
        "RTTM_INT_PENDING"
    );
}

#[test]
fn counter_facts_agree() {
    assert_eq!(COUNTER_BITS, map::RTTM_BIT_COUNT, "RTTM_BIT_COUNT");
    assert_eq!(COUNTER_MASK, map::RTTM_COUNTER_MASK, "counter mask");
    assert_eq!(
        DATA::DATA.mask << DATA::DATA.shift,
        map::RTTM_COUNTER_MASK,
        "DATA field"
    );
    assert_eq!(
        CNT::CNT.mask << CNT::CNT.shift,
        map::RTTM_COUNTER_MASK,
        "CNT field"
    );
    assert_eq!(
        HW_MIN_TARGET,
        map::RTTM_MIN_TARGET,
        "hardware minimum target"
    );
    assert_eq!(
        LOST_IRQ_WINDOW_NS,
        map::CRITICAL_WINDOW_NS,
        "critical window"
    );
}

#[test]
fn soc_facts_agree() {
    for soc in Soc::ALL {
        let driver = soc.info();
        let model = map::soc_facts(soc);
        assert_eq!(driver.timers, model.timers, "{soc:?}: number of timers");
        assert_eq!(driver.bus_clock_hz, model.lxb_hz, "{soc:?}: LXB clock");
        // The model built for the driver's default configuration runs on the same clock.
        let built = OttoModel::for_config(&Config::new(soc));
        assert_eq!(built.bus_clock_hz(), model.lxb_hz, "{soc:?}: model clock");
    }
}
