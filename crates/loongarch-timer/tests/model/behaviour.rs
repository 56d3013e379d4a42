//! The behavioural model against the reference facts (docs/loongarch-timer.md). The
//! driver is not involved: these tests write CSRs by number, as firmware would.

use hwtimer_core::RegisterBusExt;
use hwtimer_core::sim::{IrqSource, SimClock};
use loongarch_timer::csr::{
    CSR_CNTC, CSR_CRMD, CSR_ECFG, CSR_ESTAT, CSR_TCFG, CSR_TICLR, CSR_TVAL, Csr,
};
use loongarch_timer::sim::{LoongArchCore, QEMU_CPUCFG, SimCsr, sim_csr};

const EN: u64 = 1;
const PERIODIC: u64 = 2;
const TI: u64 = 1 << 11;

fn qemu() -> (SimClock, SimCsr) {
    let clock = SimClock::new();
    let csr = sim_csr(&clock, LoongArchCore::qemu_virt());
    (clock, csr)
}

#[test]
fn stable_counter_is_virtual_ns_over_10_at_100mhz() {
    // docs/loongarch-timer.md#qemu-model: rdtime = virtual-clock ns / 10.
    let (clock, csr) = qemu();
    clock.advance_to(1_000_000);
    assert_eq!(csr.rdtime(), 100_000);
    clock.advance_to(2_000_009);
    assert_eq!(csr.rdtime(), 200_000);
    clock.advance_to(2_000_010);
    assert_eq!(csr.rdtime(), 200_001);
}

#[test]
fn cpucfg_words_are_the_ones_qemu_reports() {
    let (_, csr) = qemu();
    assert_eq!(csr.cpucfg(2), 0x0060_c0cf);
    assert_ne!(csr.cpucfg(2) & (1 << 14), 0, "LLFTP set on QEMU");
    assert_eq!(csr.cpucfg(4), 100_000_000);
    assert_eq!(csr.cpucfg(5), 0x0001_0001);
    for (word, value) in QEMU_CPUCFG.iter().enumerate() {
        assert_eq!(csr.cpucfg(word as u32), *value);
    }
    assert_eq!(csr.cpucfg(0x40), 0, "unimplemented words read 0");
}

#[test]
fn cpucfg_is_configurable() {
    let clock = SimClock::new();
    let csr = sim_csr(
        &clock,
        LoongArchCore::new(25_000_000)
            .without_constant_timer()
            .with_cpucfg(5, 0x0003_0002),
    );
    assert_eq!(csr.cpucfg(2) & (1 << 14), 0);
    assert_eq!(csr.cpucfg(4), 25_000_000);
    assert_eq!(csr.cpucfg(5), 0x0003_0002);
}

#[test]
fn oneshot_fires_after_initval_ticks_and_clears_en() {
    let (clock, csr) = qemu();
    clock.advance_to(10_000); // counter 1000, on an edge
    csr.write_raw(CSR_TCFG, 1000 | EN);
    // The write took 1 ns; the timer fires 1000 ticks (10 µs) after the written edge.
    assert_eq!((&csr).advance_to_next(), Some(10_000 + 10_000));
    assert_eq!(csr.rdtime(), 2000);
    assert_ne!(csr.read_raw(CSR_ESTAT) & TI, 0);
    assert_eq!(
        csr.read_raw(CSR_TCFG) & EN,
        0,
        "oneshot clears EN on expiry"
    );
    assert_eq!(csr.model(|m| m.next_fire_ns()), None);
}

#[test]
fn initval_ignores_its_low_two_bits() {
    // docs/loongarch-timer.md#initval: TCFG bits [1:0] are EN/PERIODIC, so a count of 1003 is 1000.
    let (clock, csr) = qemu();
    csr.write_raw(CSR_TCFG, 1003 | EN);
    let fire = (&csr).advance_to_next().unwrap();
    assert_eq!(fire, 10_000);
    assert_eq!(csr.rdtime(), 1000);
    let _ = clock;
}

#[test]
fn tval_counts_down_while_running() {
    let (clock, csr) = qemu();
    csr.write_raw(CSR_TCFG, 4000 | EN);
    clock.advance_to(10_000); // 1000 ticks later
    assert_eq!(csr.read_raw(CSR_TVAL), 3000);
    clock.advance_to(30_000);
    assert_eq!(csr.read_raw(CSR_TVAL), 1000);
}

#[test]
fn tval_after_oneshot_expiry_wraps_on_qemu_but_not_on_the_hardware_flavour() {
    // docs/loongarch-timer.md#qemu-model: after a oneshot expires, QEMU's TVAL reads near 0x1999_9999_999x_xxxx.
    let (clock, csr) = qemu();
    csr.write_raw(CSR_TCFG, 1000 | EN);
    (&csr).advance_to_next();
    clock.advance(123_450);
    let tval = csr.read_raw(CSR_TVAL);
    assert_eq!(tval >> 36, 0x199_9999, "{tval:#x}");

    let clock = SimClock::new();
    let hw = sim_csr(&clock, LoongArchCore::new(100_000_000));
    hw.write_raw(CSR_TCFG, 1000 | EN);
    (&hw).advance_to_next();
    clock.advance(123_450);
    assert_eq!(hw.read_raw(CSR_TVAL), 0);
}

