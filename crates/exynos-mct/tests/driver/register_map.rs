//! The driver's register map (`exynos_mct::regs`) against the model's own
//! (`exynos_mct::sim::map`), entry by entry. The two are written from the sources
//! separately, so a wrong fact in either shows here.
//!
//! The smdkc210 board checks the map on QEMU, but QEMU decodes only the first 0x444 bytes
//! (two local timers): local timers 2..=15 (Exynos4412 and later SoCs), the 0x800-byte
//! window and the write-status "all bits" masks are checked here only.

use exynos_mct::regs::{
    self, G_CNT_WSTAT, G_TCON, G_WSTAT, L_ICNTB, L_INT, L_TCON, L_WSTAT, LocalRegs, MCT_CFG,
};
use exynos_mct::sim::map;

/// Each `"fact": driver => model` pair is equal; a failure names the fact.
macro_rules! agree {
    ($($fact:literal: $d:expr => $m:expr),* $(,)?) => {$(assert_eq!($d, $m, $fact);)*};
}

#[test]
fn sizes_and_counts_agree() {
    agree! {
        "window length": regs::WINDOW_LEN => map::WINDOW_LEN,
        "fin_pll": regs::FIN_PLL_HZ => map::FIN_PLL_HZ,
        "comparators": regs::NUM_COMPARATORS => map::NUM_COMPARATORS,
        "Exynos4210 local timers": regs::EXYNOS4210_LOCAL_TIMERS => map::EXYNOS4210_LOCAL_TIMERS,
        "local timers": regs::MAX_LOCAL_TIMERS => map::MAX_LOCAL_TIMERS,
        "comparator stride": regs::COMP_STRIDE => map::COMP_STRIDE,
        "local base": regs::LOCAL_BASE => map::LOCAL_BASE,
        "local stride": regs::LOCAL_STRIDE => map::LOCAL_STRIDE,
    }
}

#[test]
fn global_offsets_agree() {
    agree! {
        "MCT_CFG": regs::MCT_CFG_REG.offset() => map::MCT_CFG,
        "G_CNT_L": regs::G_CNT_L.offset() => map::G_CNT_L,
        "G_CNT_U": regs::G_CNT_U.offset() => map::G_CNT_U,
        "G_CNT_WSTAT": regs::G_CNT_WSTAT_REG.offset() => map::G_CNT_WSTAT,
        "G_TCON": regs::G_TCON_REG.offset() => map::G_TCON,
        "G_INT_CSTAT": regs::G_INT_CSTAT.offset() => map::G_INT_CSTAT,
        "G_INT_ENB": regs::G_INT_ENB.offset() => map::G_INT_ENB,
        "G_WSTAT": regs::G_WSTAT_REG.offset() => map::G_WSTAT,
    }
    for n in 0..map::NUM_COMPARATORS {
        let base = map::G_COMP0_L + n * map::COMP_STRIDE;
        let u = base + (map::G_COMP0_U - map::G_COMP0_L);
        let incr = base + (map::G_COMP0_ADD_INCR - map::G_COMP0_L);
        agree! {
            "G_COMP{n}_L": regs::g_comp_l(n).offset() => base,
            "G_COMP{n}_U": regs::g_comp_u(n).offset() => u,
            "G_COMP{n}_ADD_INCR": regs::g_comp_add_incr(n).offset() => incr,
        }
    }
}

/// Local timers 2..=15 are checked on no QEMU board.
#[test]
fn local_offsets_agree() {
    for i in 0..map::MAX_LOCAL_TIMERS {
        let r = LocalRegs::of(i);
        let base = map::LOCAL_BASE + i * map::LOCAL_STRIDE;
        let pairs = [
            ("L_TCNTB", r.tcntb.offset(), map::L_TCNTB),
            ("L_TCNTO", r.tcnto.offset(), map::L_TCNTO),
            ("L_ICNTB", r.icntb.offset(), map::L_ICNTB),
            ("L_ICNTO", r.icnto.offset(), map::L_ICNTO),
            ("L_FRCNTB", r.frcntb.offset(), map::L_FRCNTB),
            ("L_FRCNTO", r.frcnto.offset(), map::L_FRCNTO),
            ("L_TCON", r.tcon.offset(), map::L_TCON),
            ("L_INT_CSTAT", r.int_cstat.offset(), map::L_INT_CSTAT),
            ("L_INT_ENB", r.int_enb.offset(), map::L_INT_ENB),
            ("L_WSTAT", r.wstat.offset(), map::L_WSTAT),
        ];
        for (name, driver, model) in pairs {
            assert_eq!(driver, base + model, "{name} of local timer {i}");
        }
    }
    let own = LocalRegs::OWN;
    agree! {
        "L_TCON within its block": own.tcon.offset() => map::L_TCON,
        "L_WSTAT within its block": own.wstat.offset() => map::L_WSTAT,
    }
}

