//! Silicon hazards QEMU cannot show: each test makes the model raise the
//! condition and checks what the driver does about it.

use crate::harness::*;

use hwtimer_core::RegisterBusExt;
use stmmac_coalesce::Dwmac as _;
use stmmac_coalesce::gmac3::regs;

/// An MMC counter past half range, or an RGMII/PCS link event, raises GMI/GLI: summaries
/// that clear only at their source. Unmasked, the shared interrupt line stays high for
/// ever (an interrupt storm: `take_events` acknowledges nothing of it).
#[test]
fn mac_and_mmc_interrupts_are_masked_after_reset() {
    let b = Board::<OnGmac3>::new();
    let _link = b.link_up();
    let _rx = b.rx(rx_cfg(8, 1536), stmmac_coalesce::Coherent);
    b.mac.set_interrupts(regs::DMA_INTR_DEFAULT);
    let now = b.clock.now_ns();
    assert!(!b.bus.model(|m| m.irq_pending(now)));
    for which in 0..3 {
        b.bus.model(|m| m.raise_mmc_half_range(which));
    }
    b.bus.model(|m| m.raise_link_event());
    // The interrupt handler's step: read and acknowledge DMA_STATUS.
    let ev = b.mac.take_events();
    assert!(ev.is_empty(), "{ev:?}");
    let st = b.mac.status().get();
    assert_eq!(
        st & (regs::DMA_STATUS_GLI | regs::DMA_STATUS_GMI | regs::DMA_STATUS_GPI),
        0,
        "DMA_STATUS {st:#x}"
    );
    assert!(
        !b.bus.model(|m| m.irq_pending(now)),
        "the interrupt line stays asserted"
    );
}

/// The model raises the storm when the masks are cleared again (the test can fail).
#[test]
fn the_model_storms_with_the_masks_cleared() {
    let b = Board::<OnGmac3>::new();
    b.bus.model(|m| m.raise_mmc_half_range(1));
    // SAFETY: writes only the MMC mask, no DMA address.
    unsafe { b.mac.bus() }.write_raw(regs::MMC_TX_INTR_MASK, 0);
    let now = b.clock.now_ns();
    assert!(b.bus.model(|m| m.irq_pending(now)));
    assert_ne!(b.mac.status().get() & regs::DMA_STATUS_GMI, 0);
    let _ = b.mac.take_events();
    assert!(
        b.bus.model(|m| m.irq_pending(now)),
        "cleared by a DMA_STATUS write"
    );
}

fn timed(tx_frames: u32, tx_usecs: u32) -> stmmac_coalesce::CoalesceConfig {
    stmmac_coalesce::CoalesceConfig {
        tx_frames,
        tx_usecs,
        ..stmmac_coalesce::CoalesceConfig::default()
    }
}

/// A poll demand that overtook its descriptor store leaves the TX DMA suspended with a
/// descriptor it owns: no TI ever comes. The cleanup timer, finding nothing to reclaim,
/// kicks it once with a poll demand.
#[test]
fn on_timer_kicks_a_suspended_tx_dma_that_owns_descriptors() {
    use stmmac_coalesce::{Coherent, QueueTimer};
    let b = Board::<OnGmac3>::new();
    b.link_up();
    let (timers, _probe) = timers(&b.clock);
    let mut tx = b.tx(
        tx_cfg(32, timed(25, 1000)),
        QueueTimer::new(timers).unwrap(),
        Coherent,
    );
    b.bus.model(|m| m.lose_next_tx_doorbell());
    tx.send(&b.mac, &stmmac_coalesce::sim::eth_frame([0xFF; 6], 60, 1))
        .unwrap();
    assert_eq!(b.sent().len(), 0, "the model lost the doorbell");
    assert_eq!(
        b.mac.status().read(regs::DMA_STATUS::TS),
        regs::TS_SUSPENDED
    );
    let _ = tx.on_timer(&b.mac, 0);
    assert_eq!(b.sent().len(), 1, "the expiry kicked the DMA");
    assert_eq!(tx.stats().kicks, 1);
    assert_eq!(tx.stats().recoveries, 0);
    assert_eq!(tx.reclaim(), 1);
    // Nothing pending any more: a later expiry kicks nothing.
    let _ = tx.on_timer(&b.mac, 0);
    assert_eq!(tx.stats().kicks, 1);
}

/// The user stopped the TX DMA (ST clear) with descriptors pending: the timer must not
/// start it again behind the user's back.
#[test]
fn on_timer_does_not_restart_a_dma_the_user_stopped() {
    use stmmac_coalesce::{Coherent, QueueTimer};
    let b = Board::<OnGmac3>::new();
    b.link_up();
    let (timers, _probe) = timers(&b.clock);
    let mut tx = b.tx(
        tx_cfg(32, timed(25, 1000)),
        QueueTimer::new(timers).unwrap(),
        Coherent,
    );
    let now = b.clock.now_ns();
    b.bus.model(|m| m.set_tx_stall(now, true));
    tx.send(&b.mac, &stmmac_coalesce::sim::eth_frame([0xFF; 6], 60, 1))
        .unwrap();
    b.mac.stop_tx_dma();
    let _ = tx.on_timer(&b.mac, 0);
    // SAFETY: reads only.
    let ctl = unsafe { b.mac.bus() }.read_raw(regs::DMA_CONTROL);
    assert_eq!(ctl & (1 << 13), 0, "DMA_CONTROL {ctl:#x}: ST set again");
    assert_eq!(tx.stats().recoveries, 0);
    assert_eq!(
        tx.pending(),
        1,
        "the frame stays queued for the user's restart"
    );
}

