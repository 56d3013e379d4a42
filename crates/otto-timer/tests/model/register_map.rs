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

/// Each `"fact": driver => model` pair is equal; a failure names the fact.
macro_rules! agree {
    ($($fact:literal: $d:expr => $m:expr),* $(,)?) => {$(assert_eq!($d, $m, $fact);)*};
}

#[test]
fn register_offsets_agree() {
    assert_eq!(TIMER_STRIDE, map::TIMER_STRIDE, "timer stride");
    for n in [0, 1, 4, 5] {
        let r = TimerRegs::of(n);
        let base = n * map::TIMER_STRIDE;
        agree! {
            "RTTM_DATA of timer {n}": r.data.offset() => base + map::RTTM_DATA,
            "RTTM_CNT of timer {n}": r.cnt.offset() => base + map::RTTM_CNT,
            "RTTM_CTRL of timer {n}": r.ctrl.offset() => base + map::RTTM_CTRL,
            "RTTM_INT of timer {n}": r.int.offset() => base + map::RTTM_INT,
            "decode of timer {n}": regs::decode(r.ctrl.offset()) => map::decode(r.ctrl.offset()),
        }
    }
}

#[test]
fn ctrl_fields_agree() {
    agree! {
        "RTTM_CTRL_ENABLE": CTRL::ENABLE::SET.value => map::RTTM_CTRL_ENABLE,
        "RTTM_CTRL_TIMER": CTRL::MODE::Timer.value => map::RTTM_CTRL_TIMER,
        "RTTM_CTRL_COUNTER": CTRL::MODE::Counter.value => map::RTTM_CTRL_COUNTER,
        "CTRL divisor field": CTRL::DIVISOR.mask << CTRL::DIVISOR.shift
            => map::RTTM_CTRL_DIVISOR_MASK,
        "RTTM_MAX_DIVISOR": u32::from(MAX_DIVISOR) => map::RTTM_MAX_DIVISOR,
    }
}

#[test]
fn int_fields_agree() {
    agree! {
        "RTTM_INT_ENABLE": INT::IE::SET.value => map::RTTM_INT_ENABLE,
        "RTTM_INT_PENDING": INT::IP::SET.value => map::RTTM_INT_PENDING,
    }
}

#[test]
fn counter_facts_agree() {
    agree! {
        "RTTM_BIT_COUNT": COUNTER_BITS => map::RTTM_BIT_COUNT,
        "counter mask": COUNTER_MASK => map::RTTM_COUNTER_MASK,
        "DATA field": DATA::DATA.mask << DATA::DATA.shift => map::RTTM_COUNTER_MASK,
        "CNT field": CNT::CNT.mask << CNT::CNT.shift => map::RTTM_COUNTER_MASK,
        "hardware minimum target": HW_MIN_TARGET => map::RTTM_MIN_TARGET,
        "critical window": LOST_IRQ_WINDOW_NS => map::CRITICAL_WINDOW_NS,
    }
}

#[test]
fn soc_facts_agree() {
    for soc in Soc::ALL {
        let driver = soc.info();
        let model = map::soc_facts(soc);
        agree! {
            "{soc:?}: number of timers": driver.timers => model.timers,
            "{soc:?}: LXB clock": driver.bus_clock_hz => model.lxb_hz,
        }
        // The model built for the driver's default configuration runs on the same clock.
        let built = OttoModel::for_config(&Config::new(soc));
        assert_eq!(built.bus_clock_hz(), model.lxb_hz, "{soc:?}: model clock");
    }
}