#[test]
fn global_bits_agree() {
    let field = |mask: u32, shift: usize| mask << shift;
    agree! {
        "MCT_CFG prescaler": field(MCT_CFG::PRESCALER.mask, MCT_CFG::PRESCALER.shift)
            => map::MCT_CFG_PRESCALER_MASK,
        "MCT_CFG divider": field(MCT_CFG::DIVIDER.mask, MCT_CFG::DIVIDER.shift)
            => map::MCT_CFG_DIVIDER_MASK << map::MCT_CFG_DIVIDER_SHIFT,
        "G_CNT_WSTAT.CNT_L": G_CNT_WSTAT::CNT_L::SET.value => map::G_CNT_WSTAT_L,
        "G_CNT_WSTAT.CNT_U": G_CNT_WSTAT::CNT_U::SET.value => map::G_CNT_WSTAT_U,
        "G_TCON.TIMER_ENABLE": G_TCON::TIMER_ENABLE::SET.value => map::G_TCON_TIMER_ENABLE,
        "G_WSTAT.TCON": G_WSTAT::TCON::SET.value => map::G_WSTAT_TCON,
        "G_CNT_WSTAT all": regs::G_CNT_WSTAT_ALL => map::G_CNT_WSTAT_L | map::G_CNT_WSTAT_U,
    }
    let mut g_wstat_all = map::G_WSTAT_TCON;
    for n in 0..map::NUM_COMPARATORS + 1 {
        // n = 4 checks that both sides name no bit for a comparator the MCT lacks.
        agree! {
            "COMP_ENABLE of comparator {n}": regs::g_tcon_comp_enable(n)
                => map::g_tcon_comp_enable(n),
            "AUTO_INC of comparator {n}": regs::g_tcon_auto_inc(n) => map::g_tcon_auto_inc(n),
            "G_INT of comparator {n}": regs::g_int_comp(n) => map::g_int_comp(n),
            "G_WSTAT L of comparator {n}": regs::g_wstat_comp_l(n) => map::g_wstat_comp_l(n),
            "G_WSTAT U of comparator {n}": regs::g_wstat_comp_u(n) => map::g_wstat_comp_u(n),
            "G_WSTAT ADD_INCR of comparator {n}": regs::g_wstat_comp_add_incr(n)
                => map::g_wstat_comp_add_incr(n),
        }
        g_wstat_all |=
            map::g_wstat_comp_l(n) | map::g_wstat_comp_u(n) | map::g_wstat_comp_add_incr(n);
    }
    assert_eq!(regs::G_WSTAT_ALL, g_wstat_all, "G_WSTAT all");
}

#[test]
fn local_bits_agree() {
    agree! {
        "L_ICNTB.MANUAL_UPDATE": L_ICNTB::MANUAL_UPDATE::SET.value => map::L_ICNTB_MANUAL_UPDATE,
        "L_ICNTB.COUNT": L_ICNTB::COUNT.mask << L_ICNTB::COUNT.shift => map::L_ICNTB_COUNT_MASK,
        "L_TCON.TIMER_START": L_TCON::TIMER_START::SET.value => map::L_TCON_TIMER_START,
        "L_TCON.INT_START": L_TCON::INT_START::SET.value => map::L_TCON_INT_START,
        "L_TCON.INTERVAL_MODE": L_TCON::INTERVAL_MODE::SET.value => map::L_TCON_INTERVAL_MODE,
        "L_TCON.FRC_START": L_TCON::FRC_START::SET.value => map::L_TCON_FRC_START,
        "L_INT.ICNT": L_INT::ICNT::SET.value => map::L_INT_ICNT,
        "L_INT.FRC": L_INT::FRC::SET.value => map::L_INT_FRC,
        "L_WSTAT.TCNTB": L_WSTAT::TCNTB::SET.value => map::L_WSTAT_TCNTB,
        "L_WSTAT.ICNTB": L_WSTAT::ICNTB::SET.value => map::L_WSTAT_ICNTB,
        "L_WSTAT.FRCNTB": L_WSTAT::FRCNTB::SET.value => map::L_WSTAT_FRCNTB,
        "L_WSTAT.TCON": L_WSTAT::TCON::SET.value => map::L_WSTAT_TCON,
        "L_WSTAT all": regs::L_WSTAT_ALL
            => map::L_WSTAT_TCNTB | map::L_WSTAT_ICNTB | map::L_WSTAT_FRCNTB | map::L_WSTAT_TCON,
    }
}
