//! MAC bring-up, descriptor layouts and buffer sizes.

use crate::harness::*;

use stmmac_coalesce::Dwmac as _;
use stmmac_coalesce::gmac3::regs::{self};
use stmmac_coalesce::sim::{AnPhy, SIM_CSR_HZ, eth_frame};
use stmmac_coalesce::{
    Coherent, ConfigError, DescLayout, DmaConfig, DmaEvents, Duplex, Error, LinkState, NoTimer,
    RxConfig, Speed, TxConfig,
};

// ---- MAC bring-up ----------------------------------------------------------------------------

fn autoneg_sets_speed_and_duplex_and_traffic_flows_at_each_speed<G: Generation>() {
    for (phy, want, ps, fes) in [
        (
            AnPhy::gigabit(),
            LinkState::up(Speed::M1000, Duplex::Full),
            false,
            false,
        ),
        (
            AnPhy::fast_ethernet(),
            LinkState::up(Speed::M100, Duplex::Full),
            true,
            true,
        ),
        (
            AnPhy::ten_half(),
            LinkState::up(Speed::M10, Duplex::Half),
            true,
            false,
        ),
    ] {
        let b = Board::<G>::with(phy, arena(), G::dma(), |m| m);
        let mut tx = b.tx(tx_cfg(4, no_timer(1)), NoTimer, Coherent);
        let mut rx = b.rx(rx_cfg(4, 1536), Coherent);
        let link = b.link_up();
        assert_eq!(link, want);
        let c = b.bus.model(|m| G::mac_line(m));
        assert_eq!((c.ps, c.fes), (ps, fes), "{want:?}");
        assert_eq!(c.full, want.duplex == Duplex::Full);
        assert!(c.te_re, "TE and RE");
        let f = eth_frame([0xFF; 6], 60, 5);
        tx.send(&b.mac, &f).unwrap();
        assert_eq!(b.sent(), [f], "{want:?}");
        let f = eth_frame(US, 80, 6);
        b.inject(&f);
        assert_eq!(rx.receive(&b.mac).unwrap().as_slice().unwrap(), &f[..]);
        assert_eq!(b.bus.model(|m| m.line_mismatch()), 0);
    }
}

fn autoneg_through_the_1000base_t_registers_alone_as_on_qemu<G: Generation>() {
    // QEMU's PHY clears LPA when negotiation completes: only CTRL1000/STAT1000 resolve it.
    let phy = AnPhy::new(stmmac_coalesce::sim::Partner {
        lpa: 0,
        g_full: true,
        g_half: false,
    });
    let b = Board::<G>::with(phy, arena(), G::dma(), |m| m);
    assert_eq!(b.link_up(), LinkState::up(Speed::M1000, Duplex::Full));
}

fn link_polling_follows_the_cable_and_tx_refuses_while_down<G: Generation>() {
    let b = Board::<G>::new();
    let mut tx = b.tx(tx_cfg(4, no_timer(1)), NoTimer, Coherent);
    assert_eq!(
        tx.reserve(&b.mac).map(|_| ()),
        Err(Error::LinkDown),
        "before bring-up"
    );
    b.link_up();
    tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 0)).unwrap();
    let phy = stmmac_coalesce::common::phy::Phy::new(mdio_bus::PhyAddr::from_bits(0));
    let mut mdio = b.mac.mdio(&b.counter, SIM_CSR_HZ).unwrap();
    b.phy.set_cable(b.clock.now_ns(), false);
    let l = phy
        .poll(&mut mdio)
        .unwrap_or_else(|_| panic!("{}: the PHY did not answer", G::NAME));
    assert!(!l.up);
    assert!(b.mac.set_link(l));
    assert_eq!(tx.reserve(&b.mac).map(|_| ()), Err(Error::LinkDown));
    assert_eq!(tx.stats().link_down, 2);
    assert!(!b.bus.model(|m| G::mac_line(m)).any_te_re, "TE and RE off");
    b.phy.set_cable(b.clock.now_ns(), true);
    assert!(
        !phy.poll(&mut mdio)
            .unwrap_or_else(|_| panic!("{}: the PHY did not answer", G::NAME))
            .up,
        "negotiating"
    );
    b.clock.advance(stmmac_coalesce::sim::AN_NS);
    let l = phy
        .poll(&mut mdio)
        .unwrap_or_else(|_| panic!("{}: the PHY did not answer", G::NAME));
    assert!(l.up);
    b.mac.set_link(l);
    tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 0)).unwrap();
    assert_eq!(b.sent().len(), 2);
}