/// RDES0 LE (bit 12) and RE (bit 3, MII error) discard the frame as Linux's
/// `ndesc_get_rx_status` does, counted, whether or not ES summarises them.
#[test]
fn rx_discards_length_and_mii_errors() {
    use stmmac_coalesce::Coherent;
    use stmmac_coalesce::sim::{RxWireError, eth_frame};
    let b = Board::<OnGmac3>::new();
    b.link_up();
    let mut rx = b.rx(rx_cfg(8, 1536), Coherent);
    for (i, e) in [RxWireError::Length, RxWireError::Mii]
        .into_iter()
        .enumerate()
    {
        let now = b.clock.now_ns();
        b.bus
            .model(|m| m.inject_with_error(now, &eth_frame(US, 100, i as u8), e));
        assert_eq!(
            rx.receive(&b.mac).map(|f| f.len()),
            Err(stmmac_coalesce::Error::WouldBlock),
            "{e:?} frame delivered"
        );
    }
    assert_eq!(rx.stats().length_field_errors, 1);
    assert_eq!(rx.stats().mii_errors, 1);
    // A good frame still passes.
    b.inject(&eth_frame(US, 100, 9));
    assert!(rx.receive(&b.mac).is_ok());
}

/// A reset that takes 50 ms (a slow PHY clock) completes with the default wait, which is
/// Linux's `dwmac_dma_reset` bound (200 ms); a stuck one fails only after it, and a
/// shorter bound can be asked for.
#[test]
fn soft_reset_waits_as_long_as_linux() {
    use hwtimer_core::sim::{SimBus, SimClock, SimCounter};
    use stmmac_coalesce::sim::{AnPhy, Gmac3Model, SIM_CSR_HZ};
    use stmmac_coalesce::{Error, Gmac3};
    let run = |reset_ns: u64, stuck: bool, bound: Option<u64>| {
        let clock = SimClock::new();
        let counter = SimCounter::new(&clock, 32, 25_000_000);
        let mut m =
            Gmac3Model::new(arena(), AnPhy::gigabit(), SIM_CSR_HZ).with_reset_time(reset_ns);
        m.set_swr_stuck(stuck);
        let mac = Gmac3::new(SimBus::new(&clock, m));
        let r = match bound {
            None => mac.soft_reset(&counter).map(|_| ()),
            Some(us) => mac.soft_reset_within(&counter, us).map(|_| ()),
        };
        (r, clock.now_ns())
    };
    assert_eq!(run(50_000_000, false, None).0, Ok(()));
    let (r, t) = run(1_000, true, None);
    assert_eq!(r, Err(Error::Timeout));
    assert!(t >= 200_000_000, "gave up after {t} ns");
    let (r, t) = run(50_000_000, false, Some(10_000));
    assert_eq!(r, Err(Error::Timeout));
    assert!(t < 50_000_000, "{t} ns");
}

/// `TxConfig::default()` builds a ring (it passes its own validation).
fn tx_config_default_is_valid<G: Generation>() {
    use stmmac_coalesce::{Coherent, QueueTimer, TxConfig, TxRing, ring_bytes};
    let cfg = TxConfig::default();
    assert_eq!(cfg.coalesce.validate_tx(cfg.descriptors), Ok(()));
    let b = Board::<G>::new();
    let (timers, _probe) = timers(&b.clock);
    let mem = b
        .arena
        .region(ring_bytes(
            cfg.descriptors,
            cfg.buf_size,
            b.setup.cache_line(),
        ))
        .unwrap();
    let ring = TxRing::new(
        mem,
        &b.arena,
        &b.setup,
        cfg,
        QueueTimer::new(timers).unwrap(),
        Coherent,
    );
    assert!(ring.is_ok(), "{:?}", ring.err());
}

