//! Linux's arming sequences, reimplemented from the facts in `docs/exynos-mct.md` and the model's own register map
//! ([`super::map`], not the driver's) (the order
//! of register accesses of `exynos4_comp_set_next_event` and `exynos4_tick_set_next_event`
//! in `drivers/clocksource/exynos_mct.c`), as the baseline the driver's MMIO counts are
//! measured against on the same model (`cargo bench -p exynos-mct --bench seed`). Not a
//! driver: no bounds, no error handling (Linux panics when a write is not acknowledged;
//! this gives up after 1000 status reads).

use hwtimer_core::RegisterBus;

use super::map;

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
        let hi = bus.read_word(map::G_CNT_U);
        let lo = bus.read_word(map::G_CNT_L);
        if bus.read_word(map::G_CNT_U) == hi {
            return (u64::from(hi) << 32) | u64::from(lo);
        }
    }
}

/// Comparator 0 oneshot `cycles` ahead: stop (read `G_TCON`, write it with enable and
/// auto-increment cleared, acknowledged; `G_INT_ENB = 0`), then start (read `G_TCON`,
/// the 64-bit count, `G_COMP0_L` and `_U` acknowledged, `G_INT_ENB = 1`, `G_TCON` with
/// the enable, acknowledged): 19 MMIO accesses when every status is set at once.
pub fn comp0_set_next_event<B: RegisterBus<Word = u32>>(bus: &B, cycles: u32) {
    let tcon_reg = map::G_TCON;
    let wstat = map::G_WSTAT;
    let tcon_ack = map::G_WSTAT_TCON;
    let bits = map::g_tcon_comp_enable(0) | map::g_tcon_auto_inc(0);
    // stop
    let tcon = bus.read_word(tcon_reg) & !bits;
    write_acked(bus, tcon_reg, tcon, wstat, tcon_ack);
    bus.write_word(map::G_INT_ENB, 0);
    // start
    let tcon = bus.read_word(tcon_reg);
    let at = read_count_64(bus).wrapping_add(u64::from(cycles));
    write_acked(
        bus,
        map::G_COMP0_L,
        at as u32,
        wstat,
        map::g_wstat_comp_l(0),
    );
    write_acked(
        bus,
        map::G_COMP0_U,
        (at >> 32) as u32,
        wstat,
        map::g_wstat_comp_u(0),
    );
    bus.write_word(map::G_INT_ENB, map::g_int_comp(0));
    write_acked(
        bus,
        tcon_reg,
        tcon | map::g_tcon_comp_enable(0),
        wstat,
        tcon_ack,
    );
}

/// Linux's `exynos4_mct_tick_stop`: read `L_TCON`; if a start bit is set, write it
/// cleared (acknowledged). Returns the two start bits.
fn tick_stop<B: RegisterBus<Word = u32>>(bus: &B, base: usize) -> u32 {
    let start = map::L_TCON_INT_START | map::L_TCON_TIMER_START;
    let tcon = bus.read_word(base + map::L_TCON);
    if tcon & start != 0 {
        let ack = map::L_WSTAT_TCON;
        write_acked(
            bus,
            base + map::L_TCON,
            tcon & !start,
            base + map::L_WSTAT,
            ack,
        );
    }
    start
}

/// The base of local timer `i`'s registers (`map::LOCAL_BASE + i * map::LOCAL_STRIDE`);
/// an index past the last local timer gives a base outside the window, which reaches no
/// register (and cannot overflow).
fn local_base(i: usize) -> usize {
    map::LOCAL_BASE + i.min(map::MAX_LOCAL_TIMERS) * map::LOCAL_STRIDE
}

/// Local timer `i` oneshot of `cycles` ticks: stop (read `L_TCON`; if a start bit is
/// set, write it cleared, acknowledged), `L_ICNTB = MANUAL_UPDATE | cycles`
/// (acknowledged), `L_INT_ENB = 1`, read `L_TCON` and write it with both starts and
/// interval mode (acknowledged): 12 MMIO accesses on a running timer, 9 on one the
/// interrupt handler stopped.
pub fn tick_set_next_event<B: RegisterBus<Word = u32>>(bus: &B, i: usize, cycles: u32) {
    let base = local_base(i);
    let (tcon_reg, wstat) = (base + map::L_TCON, base + map::L_WSTAT);
    let start = tick_stop(bus, base);
    let icntb = map::L_ICNTB_MANUAL_UPDATE | (cycles & map::L_ICNTB_COUNT_MASK);
    write_acked(bus, base + map::L_ICNTB, icntb, wstat, map::L_WSTAT_ICNTB);
    bus.write_word(base + map::L_INT_ENB, map::L_INT_ICNT);
    let tcon = bus.read_word(tcon_reg) | start | map::L_TCON_INTERVAL_MODE;
    write_acked(bus, tcon_reg, tcon, wstat, map::L_WSTAT_TCON);
}

/// Linux's interrupt handler for a oneshot local timer: stop it (as in
/// [`tick_set_next_event`]) and clear `L_INT_CSTAT` (the write Linux makes after
/// reading it). Leaves the timer as the next [`tick_set_next_event`] finds it.
pub fn tick_interrupt<B: RegisterBus<Word = u32>>(bus: &B, i: usize) {
    let base = local_base(i);
    tick_stop(bus, base);
    if bus.read_word(base + map::L_INT_CSTAT) & map::L_INT_ICNT != 0 {
        bus.write_word(base + map::L_INT_CSTAT, map::L_INT_ICNT);
    }
}
