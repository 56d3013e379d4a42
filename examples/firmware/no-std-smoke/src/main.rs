//! Link check for the library crates: a `no_std`, `no_main` binary with its own panic handler.
//!
//! `cargo xtask cross` builds it (release, `-Zbuild-std=core`) for all five targets of
//! `[package.metadata.cross]` in Cargo.toml and links it with `rust-lld`. Only `core` exists on
//! those targets, so any crate that needs `std` (or `alloc`) fails to build here. The binary is
//! never run: `_start` only makes sure that code from each library crate is reachable from the
//! entry point and therefore compiled, codegen'd and linked rather than discarded.
//!
//! # Adding a crate
//!
//! 1. Add `<crate>.workspace = true` under `[dependencies]` in Cargo.toml (and the path
//!    dependency to `[workspace.dependencies]` in ../Cargo.toml).
//! 2. Add one line to [`touch_libraries`] that passes something from the crate through
//!    [`black_box`]: a function pointer, a constant, the result of a `const fn`, a type's size.
#![no_std]
#![no_main]

use core::hint::black_box;

/// References one item of every library crate so that its code ends up in the link.
///
/// One line per crate. Prefer items that carry real code (a generic instantiated with a
/// concrete type, a function pointer) over constants, which may be folded away.
#[inline(never)]
fn touch_libraries() {
    black_box(hwtimer_core::extend::extend as fn(u64, u64, u32) -> u64);
    black_box(otto_on_mmio as fn(usize) -> u64);
    black_box(probe_otto_read as fn(&_) -> u64);
    black_box(probe_otto_set_next_event as fn(&mut _, u64) -> Result<(), hwtimer_core::Error>);
    black_box(
        loongarch_timer::ConstantClock::from_words
            as fn(u32, u32, u32) -> Result<loongarch_timer::ConstantClock, _>,
    );
    #[cfg(target_arch = "loongarch64")]
    black_box(loongarch_on_csr as fn() -> u64);
    black_box(mct_on_mmio as fn(usize) -> u64);
    black_box(mdio_bus::frame_ns as fn(u32) -> u64);
    black_box(mdio_bus::PhyAddr::new as fn(u8) -> Option<mdio_bus::PhyAddr>);
    black_box(switch_behind_dwmac as fn(usize) -> u16);
    black_box(stmmac_coalesce::ring::coalesce::ic_decision as fn(u32, u32, u32) -> (bool, u32));
    black_box(stmmac_rings as fn(usize) -> usize);
    black_box(global_timer_on_mmio as fn(usize) -> u64);
}

/// The stmmac rings over `Mmio` and `static` DMA memory: carving, the handover with the
/// per-architecture `dma_wmb` / `wmb` barriers, reclaim and receive.
fn stmmac_rings(base: usize) -> usize {
    use stmmac_coalesce::{
        Coherent, DmaConfig, DmaMemory, Dwmac, Gmac3, IdentityMap, NoTimer, RxConfig, RxRing,
        TxConfig, TxRing, ring_bytes,
    };
    static TX: DmaMemory<{ ring_bytes(4, 1536, 32) }> = DmaMemory::new();
    static RX: DmaMemory<{ ring_bytes(4, 512, 32) }> = DmaMemory::new();
    // SAFETY: never executed (see the module docs); `base` would be a DWMAC owned by this
    // code alone, and CPU addresses would be bus addresses.
    let (mac, addr) = unsafe {
        (
            Gmac3::new(hwtimer_core::Mmio::<u32>::new(base, 0x1060)),
            IdentityMap::new(),
        )
    };
    let cfg = DmaConfig {
        cache_line: 32,
        ..DmaConfig::default()
    };
    let (Ok(setup), Some(tm), Some(rm)) = (mac.configure_dma(&cfg), TX.take(), RX.take()) else {
        return 0;
    };
    let tc = TxConfig {
        descriptors: 4,
        coalesce: stmmac_coalesce::CoalesceConfig {
            tx_frames: 1,
            tx_usecs: 0,
            ..Default::default()
        },
        ..TxConfig::default()
    };
    let rc = RxConfig {
        descriptors: 4,
        buf_size: 512,
        ..RxConfig::default()
    };
    let (Ok(mut tx), Ok(mut rx)) = (
        TxRing::new(tm, &addr, &setup, tc, NoTimer, Coherent),
        RxRing::new(rm, &addr, &setup, rc, Coherent),
    ) else {
        return 0;
    };
    tx.start(&mac);
    rx.start(&mac);
    let _ = tx.send(&mac, &[0; 60]);
    let n = tx.service(&mac, mac.take_events());
    let mut scratch = [0u8; 1518];
    match rx.receive(&mac) {
        Ok(mut f) => f.bytes(&mut scratch).map_or(n, |b| b.len() + n),
        Err(_) => n,
    }
}