fn filter_mac_address_and_multicast_are_programmed_at_bring_up<G: Generation>() {
    let b = Board::<G>::new();
    b.link_up();
    assert_eq!(b.mac.mac_address(), US);
    let mut rx = b.rx(rx_cfg(8, 1536), Coherent);
    let all_nodes = [0x33, 0x33, 0, 0, 0, 1];
    let solicited = [0x33, 0x33, 0xFF, 0x12, 0x34, 0x56];
    let count = |rx: &mut stmmac_coalesce::RxRing, dst| {
        b.inject(&eth_frame(dst, 80, 0));
        rx.receive(&b.mac).is_ok()
    };
    assert!(count(&mut rx, US));
    assert!(count(&mut rx, [0xFF; 6]));
    assert!(!count(&mut rx, all_nodes), "default: no multicast");
    assert!(!count(&mut rx, [0x52, 0x54, 0, 0, 0, 1]), "someone else");
    let mut f = stmmac_coalesce::FrameFilter::default();
    f.add_multicast(all_nodes);
    f.add_multicast(solicited);
    b.mac.set_filter(&f);
    assert!(count(&mut rx, all_nodes));
    assert!(count(&mut rx, solicited));
    b.mac.set_filter(&stmmac_coalesce::FrameFilter {
        all_multicast: true,
        ..Default::default()
    });
    assert!(count(&mut rx, [0x01, 0, 0x5e, 0, 0, 0xfb]));
    b.mac.set_filter(&stmmac_coalesce::FrameFilter {
        promiscuous: true,
        ..Default::default()
    });
    assert!(count(&mut rx, [0x52, 0x54, 0, 0, 0, 1]));
}

// ---- Descriptor layouts and buffer sizes -----------------------------------------------------

fn round_trip<G: Generation>(
    b: &Board<G>,
    tx_buf: usize,
    rx_buf: usize,
    tx_len: usize,
    rx_len: usize,
) {
    let mut tx = b.tx(
        TxConfig {
            buf_size: tx_buf,
            ..tx_cfg(4, no_timer(1))
        },
        NoTimer,
        Coherent,
    );
    let mut rx = b.rx(
        RxConfig {
            max_frame: (8 * rx_buf - 4).min(9000),
            ..rx_cfg(8, rx_buf)
        },
        Coherent,
    );
    let f = eth_frame([0xFF; 6], tx_len, 1);
    tx.send(&b.mac, &f).unwrap();
    assert_eq!(b.sent().last(), Some(&f));
    let f = eth_frame(US, rx_len, 2);
    b.inject(&f);
    let mut scratch = vec![0u8; 9000];
    let mut fr = rx.receive(&b.mac).unwrap();
    assert_eq!(fr.bytes(&mut scratch).unwrap(), &f[..]);
}

#[test]
fn enhanced_descriptors_are_detected_from_hw_feature_and_work() {
    let b = Board::<OnGmac3>::with(AnPhy::gigabit(), arena(), OnGmac3::dma(), |m| {
        m.with_layout(DescLayout::Enhanced)
    });
    assert_eq!(b.setup.layout(), DescLayout::Enhanced);
    b.link_up();
    // 13-bit sizes: a 4000-byte buffer, a 3000-byte frame; RX spanning too.
    round_trip(&b, 4000, 2048, 3000, 5000);
}

#[test]
fn normal_descriptors_work_and_refuse_enhanced_sizes() {
    let b = Board::<OnGmac3>::new();
    assert_eq!(b.setup.layout(), DescLayout::Normal);
    b.link_up();
    round_trip(&b, 2000, 512, 1900, 1500);
    let mem = b.arena.region(64 * 1024).unwrap();
    let cfg = TxConfig {
        buf_size: 4000,
        ..tx_cfg(4, no_timer(1))
    };
    assert!(matches!(
        stmmac_coalesce::TxRing::new(mem, &b.arena, &b.setup, cfg, NoTimer, Coherent),
        Err(Error::Config(ConfigError::BufSize))
    ));
}

