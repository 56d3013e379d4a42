//! The driver's CSR map (`loongarch_timer::csr`, `loongarch_timer::cpucfg`) against the
//! model's own (`loongarch_timer::sim::map`), entry by entry. The two are written from the
//! sources separately, so a wrong fact in either shows here.
//!
//! The loongarch virt board checks the timer CSRs on QEMU, but not every fact: QEMU TCG's
//! `rdtime` ignores CNTC, and QEMU fixes the CPUCFG words, so CNTC's effect and the CPUCFG
//! layout beyond QEMU's values are checked here only.

use loongarch_timer::cpucfg;
use loongarch_timer::csr::{self, CRMD, ECFG, ESTAT, TCFG, TICLR};
use loongarch_timer::sim::map;

/// Each `"fact": driver => model` pair is equal; a failure names the fact.
macro_rules! agree {
    ($($fact:literal: $d:expr => $m:expr),* $(,)?) => {$(assert_eq!($d, $m, $fact);)*};
}

#[test]
fn csr_numbers_agree() {
    agree! {
        "CSR CRMD": csr::CSR_CRMD.offset() => map::CSR_CRMD,
        "CSR PRMD": csr::CSR_PRMD.offset() => map::CSR_PRMD,
        "CSR EUEN": csr::CSR_EUEN.offset() => map::CSR_EUEN,
        "CSR ECFG": csr::CSR_ECFG.offset() => map::CSR_ECFG,
        "CSR ESTAT": csr::CSR_ESTAT.offset() => map::CSR_ESTAT,
        "CSR ERA": csr::CSR_ERA.offset() => map::CSR_ERA,
        "CSR BADV": csr::CSR_BADV.offset() => map::CSR_BADV,
        "CSR EENTRY": csr::CSR_EENTRY.offset() => map::CSR_EENTRY,
        "CSR CPUID": csr::CSR_CPUID.offset() => map::CSR_CPUID,
        "CSR PRCFG1": csr::CSR_PRCFG1.offset() => map::CSR_PRCFG1,
        "CSR TMID": csr::CSR_TMID.offset() => map::CSR_TMID,
        "CSR TCFG": csr::CSR_TCFG.offset() => map::CSR_TCFG,
        "CSR TVAL": csr::CSR_TVAL.offset() => map::CSR_TVAL,
        "CSR CNTC": csr::CSR_CNTC.offset() => map::CSR_CNTC,
        "CSR TICLR": csr::CSR_TICLR.offset() => map::CSR_TICLR,
    }
}

#[test]
fn csr_fields_agree() {
    agree! {
        "TCFG.En": TCFG::EN::SET.value => map::TCFG_EN,
        "TCFG.Periodic": TCFG::PERIODIC::SET.value => map::TCFG_PERIODIC,
        "TCFG.InitVal": TCFG::INITVAL.mask << TCFG::INITVAL.shift => map::TCFG_INITVAL,
        "TCFG_VAL_MASK": csr::TCFG_VAL_MASK => map::TCFG_INITVAL,
        "TICLR.CLR": TICLR::CLR::SET.value => map::TICLR_CLR,
        "ESTAT.IS.TI": ESTAT::TI::SET.value => 1 << map::INT_TI,
        "ECFG.LIE": ECFG::LIE.mask << ECFG::LIE.shift => map::ECFG_LIE,
        "ECFG.VS": ECFG::VS.mask << ECFG::VS.shift => map::ECFG_VS,
        "CRMD.IE": CRMD::IE::SET.value => map::CRMD_IE,
        "CRMD.DA": CRMD::DA::SET.value => map::CRMD_DA,
        "INT_TI": csr::INT_TI => map::INT_TI,
        "ECFG.LIE bit of the timer": ECFG::LIE_TI::SET.value => 1 << map::INT_TI,
    }
}

/// The CPUCFG layout beyond QEMU's fixed values is checked on no QEMU board.
#[test]
fn cpucfg_layout_agrees() {
    agree! {
        "CPUCFG2.LLFTP": cpucfg::CPUCFG2_LLFTP => map::CPUCFG2_LLFTP,
        "feature word": cpucfg::CPUCFG_WORD_FEATURES as usize => map::CPUCFG_FEATURES,
        "CC_FREQ word": cpucfg::CPUCFG_WORD_CC_FREQ as usize => map::CPUCFG_CC_FREQ,
        "CC_MUL/CC_DIV word": cpucfg::CPUCFG_WORD_CC_RATIO as usize => map::CPUCFG_CC_MUL_DIV,
    }
    // CC_MUL in bits 15:0, CC_DIV in bits 31:16, as the driver decodes them.
    let clock = cpucfg::ConstantClock::from_words(map::CPUCFG2_LLFTP, 1_000, 0x0003_0002)
        .expect("a valid clock");
    assert_eq!(
        (clock.cc_mul(), clock.cc_div()),
        (2, 3),
        "CC_MUL/CC_DIV fields"
    );
}