/// The STM32F4/F7 erratum: a second write to the same MAC/DMA register shortly after the
/// first is lost. Restarting the TX DMA writes DMA_CONTROL twice (stop, start), and
/// `stop` then `set_link` write GMAC_CONTROL back to back; with the guard on, each write
/// is followed by read-backs, and both take.
#[test]
fn successive_writes_erratum_guard() {
    use stmmac_coalesce::{Coherent, NoTimer};
    let run = |guard: u8| {
        // A process that stops at once: the stop's wait for Stopped puts no time between
        // the writes.
        let b = Board::<OnGmac3>::with(
            stmmac_coalesce::sim::AnPhy::gigabit(),
            arena(),
            OnGmac3::dma(),
            |m| m.with_stop_lag(0),
        );
        let link = b.link_up();
        let mut tx = b.tx(tx_cfg(8, no_timer(1)), NoTimer, Coherent);
        b.bus.model(|m| m.set_successive_write_erratum(1_000));
        b.mac.set_write_settle(guard);
        b.clock.advance(10_000);
        let restarted = tx.try_start(&b.mac).is_ok() && b.mac.tx_dma_enabled();
        b.clock.advance(10_000);
        let _ = b.mac.stop();
        b.mac.set_link(link);
        let te_re = b.bus.model(|m| m.control()) & 0b1100 == 0b1100;
        (restarted, te_re, b.bus.model(|m| m.lost_writes()))
    };
    let (restarted, te_re, lost) = run(0);
    assert!(!restarted || !te_re, "the model lost no write ({lost})");
    assert_eq!(run(16), (true, true, 0));
}

/// A PHY left in loopback (BMCR bit 14) never puts a frame on the wire: bring-up clears it.
fn autoneg_clears_phy_loopback<G: Generation>() {
    let b = Board::<G>::new();
    b.phy
        .set_bmcr_bits(stmmac_coalesce::common::mii::BMCR_LOOPBACK);
    let link = b.link_up();
    assert!(link.up, "{link:?}");
    let now = b.clock.now_ns();
    assert!(b.phy.line(now).up, "the PHY still loops back");
}

/// A 1000BASE-T master/slave fault (STAT1000 bit 15) is no link, whatever BMSR says.
fn master_slave_fault_is_link_down<G: Generation>() {
    let b = Board::<G>::new();
    b.phy.set_master_slave_fault(true);
    let link = b.link_up();
    assert!(!link.up, "{link:?}");
}

/// Pause resolved from ADVERTISE and the partner's LPA lands in GMAC_FLOW_CTRL.
#[test]
fn pause_is_resolved_and_programmed() {
    use mdio_bus::{Mdio, PhyAddr, RegAddr};
    use stmmac_coalesce::common::phy::Phy;
    use stmmac_coalesce::sim::{AnPhy, Partner, SIM_CSR_HZ};
    let phy = AnPhy::new(Partner {
        lpa: 0x41E1 | stmmac_coalesce::common::mii::ADVERTISE_PAUSE_CAP,
        g_full: true,
        g_half: true,
    });
    let b = Board::<OnGmac3>::with(phy, arena(), OnGmac3::dma(), |m| m);
    {
        let mut mdio = b.mac.mdio(&b.counter, SIM_CSR_HZ).unwrap();
        let a = RegAddr::from_bits(stmmac_coalesce::common::mii::ADVERTISE);
        let adv = mdio.read(PhyAddr::from_bits(0), a).unwrap();
        mdio.write(
            PhyAddr::from_bits(0),
            a,
            adv | stmmac_coalesce::common::mii::ADVERTISE_PAUSE_CAP,
        )
        .unwrap();
    }
    let link = b.link_up();
    let mut mdio = b.mac.mdio(&b.counter, SIM_CSR_HZ).unwrap();
    let pause = Phy::new(PhyAddr::from_bits(0)).pause(&mut mdio).unwrap();
    drop(mdio);
    assert_eq!(pause, stmmac_coalesce::Pause { tx: true, rx: true });
    b.mac.set_flow_control(pause, link.duplex);
    assert_eq!(b.bus.model(|m| m.flow_ctrl()), 0xFFFF_0006);
    b.mac.set_flow_control(pause, stmmac_coalesce::Duplex::Half);
    assert_eq!(b.bus.model(|m| m.flow_ctrl()), 0);
}

/// BMCR soft reset waits for the self-clear, bounded; loopback is off afterwards.
#[test]
fn phy_soft_reset_is_bounded() {
    use mdio_bus::PhyAddr;
    use stmmac_coalesce::common::phy::{PHY_RESET_READS, Phy, PhyError};
    use stmmac_coalesce::sim::SIM_CSR_HZ;
    let b = Board::<OnGmac3>::new();
    b.phy
        .set_bmcr_bits(stmmac_coalesce::common::mii::BMCR_LOOPBACK);
    let phy = Phy::new(PhyAddr::from_bits(0));
    let mut mdio = b.mac.mdio(&b.counter, SIM_CSR_HZ).unwrap();
    let n = phy.soft_reset(&mut mdio, PHY_RESET_READS).unwrap();
    assert!(n > 1, "the reset took {n} reads");
    let now = b.clock.now_ns();
    drop(mdio);
    let link = b.link_up();
    assert!(link.up && b.phy.line(now + 10_000_000).up);
    b.phy.set_reset_stuck(true);
    let mut mdio = b.mac.mdio(&b.counter, SIM_CSR_HZ).unwrap();
    assert_eq!(phy.soft_reset(&mut mdio, 50), Err(PhyError::ResetTimeout));
}

on_both!(
    tx_config_default_is_valid,
    autoneg_clears_phy_loopback,
    master_slave_fault_is_link_down,
);