/// The stmmac DWMAC (reset, MDIO master) driving the mv88e6xxx switch driver, with the Otto
/// clocksource bounding every wait: three crates composed as firmware would compose them.
fn switch_behind_dwmac(base: usize) -> u16 {
    use hwtimer_core::Mmio;
    use stmmac_coalesce::Dwmac as _;
    // SAFETY: never executed (see the module docs); `base` would be a DWMAC (0x2000 bytes:
    // MAC and DMA) followed by the timer block, both owned by this code alone.
    let (gmac, timers) = unsafe {
        (
            Mmio::<u32>::new(base, 0x2000),
            Mmio::<u32>::new(base + 0x2000, 0x50),
        )
    };
    let cfg = otto_timer::Config::new(otto_timer::Soc::Rtl838x);
    let Ok(cs) = otto_timer::OttoClocksource::new(&timers, &cfg, 2) else {
        return 0;
    };
    let mac = stmmac_coalesce::Gmac3::new(&gmac);
    if mac.soft_reset(&cs).is_err() {
        return 0;
    }
    let Ok(mdio) = mac.mdio(&cs, 125_000_000) else {
        return 0;
    };
    match mv88e6xxx_smi::Switch::probe(
        mdio,
        &cs,
        0x10,
        mv88e6xxx_smi::chip::Family::Mv6085,
        mv88e6xxx_smi::Config::default(),
    ) {
        Ok((mut smi, _identity)) => switch_bring_up(&mut smi),
        Err(_) => 0,
    }
}

/// A firmware's switch bring-up on top of register access: a VLAN and a static address
/// for the CPU port, one port's MIB counters, the ports whose link changed, and the PPU
/// service call (so every switch-function path is compiled and linked for each target).
fn switch_bring_up<M: mdio_bus::Mdio, C: hwtimer_core::Continuous + Copy>(
    smi: &mut mv88e6xxx_smi::Switch<M, C>,
) -> u16 {
    use mv88e6xxx_smi::atu::{AtuEntry, MacAddr};
    use mv88e6xxx_smi::stats::{HistogramMode, Mib};
    use mv88e6xxx_smi::vtu::{Member, VtuEntry};
    let cpu = MacAddr::new([0x02, 0, 0, 0, 0, 0x01]);
    let vlan = VtuEntry::new(10, 1)
        .with_member(0, Member::Untagged)
        .with_member(5, Member::Tagged);
    if smi.vtu_load(&vlan).is_err() || smi.atu_load(&AtuEntry::new_static(1, cpu, 1 << 5)).is_err()
    {
        return 0;
    }
    let octets = Mib::new(HistogramMode::RxTx)
        .snapshot(smi, 0)
        .map_or(0, |s| s.in_good_octets);
    let changed = smi.link_changed_ports().map_or(0, |p| p.0);
    if smi.service().is_err() {
        return 0;
    }
    (octets as u16) ^ changed
}

/// The Cortex-A9 global timer driver over a real `Mmio` window: counter, absolute alarm on
/// the comparator, periodic mode.
fn global_timer_on_mmio(base: usize) -> u64 {
    use a9_global_timer::{Config, GlobalTimer, regs};
    use hwtimer_core::{Alarm, ClockEvent, Mmio, Monotonic};
    // SAFETY: never executed (see the module docs); on hardware `base` would be the global
    // timer of an MPCore private region (PERIPHBASE + 0x200), owned by this code alone.
    let bus = unsafe { Mmio::<u32>::new(base, regs::WINDOW_LEN) };
    let Ok(gt) = GlobalTimer::new(&bus, Config::qemu()) else {
        return 0;
    };
    if gt.start().is_err() {
        return 0;
    }
    let time = gt.counter();
    let Ok(cmp) = gt.comparator() else {
        return 0;
    };
    let Ok(mut alarm) = Alarm::new(cmp, time) else {
        return 0;
    };
    let _ = alarm.set_deadline(time.now() + 10_000);
    let _ = alarm.on_interrupt();
    let _ = alarm.event_mut().set_periodic(1_000);
    time.now()
}

/// The Exynos MCT driver over a real `Mmio` window: FRC, 64-bit time, comparator alarm.
fn mct_on_mmio(base: usize) -> u64 {
    use hwtimer_core::{Alarm, Mmio, Monotonic};
    // SAFETY: never executed (see the module docs); on hardware `base` would be the MCT
    // block (0x1005_0000 on Exynos4210), owned by this code alone.
    let bus = unsafe { Mmio::<u32>::new(base, 0x800) };
    let Ok(mct) = exynos_mct::Mct::new(&bus, exynos_mct::Config::default()) else {
        return 0;
    };
    if mct.start_frc().is_err() {
        return 0;
    }
    let time = mct.time();
    let Ok(comp) = mct.comparator(0) else {
        return 0;
    };
    let Ok(mut alarm) = Alarm::new(comp, &time) else {
        return 0;
    };
    let _ = alarm.set_deadline(time.now() + 240);
    let _ = alarm.on_interrupt();
    time.now()
}