#[test]
fn layout_override_for_cores_without_hw_feature() {
    // A pre-3.50a enhanced core: HW_FEATURE reads 0, so it tells nothing; guessing
    // "normal" would put RER in the wrong bit. The safe configuration refuses it, with or
    // without a layout given; the layout is an `unsafe` promise there.
    let old_core = |m: <OnGmac3 as Generation>::Model| {
        m.with_layout(DescLayout::Enhanced).without_hw_feature()
    };
    let probe = Board::<OnGmac3>::with_setup(AnPhy::gigabit(), arena(), old_core, |mac| {
        assert_eq!(mac.hw_feature(), 0);
        assert_eq!(
            mac.configure_dma(&OnGmac3::dma()),
            Err(Error::Config(ConfigError::NoHwFeature))
        );
        assert_eq!(
            mac.configure_dma(&DmaConfig {
                layout: Some(DescLayout::Enhanced),
                ..OnGmac3::dma()
            }),
            Err(Error::Config(ConfigError::NoHwFeature))
        );
        // SAFETY: the model is an enhanced core.
        unsafe { mac.configure_dma_assuming_layout(&OnGmac3::dma(), DescLayout::Enhanced) }.unwrap()
    });
    assert_eq!(probe.setup.layout(), DescLayout::Enhanced);
    probe.link_up();
    round_trip(&probe, 1536, 512, 1000, 1000);
    // On a core with HW_FEATURE, a layout given is checked against it.
    let b = Board::<OnGmac3>::new();
    assert_eq!(
        b.mac.configure_dma(&DmaConfig {
            layout: Some(DescLayout::Enhanced),
            ..OnGmac3::dma()
        }),
        Err(Error::Config(ConfigError::LayoutMismatch))
    );
    assert_eq!(
        b.mac
            .configure_dma(&DmaConfig {
                layout: Some(DescLayout::Normal),
                ..OnGmac3::dma()
            })
            .map(|s| s.layout()),
        Ok(DescLayout::Normal)
    );
}

#[test]
fn buffer_size_is_per_ring() {
    let b = Board::<OnGmac3>::new();
    b.link_up();
    let mut tx = b.tx(
        TxConfig {
            buf_size: 256,
            ..tx_cfg(4, no_timer(1))
        },
        NoTimer,
        Coherent,
    );
    let rx = b.rx(
        RxConfig {
            max_frame: 500,
            ..rx_cfg(4, 128)
        },
        Coherent,
    );
    assert_eq!(tx.buf_size(), 256);
    assert_eq!(
        rx.desc_words(0).unwrap()[1] & regs::desc::RDES1_RBS1_MASK,
        128
    );
    assert_eq!(
        tx.send(&b.mac, &eth_frame([0xFF; 6], 257, 0)),
        Err(Error::FrameSize { len: 257 })
    );
    let mut t = tx.reserve(&b.mac).unwrap();
    assert_eq!(t.buffer().len(), 256);
    t.buffer().fill(0x77);
    t.commit(256).unwrap();
    assert_eq!(b.sent(), [vec![0x77; 256]]);
    let mem = b.arena.region(64 * 1024).unwrap();
    assert!(
        matches!(
            stmmac_coalesce::RxRing::new(mem, &b.arena, &b.setup, rx_cfg(4, 130), Coherent),
            Err(Error::Config(ConfigError::BufSize))
        ),
        "RBS1 must be a multiple of the bus width"
    );
    let _ = DmaEvents::NONE;
}

on_both!(
    autoneg_sets_speed_and_duplex_and_traffic_flows_at_each_speed,
    link_polling_follows_the_cable_and_tx_refuses_while_down,
    autoneg_through_the_1000base_t_registers_alone_as_on_qemu,
    filter_mac_address_and_multicast_are_programmed_at_bring_up,
);
