//! Soundness at the DMA boundary: the set-up is checked where it is used, the
//! geometry the DMA walks is the rings' own, register read-modify-writes are locked, there
//! is one MDIO master, the cache line comes from the cache hook, descriptor word 3 is never
//! 0, and RX reports only complete frames.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Duration;

use crate::harness::*;

use hwtimer_core::RegisterBus;
use stmmac_coalesce::Dwmac as _;
use stmmac_coalesce::sim::eth_frame;
use stmmac_coalesce::{
    Coherent, ConfigError, DescLayout, DmaConfig, Duplex, Error, Gmac3, LinkState, NoTimer, Qos,
    Speed,
};

// ---- The set-up -------------------------------------------------------------------------

#[test]
fn hw_feature_of_zero_or_all_ones_is_refused_unless_the_layout_is_promised() {
    // The decode itself (0 and all ones) is unit-tested beside it (`gmac3::decode`).
    let mac = |model: fn(<OnGmac3 as Generation>::Model) -> <OnGmac3 as Generation>::Model| {
        let clock = hwtimer_core::sim::SimClock::new();
        let m = model(stmmac_coalesce::sim::Gmac3Model::new(
            arena(),
            stmmac_coalesce::sim::AnPhy::gigabit(),
            stmmac_coalesce::sim::SIM_CSR_HZ,
        ));
        Gmac3::new(hwtimer_core::sim::SimBus::new(&clock, m))
    };
    let none = mac(|m| m.without_hw_feature());
    assert_eq!(
        none.configure_dma(&OnGmac3::dma()),
        Err(Error::Config(ConfigError::NoHwFeature))
    );
    let given = DmaConfig {
        layout: Some(DescLayout::Normal),
        ..OnGmac3::dma()
    };
    assert_eq!(
        none.configure_dma(&given),
        Err(Error::Config(ConfigError::NoHwFeature))
    );
    // SAFETY: a set-up only, never given to hardware.
    let s = unsafe { OnGmac3::dma().resolve_assuming_layout(DescLayout::Enhanced) }.unwrap();
    assert_eq!(s.layout(), DescLayout::Enhanced);
    let enhanced = mac(|m| m.with_layout(DescLayout::Enhanced));
    assert_eq!(
        enhanced.configure_dma(&OnGmac3::dma()).map(|s| s.layout()),
        Ok(DescLayout::Enhanced)
    );
    let wrong = DmaConfig {
        layout: Some(DescLayout::Normal),
        ..OnGmac3::dma()
    };
    assert_eq!(
        enhanced.configure_dma(&wrong),
        Err(Error::Config(ConfigError::LayoutMismatch))
    );
}

#[test]
fn configure_dma_cannot_change_the_geometry_under_running_rings() {
    let b = Board::<OnGmac3>::new();
    b.link_up();
    let _tx = b.tx(tx_cfg(4, no_timer(1)), NoTimer, Coherent);
    let _rx = b.rx(rx_cfg(4, 512), Coherent);
    let before = b.bus.model(|m| m.bus_mode());
    let wide = DmaConfig {
        cache_line: 64,
        ..OnGmac3::dma()
    };
    assert_eq!(b.mac.configure_dma(&wide), Err(Error::DmaRunning));
    assert_eq!(b.bus.model(|m| m.bus_mode()), before, "DSL untouched");
    b.mac.stop_tx_dma();
    assert_eq!(
        b.mac.configure_dma(&wide),
        Err(Error::DmaRunning),
        "RX runs"
    );
    b.mac.stop_rx_dma();
    assert_eq!(b.mac.configure_dma(&wide).map(|s| s.dsl()), Ok(12));
}

#[test]
fn a_ring_refuses_to_start_when_dsl_is_not_its_stride() {
    // Rings built for 64-byte descriptors, the DMA then configured for 16: started, the
    // DMA would step 16 bytes at a time through a ring laid out at 64.
    let b = Board::<OnGmac3>::with(
        stmmac_coalesce::sim::AnPhy::gigabit(),
        arena(),
        DmaConfig {
            cache_line: 64,
            ..OnGmac3::dma()
        },
        |m| m,
    );
    let mut tx = b.tx(tx_cfg(4, no_timer(1)), NoTimer, Coherent);
    let mut rx = b.rx(rx_cfg(4, 512), Coherent);
    b.mac.stop_tx_dma();
    b.mac.stop_rx_dma();
    b.mac.configure_dma(&OnGmac3::dma()).unwrap();
    let mismatch = Err(Error::GeometryMismatch {
        programmed: 0,
        ring: 12,
    });
    assert_eq!(tx.try_start(&b.mac), mismatch);
    assert_eq!(rx.try_start(&b.mac), mismatch);
    rx.start(&b.mac);
    const ST: u32 = 1 << 13;
    const SR: u32 = 1 << 1;
    let control = b
        .bus
        .model(|m| hwtimer_core::sim::SimModel::read(m, 0, 0x1018));
    assert_eq!(control & (ST | SR), 0, "neither DMA started: {control:#x}");
    assert_eq!(rx.stats().refused_starts, 2);
    assert_eq!(tx.stats().refused_starts, 1);
    // Back to the rings' geometry: they start.
    b.mac
        .configure_dma(&DmaConfig {
            cache_line: 64,
            ..OnGmac3::dma()
        })
        .unwrap();
    assert_eq!(tx.try_start(&b.mac), Ok(()));
    assert_eq!(rx.try_start(&b.mac), Ok(()));
}