/// The LoongArch driver on the real CSR instructions (only where they exist).
#[cfg(target_arch = "loongarch64")]
fn loongarch_on_csr() -> u64 {
    use hwtimer_core::{Alarm, Monotonic};
    use loongarch_timer::csr::NativeCsr;
    use loongarch_timer::{Config, ConstantClock, ConstantTimer, StableCounter};
    // SAFETY: never executed (see the module docs); firmware would call this at PLV0 on the
    // core whose timer it owns.
    let csr = unsafe { NativeCsr::new() };
    let Ok(clock) = ConstantClock::probe(&csr) else {
        return 0;
    };
    let time = StableCounter::new(csr.clone(), clock);
    let Ok(timer) = ConstantTimer::new(csr, clock, Config::default()) else {
        return 0;
    };
    let Ok(mut alarm) = Alarm::new(timer, &time) else {
        return 0;
    };
    let _ = alarm.set_deadline(time.now() + 1000);
    let _ = alarm.on_interrupt();
    time.now()
}

/// The Otto driver and the core machinery over a real `Mmio` window, as a firmware uses them:
/// clocksource, 64-bit time, delay, and an alarm on a clockevent.
fn otto_on_mmio(base: usize) -> u64 {
    use hwtimer_core::{Alarm, Delay, Extended, Mmio, Monotonic};
    // SAFETY: never executed (see the module docs); on hardware `base` would be the KSEG1
    // address of the timer block, owned by this code alone.
    let bus = unsafe { Mmio::<u32>::new(base, 0x50) };
    let cfg = otto_timer::Config::new(otto_timer::Soc::Rtl838x);
    let Ok(cs) = otto_timer::OttoClocksource::new(&bus, &cfg, 2) else {
        return 0;
    };
    let time = Extended::new(&cs);
    Delay::new(&cs).wait_ns(10_000);
    let Ok(ev) = otto_timer::OttoClockEvent::new(&bus, &cfg, 0) else {
        return 0;
    };
    let Ok(mut alarm) = Alarm::new(ev, &time) else {
        return 0;
    };
    let _ = alarm.set_deadline(time.now() + 100);
    let _ = alarm.on_interrupt();
    time.now()
}

/// `OttoClocksource::read` on a real `Mmio` window, out of line under a fixed name so that
/// `cargo xtask cross` can count its instructions (issue target: at most 5 on MIPS, return
/// included).
#[unsafe(no_mangle)]
#[inline(never)]
pub fn probe_otto_read(cs: &otto_timer::OttoClocksource<&'static hwtimer_core::Mmio>) -> u64 {
    use hwtimer_core::Clocksource;
    cs.read()
}

/// `OttoClockEvent::set_next_event` on a real `Mmio` window, out of line under a fixed name
/// (issue target: at most 25 MIPS instructions).
#[unsafe(no_mangle)]
#[inline(never)]
pub fn probe_otto_set_next_event(
    ev: &mut otto_timer::OttoClockEvent<&'static hwtimer_core::Mmio>,
    delta: u64,
) -> Result<(), hwtimer_core::Error> {
    use hwtimer_core::ClockEvent;
    ev.set_next_event(delta)
}

/// Entry point of the link check (named by `--entry=_start` in build.rs). Never executed.
#[unsafe(no_mangle)]
pub extern "C" fn _start() -> ! {
    touch_libraries();
    loop {
        core::hint::spin_loop();
    }
}

/// The libraries use `critical-section` but leave its implementation to the application, as
/// a firmware would. This one is a link-time stand-in (the binary never runs); real boards
/// must mask interrupts (single core) or take a lock (SMP), as fw-common's
/// `critical_section_impl!` does. The firmware workspace selects the `bool` restore state
/// (whether interrupts were on), so the stand-in returns one.
struct LinkOnlyCriticalSection;
critical_section::set_impl!(LinkOnlyCriticalSection);

// SAFETY: never executed; it exists so that code using `critical_section::with` links.
unsafe impl critical_section::Impl for LinkOnlyCriticalSection {
    unsafe fn acquire() -> critical_section::RawRestoreState {
        false
    }
    unsafe fn release(_state: critical_section::RawRestoreState) {}
}

#[panic_handler]
fn panic(_info: &core::panic::PanicInfo<'_>) -> ! {
    loop {
        core::hint::spin_loop();
    }
}
