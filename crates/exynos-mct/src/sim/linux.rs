//! Linux's arming sequences, reimplemented from the facts in `docs/exynos-mct.md` (the order
//! of register accesses of `exynos4_comp_set_next_event` and `exynos4_tick_set_next_event`
//! in `drivers/clocksource/exynos_mct.c`), as the baseline the driver's MMIO counts are
//! measured against on the same model (`cargo bench -p exynos-mct --bench seed`). Not a
//! driver: no bounds, no error handling (Linux panics when a write is not acknowledged;
//! this gives up after 1000 status reads).

use hwtimer_core::{RegisterBus, RegisterBusExt};

use crate::regs::{self, G_WSTAT, L_TCON, L_WSTAT, LocalRegs};

/// A buffered write as Linux's `exynos4_mct_write` makes it: write, then read the
/// status register until the bit is set, then write the bit back (W1C).
fn write_acked<B: RegisterBus<Word = u32>>(
    bus: &B,
    reg: usize,
    value: u32,
    status: usize,
    mask: u32,
) {
    bus.write_word(reg, value);
    for _ in 0..1000 {
        if bus.read_word(status) & mask != 0 {
            bus.write_word(status, mask);
            return;
        }
    }
}

/// The 64-bit count as Linux's `exynos4_read_count_64` reads it: upper, lower, upper
/// again until both upper reads agree (3 reads without a carry).
pub fn read_count_64<B: RegisterBus<Word = u32>>(bus: &B) -> u64 {
    loop {
        let hi = bus.read_raw(regs::G_CNT_U);
        let lo = bus.read_raw(regs::G_CNT_L);
        if bus.read_raw(regs::G_CNT_U) == hi {
            return (u64::from(hi) << 32) | u64::from(lo);
        }
    }
}

/// Comparator 0 oneshot `cycles` ahead: stop (read `G_TCON`, write it with enable and
/// auto-increment cleared, acknowledged; `G_INT_ENB = 0`), then start (read `G_TCON`,
/// the 64-bit count, `G_COMP0_L` and `_U` acknowledged, `G_INT_ENB = 1`, `G_TCON` with
/// the enable, acknowledged): 19 MMIO accesses when every status is set at once.
pub fn comp0_set_next_event<B: RegisterBus<Word = u32>>(bus: &B, cycles: u32) {
    let tcon_reg = regs::G_TCON_REG.offset();
    let wstat = regs::G_WSTAT_REG.offset();
    let tcon_ack = G_WSTAT::TCON::SET.value;
    let bits = regs::g_tcon_comp_enable(0) | regs::g_tcon_auto_inc(0);
    // stop
    let tcon = bus.read_word(tcon_reg) & !bits;
    write_acked(bus, tcon_reg, tcon, wstat, tcon_ack);
    bus.write_raw(regs::G_INT_ENB, 0);
    // start
    let tcon = bus.read_word(tcon_reg);
    let at = read_count_64(bus).wrapping_add(u64::from(cycles));
    write_acked(
        bus,
        regs::g_comp_l(0).offset(),
        at as u32,
        wstat,
        regs::g_wstat_comp_l(0),
    );
    write_acked(
        bus,
        regs::g_comp_u(0).offset(),
        (at >> 32) as u32,
        wstat,
        regs::g_wstat_comp_u(0),
    );
    bus.write_raw(regs::G_INT_ENB, regs::g_int_comp(0));
    write_acked(
        bus,
        tcon_reg,
        tcon | regs::g_tcon_comp_enable(0),
        wstat,
        tcon_ack,
    );
}

/// Linux's `exynos4_mct_tick_stop`: read `L_TCON`; if a start bit is set, write it
/// cleared (acknowledged). Returns the two start bits.
fn tick_stop<B: RegisterBus<Word = u32>>(bus: &B, r: &LocalRegs) -> u32 {
    let start = L_TCON::INT_START::SET.value | L_TCON::TIMER_START::SET.value;
    let tcon = bus.read_word(r.tcon.offset());
    if tcon & start != 0 {
        let ack = L_WSTAT::TCON::SET.value;
        write_acked(bus, r.tcon.offset(), tcon & !start, r.wstat.offset(), ack);
    }
    start
}

/// Local timer `i` oneshot of `cycles` ticks: stop (read `L_TCON`; if a start bit is
/// set, write it cleared, acknowledged), `L_ICNTB = MANUAL_UPDATE | cycles`
/// (acknowledged), `L_INT_ENB = 1`, read `L_TCON` and write it with both starts and
/// interval mode (acknowledged): 12 MMIO accesses on a running timer, 9 on one the
/// interrupt handler stopped.
pub fn tick_set_next_event<B: RegisterBus<Word = u32>>(bus: &B, i: usize, cycles: u32) {
    let r = LocalRegs::of(i);
    let (tcon_reg, wstat) = (r.tcon.offset(), r.wstat.offset());
    let start = tick_stop(bus, &r);
    let icntb = (1 << 31) | (cycles & 0x7FFF_FFFF);
    write_acked(
        bus,
        r.icntb.offset(),
        icntb,
        wstat,
        L_WSTAT::ICNTB::SET.value,
    );
    bus.write_word(r.int_enb.offset(), 1);
    let tcon = bus.read_word(tcon_reg) | start | L_TCON::INTERVAL_MODE::SET.value;
    write_acked(bus, tcon_reg, tcon, wstat, L_WSTAT::TCON::SET.value);
}

/// Linux's interrupt handler for a oneshot local timer: stop it (as in
/// [`tick_set_next_event`]) and clear `L_INT_CSTAT` (the write Linux makes after
/// reading it). Leaves the timer as the next [`tick_set_next_event`] finds it.
pub fn tick_interrupt<B: RegisterBus<Word = u32>>(bus: &B, i: usize) {
    let r = LocalRegs::of(i);
    tick_stop(bus, &r);
    if bus.read_word(r.int_cstat.offset()) & 1 != 0 {
        bus.write_word(r.int_cstat.offset(), 1);
    }
}