#[test]
fn word_3_of_every_descriptor_points_at_its_own_buffer() {
    let b = Board::<OnGmac3>::new();
    b.link_up();
    let mut tx = b.tx(tx_cfg(4, no_timer(1)), NoTimer, Coherent);
    let mut rx = b.rx(rx_cfg(4, 512), Coherent);
    let check = |what: &str, w: [u32; 4]| {
        assert!(w[2] != 0 && w[3] == w[2], "{what}: {w:#x?}");
    };
    for i in 0..4 {
        check("tx idle", tx.desc_words(i).unwrap());
        check("rx refilled", rx.desc_words(i).unwrap());
    }
    for k in 0..6u8 {
        tx.send(&b.mac, &eth_frame([0xFF; 6], 60, k)).unwrap();
        tx.reclaim();
        b.inject(&eth_frame(US, 700, k));
        drop(rx.receive(&b.mac).unwrap());
    }
    for i in 0..4 {
        check("tx sent", tx.desc_words(i).unwrap());
    }
    for i in 0..4 {
        let w = rx.desc_words(i).unwrap();
        if w[0] & stmmac_coalesce::gmac3::regs::desc::OWN != 0 {
            check("rx given back", w);
        }
    }
}

// ---- MDIO -------------------------------------------------------------------------------

fn one_mdio_master_at_a_time<G: Generation>() {
    let b = Board::<G>::new();
    let first = b
        .mac
        .mdio(&b.counter, stmmac_coalesce::sim::SIM_CSR_HZ)
        .unwrap();
    assert!(matches!(
        b.mac.mdio(&b.counter, stmmac_coalesce::sim::SIM_CSR_HZ),
        Err(Error::MdioBusy)
    ));
    drop(first);
    assert!(
        b.mac
            .mdio(&b.counter, stmmac_coalesce::sim::SIM_CSR_HZ)
            .is_ok()
    );
}

// ---- RX: only complete frames are data -----------------------------------------------

#[test]
fn has_data_waits_for_the_last_descriptor_of_a_spanning_frame() {
    // QEMU's npcm-gmac writes the last descriptor twice: OWN clear without LS, then LS.
    // Until LS lands the frame is not data; a stack polling `has_data` must not be told
    // otherwise (it would spin on `receive` returning WouldBlock).
    let b = Board::<OnGmac3>::new();
    b.link_up();
    let mut rx = b.rx(rx_cfg(8, 512), Coherent);
    b.bus.model(|m| m.set_split_last_write(true));
    let f = eth_frame(US, 1200, 7);
    b.inject(&f);
    assert!(
        !rx.desc_words(0).unwrap()[0] & stmmac_coalesce::gmac3::regs::desc::OWN != 0,
        "the head is CPU-owned already"
    );
    assert!(!rx.has_data(), "LS not written yet");
    assert_eq!(rx.receive(&b.mac).map(|_| ()), Err(Error::WouldBlock));
    b.bus.model(|m| m.complete_rx_writes());
    assert!(rx.has_data());
    let mut scratch = [0u8; 1518];
    assert_eq!(
        rx.receive(&b.mac).unwrap().bytes(&mut scratch).unwrap(),
        &f[..]
    );
    assert!(!rx.has_data());
}

#[test]
fn a_head_without_fs_is_not_data_and_is_dropped_once_a_frame_follows() {
    let b = Board::<OnGmac3>::new();
    b.link_up();
    let mut rx = b.rx(rx_cfg(4, 512), Coherent);
    let f = eth_frame(US, 100, 1);
    b.inject(&eth_frame(US, 100, 9));
    // Descriptor 0 (the head): a rogue write leaves it CPU-owned, no FS, no LS; the DMA
    // is past it, at descriptor 1 (DMA-owned). Reported as data, the stack would spin on
    // `receive` until an RU that a quiet link never brings.
    b.arena.write_u32(rx.base(), 0);
    assert!(!rx.has_data(), "no complete frame: nothing to spin on");
    assert_eq!(rx.receive(&b.mac).map(|_| ()), Err(Error::WouldBlock));
    // A frame arrives in descriptor 1: the head is dropped on the way to it.
    b.inject(&f);
    assert!(rx.has_data());
    let got = rx.receive(&b.mac).unwrap();
    assert_eq!(got.as_slice(), Some(&f[..]));
    drop(got);
    assert_eq!(rx.stats().partial, 1);
}