#[test]
fn periodic_reloads_without_drift() {
    let (clock, csr) = qemu();
    csr.write_raw(CSR_TCFG, 2000 | PERIODIC | EN);
    let mut fires = Vec::new();
    for _ in 0..5 {
        let at = (&csr).advance_to_next().unwrap();
        fires.push(at);
        csr.write_raw(CSR_TICLR, 1);
    }
    assert_eq!(fires, [20_000, 40_000, 60_000, 80_000, 100_000]);
    assert_ne!(csr.read_raw(CSR_TCFG) & EN, 0, "periodic keeps EN");
    // Expiries while nobody looks are still counted.
    clock.advance_to(1_000_000);
    assert_eq!(csr.model(|m| m.fired(1_000_000)), 50);
}

#[test]
fn ti_latches_until_ticlr_and_estat_writes_do_not_clear_it() {
    // docs/loongarch-timer.md#acknowledge and #qemu-model: TI latches even with CRMD.IE = 0 and ECFG.LIE = 0.
    let (clock, csr) = qemu();
    csr.write_raw(CSR_TCFG, 100 | EN);
    clock.advance(5_000);
    assert_ne!(csr.read_raw(CSR_ESTAT) & TI, 0);
    csr.write_raw(CSR_ESTAT, 0);
    assert_ne!(
        csr.read_raw(CSR_ESTAT) & TI,
        0,
        "ESTAT writes only touch IS[1:0]"
    );
    clock.advance(1_000_000);
    assert_ne!(csr.read_raw(CSR_ESTAT) & TI, 0, "still latched");
    csr.write_raw(CSR_TICLR, 0);
    assert_ne!(csr.read_raw(CSR_ESTAT) & TI, 0, "TICLR needs bit 0");
    csr.write_raw(CSR_TICLR, 1);
    assert_eq!(csr.read_raw(CSR_ESTAT) & TI, 0);
    // The software-interrupt bits are writable.
    csr.write_raw(CSR_ESTAT, 0b11);
    assert_eq!(csr.read_raw(CSR_ESTAT), 0b11);
}

#[test]
fn disabling_the_timer_cancels_it_but_keeps_a_latched_ti() {
    let (clock, csr) = qemu();
    csr.write_raw(CSR_TCFG, 100 | EN);
    clock.advance(2_000);
    csr.write_raw(CSR_TCFG, 1000 | EN);
    csr.write_raw(CSR_TCFG, 0);
    assert_eq!(csr.model(|m| m.next_fire_ns()), None);
    clock.advance(1_000_000);
    assert_eq!(csr.model(|m| m.fired(1_000_000)), 1);
    assert_ne!(csr.read_raw(CSR_ESTAT) & TI, 0);
}

#[test]
fn interrupt_needs_ecfg_lie_11_and_crmd_ie() {
    // docs/loongarch-timer.md#interrupt-delivery.
    let (clock, csr) = qemu();
    csr.write_raw(CSR_TCFG, 100 | EN);
    clock.advance(2_000);
    let taken = |csr: &SimCsr| csr.model(|m| m.interrupt_taken(2_000_000));
    assert!(!taken(&csr));
    csr.write_raw(CSR_ECFG, 1 << 11);
    assert!(!taken(&csr), "CRMD.IE still clear");
    csr.write_raw(CSR_CRMD, 0x8 | 0x4);
    assert!(taken(&csr));
    csr.write_raw(CSR_ECFG, 1 << 10);
    assert!(!taken(&csr), "only LIE bit 11 enables the timer");
}

#[test]
fn cntc_shifts_rdtime_on_hardware_but_not_on_qemu() {
    // docs/loongarch-timer.md#rdtime (CNTC) and #qemu-model (QEMU TCG ignores it).
    let clock = SimClock::new();
    let hw = sim_csr(
        &clock,
        LoongArchCore::new(100_000_000).with_start_value(5_000),
    );
    hw.write_raw(CSR_CNTC, (-5_000i64) as u64);
    assert_eq!(hw.rdtime(), 0);
    let (_, qemu) = qemu();
    qemu.write_raw(CSR_CNTC, 1_000_000);
    assert!(qemu.rdtime() < 1_000);
}

#[test]
fn unknown_csrs_read_all_ones_and_count_as_accesses() {
    let (clock, csr) = qemu();
    assert_eq!(csr.read_word(0x3ff), u64::MAX);
    csr.write_word(0x3ff, 5);
    assert_eq!(csr.stats().reads, 1);
    assert_eq!(csr.stats().writes, 1);
    // Each access costs one virtual nanosecond.
    assert_eq!(clock.now_ns(), 2);
}

use hwtimer_core::RegisterBus;