// ---- The register lock ------------------------------------------------------------------

/// A register file shared between threads. The first read of `target` after `arm` hands
/// control to another thread (the "interrupt") and waits up to 200 ms for it to finish
/// its own access: without a lock it finishes inside the read-modify-write, with one it
/// cannot start until the section ends.
struct RacyBus {
    regs: Mutex<Vec<u32>>,
    target: usize,
    armed: AtomicBool,
    go: Mutex<Sender<()>>,
    done: Mutex<Receiver<()>>,
}

impl RegisterBus for RacyBus {
    type Word = u32;
    fn read_word(&self, offset: usize) -> u32 {
        let v = self.regs.lock().unwrap()[offset / 4];
        if offset == self.target && self.armed.swap(false, Ordering::SeqCst) {
            self.go.lock().unwrap().send(()).unwrap();
            let _ = self
                .done
                .lock()
                .unwrap()
                .recv_timeout(Duration::from_millis(200));
        }
        v
    }
    fn write_word(&self, offset: usize, value: u32) {
        self.regs.lock().unwrap()[offset / 4] = value;
    }
}

/// Runs `main` with `irq` interrupting its first read of `target` on the MAC `make`
/// builds over a register file of `len` bytes (`init` at `target`, plus `presets`);
/// returns the register.
#[allow(clippy::too_many_arguments)]
fn race_on<T: Sync>(
    len: usize,
    target: usize,
    init: u32,
    presets: &[(usize, u32)],
    make: impl FnOnce(RacyBus) -> T,
    bus: impl Fn(&T) -> &RacyBus,
    main: impl FnOnce(&T) + Send,
    irq: impl FnOnce(&T) + Send,
) -> u32 {
    let (go_tx, go_rx) = channel();
    let (done_tx, done_rx) = channel();
    let mut regs = vec![0u32; len / 4];
    for &(offset, value) in presets {
        regs[offset / 4] = value;
    }
    regs[target / 4] = init;
    let mac = make(RacyBus {
        regs: Mutex::new(regs),
        target,
        armed: AtomicBool::new(true),
        go: Mutex::new(go_tx),
        done: Mutex::new(done_rx),
    });
    std::thread::scope(|s| {
        let m = &mac;
        s.spawn(move || {
            // Bounded: a `main` that never reads `target` must not hang the test.
            if go_rx.recv_timeout(Duration::from_secs(5)).is_ok() {
                irq(m);
            }
            let _ = done_tx.send(());
        });
        main(&mac);
    });
    bus(&mac).read_word(target)
}

/// [`race_on`] a 3.x `Gmac3`.
fn race(
    target: usize,
    init: u32,
    main: impl FnOnce(&Gmac3<RacyBus>) + Send,
    irq: impl FnOnce(&Gmac3<RacyBus>) + Send,
) -> u32 {
    fn bus(m: &Gmac3<RacyBus>) -> &RacyBus {
        // SAFETY: reads of the test's own register file.
        unsafe { m.bus() }
    }
    race_on(0x1060, target, init, &[], Gmac3::new, bus, main, irq)
}

/// [`race_on`] a 4.x `Qos` (MAC_VERSION 4.10, so the probe takes it).
fn race4(
    target: usize,
    init: u32,
    main: impl FnOnce(&Qos<RacyBus>) + Send,
    irq: impl FnOnce(&Qos<RacyBus>) + Send,
) -> u32 {
    fn bus(m: &Qos<RacyBus>) -> &RacyBus {
        // SAFETY: reads of the test's own register file.
        unsafe { m.bus() }
    }
    let make = |b: RacyBus| Qos::probe(b).expect("MAC_VERSION 4.10");
    race_on(0x1200, target, init, &[(0x110, 0x41)], make, bus, main, irq)
}

#[test]
fn dma_control_read_modify_writes_do_not_lose_each_other() {
    const ST: u32 = 1 << 13;
    const SR: u32 = 1 << 1;
    // The link path stops TX while the interrupt handler stops RX.
    let c = race(0x1018, ST | SR, |m| m.stop_tx_dma(), |m| m.stop_rx_dma());
    assert_eq!(c & (ST | SR), 0, "DMA_CONTROL {c:#x}: a stop was lost");
}

#[test]
fn gmac_control_read_modify_writes_do_not_lose_each_other() {
    const PS_FES: u32 = (1 << 15) | (1 << 14);
    const TE_RE: u32 = (1 << 3) | (1 << 2);
    const DM: u32 = 1 << 11;
    // The MAC is being stopped while the link path reconfigures it for 100 Mbit/s: the
    // link path's speed bits must survive (whichever runs last, its bits are whole).
    let up = LinkState::up(Speed::M100, Duplex::Full);
    let c = race(
        0,
        DM | TE_RE,
        |m| {
            let _ = m.stop();
        },
        |m| {
            m.set_link(up);
        },
    );
    assert_eq!(c & (PS_FES | TE_RE), PS_FES | TE_RE, "GMAC_CONTROL {c:#x}");
}

#[test]
fn qos_mac_config_read_modify_writes_do_not_lose_each_other() {
    const RE_TE: u32 = 0b11;
    const DM: u32 = 1 << 13;
    const FES_PS: u32 = (1 << 14) | (1 << 15);
    // As on 3.x: the MAC is stopped while the link path reconfigures it for 100 Mbit/s;
    // with `stop`'s read-modify-write of MAC_CONFIG interrupted, the link path's bits
    // must survive whole.
    let up = LinkState::up(Speed::M100, Duplex::Full);
    let c = race4(
        0,
        DM | RE_TE,
        |m| {
            let _ = m.stop();
        },
        |m| {
            m.set_link(up);
        },
    );
    assert_eq!(c & (FES_PS | RE_TE), FES_PS | RE_TE, "MAC_CONFIG {c:#x}");
}

#[test]
fn qos_rx_checksum_switched_during_stop_is_kept() {
    const IPC: u32 = 1 << 27;
    // The stack switches RX checksum offload (MAC_CONFIG.IPC) from another core while
    // `stop` clears TE/RE: interrupted inside `stop`'s MAC_CONFIG update, the offload bit
    // set meanwhile is kept.
    let c = race4(
        0,
        0b11,
        |m| {
            let _ = m.stop();
        },
        |m| {
            m.set_rx_checksum(true);
        },
    );
    assert_eq!(c & IPC, IPC, "MAC_CONFIG {c:#x}: IPC was lost");
}

// ---- A bus width the core does not have -------------------------------------------------

#[test]
fn a_wrong_bus_width_stalls_the_dma_inside_the_ring() {
    // DSL counts bus-width words, and GMAC 3.x cannot tell its bus width: configured as 4
    // bytes on a 64-bit bus, DSL 12 makes the DMA step 16 + 12 * 8 = 112 bytes through a
    // ring laid out at 64. Its second "descriptor" is then padding inside the ring. The
    // region came from a `&'static mut` whose old contents look like descriptors owned by
    // the DMA, pointing at another buffer: unless the padding is cleared, received bytes
    // land there.
    use stmmac_coalesce::DmaAddr as _;
    let b = Board::<OnGmac3>::with(
        stmmac_coalesce::sim::AnPhy::gigabit(),
        arena(),
        DmaConfig {
            cache_line: 64,
            ..OnGmac3::dma()
        },
        |m| m.with_bus_width(8),
    );
    b.link_up();
    let len = stmmac_coalesce::ring_bytes(4, 512, 64);
    let mem = b.arena.region(len).unwrap();
    let base = b.arena.bus_addr(mem.as_ptr()).unwrap();
    let victim = b.arena.region(4096).unwrap();
    let vbus = b.arena.bus_addr(victim.as_ptr()).unwrap();
    for off in (0..len as u32).step_by(16) {
        for (w, v) in [stmmac_coalesce::gmac3::regs::desc::OWN, 512, vbus, 0]
            .into_iter()
            .enumerate()
        {
            b.arena.write_u32(base + off + 4 * w as u32, v);
        }
    }
    let mut rx =
        stmmac_coalesce::RxRing::new(mem, &b.arena, &b.setup, rx_cfg(4, 512), Coherent).unwrap();
    rx.try_start(&b.mac).unwrap();
    for k in 0..4u8 {
        b.inject(&eth_frame(US, 100, k));
        let _ = rx.receive(&b.mac).map(|f| f.len());
    }
    // The rule that makes this hold for a width configured up to 4 times too narrow: a
    // ring with padding between descriptors has at least four.
    let small = b
        .arena
        .region(stmmac_coalesce::ring_bytes(3, 512, 64))
        .unwrap();
    assert_eq!(
        stmmac_coalesce::RxRing::new(small, &b.arena, &b.setup, rx_cfg(3, 512), Coherent)
            .map(|_| ()),
        Err(Error::RingSize)
    );
    let written = b
        .arena
        .read_bytes(vbus, 4096)
        .unwrap()
        .iter()
        .filter(|&&x| x != 0)
        .count();
    assert_eq!(written, 0, "the DMA wrote outside the ring");
}

on_both!(one_mdio_master_at_a_time,);
