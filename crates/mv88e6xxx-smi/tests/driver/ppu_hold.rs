//! The PHY polling unit held across a run of PHY accesses on a PPU-gated chip (6185),
//! restarted 10 ms after the last one (Linux's `mv88e6xxx_phy_ppu_access_put` timer), on
//! the model, which counts PPU_ENABLE transitions and every host PHY access that collides
//! with a running PPU.

use crate::common::{p, r};
use mv88e6xxx_smi::chip::{Chip, Family};
use mv88e6xxx_smi::sim::{Attach, BusyDelay, ChipModel, SwitchSim};
use mv88e6xxx_smi::{BusyWait, Config, Error, PPU_HOLD_NS, Switch};

fn sim_6185() -> SwitchSim {
    SwitchSim::single(ChipModel::new(Chip::Mv6185, Attach::Indirect(2)).with_port_phys())
}

const N: u8 = 32;

/// N PHY reads stop the PPU once; it stays stopped until `service` after the deadline,
/// which restarts it once, 10 ms after the last access; no access collides.
#[test]
fn a_run_stops_the_ppu_once_and_restarts_it_once_10ms_after_the_last_access() {
    let mut sim = sim_6185();
    let (mut smi, _) =
        Switch::probe(&mut sim.bus, &sim.counter, 2, Family::Mv6085, Config::new()).unwrap();
    for i in 0..N {
        // PHYs 0..9, PHYID1 of the Marvell-style PHY model.
        assert_eq!(smi.phy_read(p(i % 10), r(2)).unwrap(), 0x0141);
    }
    let t_last = sim.clock.now_ns();
    assert!(smi.ppu_held());
    // Before the deadline `service` does nothing, not even a frame.
    let f0 = smi.frames();
    smi.service().unwrap();
    assert!(smi.ppu_held());
    assert_eq!(smi.frames(), f0);
    sim.clock.advance(PPU_HOLD_NS);
    smi.service().unwrap();
    assert!(!smi.ppu_held());
    let _ = smi.release();
    let m = sim.bus.device().chip(0).unwrap();
    assert_eq!(m.ppu_collisions(), 0);
    assert_eq!((m.ppu_stops(), m.ppu_starts()), (1, 1));
    let started = m.ppu_last_start_ns().unwrap();
    assert!(
        started >= t_last + PPU_HOLD_NS,
        "{started} < {t_last} + 10 ms"
    );
    // Restarted by the first frame after the deadline, not later.
    assert!(started < t_last + PPU_HOLD_NS + 200_000, "{started}");
    assert_eq!(
        m.ppu_state(sim.clock.now_ns()),
        Some(mv88e6xxx_smi::regs::PPU_STATE_POLLING)
    );
}

/// An access before the deadline extends it; one after the deadline finds the PPU
/// restarted (by that access) and stops it again.
#[test]
fn accesses_extend_the_hold_and_one_after_the_deadline_stops_the_ppu_again() {
    let mut sim = sim_6185();
    let (mut smi, _) =
        Switch::probe(&mut sim.bus, &sim.counter, 2, Family::Mv6085, Config::new()).unwrap();
    smi.phy_read(p(1), r(2)).unwrap();
    sim.clock.advance(PPU_HOLD_NS * 9 / 10);
    smi.phy_read(p(1), r(3)).unwrap(); // before the deadline: extends it
    sim.clock.advance(PPU_HOLD_NS * 9 / 10);
    smi.service().unwrap();
    assert!(smi.ppu_held(), "the second access moved the deadline");
    sim.clock.advance(PPU_HOLD_NS);
    // After the deadline: the PPU is restarted first, then stopped again for this access.
    smi.phy_write(p(1), r(4), 0x01e1).unwrap();
    assert!(smi.ppu_held());
    assert_eq!(smi.phy_read(p(1), r(4)).unwrap(), 0x01e1);
    smi.ppu_release().unwrap();
    assert!(!smi.ppu_held());
    let _ = smi.release();
    let m = sim.bus.device().chip(0).unwrap();
    assert_eq!(m.ppu_collisions(), 0);
    assert_eq!((m.ppu_stops(), m.ppu_starts()), (2, 2));
}

/// Any switch register access after the deadline restarts the PPU (here a port read),
/// before its own frames.
#[test]
fn any_access_after_the_deadline_restarts_the_ppu() {
    let mut sim = sim_6185();
    let (mut smi, _) =
        Switch::probe(&mut sim.bus, &sim.counter, 2, Family::Mv6085, Config::new()).unwrap();
    smi.phy_read(p(0), r(2)).unwrap();
    // Before the deadline a port read leaves the hold alone.
    smi.port_read(0, 3).unwrap();
    assert!(smi.ppu_held());
    sim.clock.advance(PPU_HOLD_NS);
    smi.port_read(0, 3).unwrap();
    assert!(!smi.ppu_held());
    let _ = smi.release();
    let m = sim.bus.device().chip(0).unwrap();
    assert_eq!((m.ppu_stops(), m.ppu_starts()), (1, 1));
}

/// With the hold off, every access stops and restarts the PPU: N of each, and more frames
/// than the held run.
#[test]
fn without_the_hold_every_access_stops_and_restarts_the_ppu() {
    let mut frames = [0u64; 2];
    for (i, hold) in [true, false].into_iter().enumerate() {
        let mut sim = sim_6185();
        let (mut smi, _) =
            Switch::probe(&mut sim.bus, &sim.counter, 2, Family::Mv6085, Config::new()).unwrap();
        smi.set_ppu_hold(hold).unwrap();
        let f0 = smi.frames();
        for n in 0..N {
            smi.phy_read(p(n % 10), r(1)).unwrap();
        }
        smi.ppu_release().unwrap();
        frames[i] = smi.frames() - f0;
        let _ = smi.release();
        let m = sim.bus.device().chip(0).unwrap();
        assert_eq!(m.ppu_collisions(), 0);
        let n = if hold { 1 } else { u64::from(N) };
        assert_eq!((m.ppu_stops(), m.ppu_starts()), (n, n), "hold {hold}");
    }
    // Held: one stop (CTL1 read + write + poll), N reads, one restart (write + poll), each an
    // indirect access of 3 frames; per access: stop and restart around each read.
    assert_eq!(frames[0], 3 * (3 + u64::from(N) + 2));
    assert_eq!(frames[1], 3 * 6 * u64::from(N));
}

/// A PPU that never stops: a typed timeout within the bound, the hold never starts,
/// the PHY is never touched.
#[test]
fn a_ppu_that_never_stops_is_a_timeout_and_no_hold_starts() {
    let mut sim = SwitchSim::single(
        ChipModel::new(Chip::Mv6185, Attach::Indirect(2))
            .with_port_phys()
            .with_ppu_busy(BusyDelay::stuck()),
    );
    let mut smi = Switch::new(
        &mut sim.bus,
        &sim.counter,
        mv88e6xxx_smi::Addressing::select(Family::Mv6085, 2).unwrap(),
        Chip::Mv6185,
        Config::new().with_timeout_ns(1_000_000),
    )
    .unwrap();
    let e = smi.phy_read(p(0), r(2)).unwrap_err();
    assert!(
        matches!(e, Error::Timeout(t) if t.wait == BusyWait::PpuDisabled),
        "{e:?}"
    );
    assert!(!smi.ppu_held());
    let _ = smi.release();
    assert_eq!(sim.bus.device().chip(0).unwrap().ppu_collisions(), 0);
}

// ---- the PPU hold's timer on the family's queue ------------------------------------------

use hwtimer_core::sim::{SimClock, SimClockEvent, SimClockEventProbe, SimCounter};
use hwtimer_core::{Alarm, Extended, HrTimers, Restart};
use mv88e6xxx_smi::{PpuQueueTimer, PpuTimer};

type Timers = HrTimers<SimClockEvent, Extended<SimCounter>, 2>;

/// A 25 MHz timer queue on `clock` (leaked for `'static`) and one slot of it for the PPU.
fn ppu_slot(
    clock: &SimClock,
) -> (
    &'static Timers,
    SimClockEventProbe,
    &'static PpuQueueTimer<SimClockEvent, Extended<SimCounter>, 2>,
) {
    let event = SimClockEvent::new(clock, 25_000_000, 1, u64::from(u32::MAX));
    let probe = event.probe();
    let time = Extended::new(SimCounter::new(clock, 32, 25_000_000));
    let timers: &'static Timers =
        Box::leak(Box::new(HrTimers::new(Alarm::new(event, time).unwrap())));
    let slot = Box::leak(Box::new(PpuQueueTimer::new(timers).unwrap()));
    (timers, probe, slot)
}

/// With a slot of the queue lent to the switch, the PPU restarts 10 ms after the last PHY
/// access of a run, the only `service` calls being the ones the timer's expiry asks for:
/// the first expiry (10 ms after the first access) finds the deadline moved and re-arms,
/// the second restarts the PPU.
#[test]
fn a_lent_queue_timer_restarts_the_ppu_10ms_after_the_last_access() {
    let mut sim = sim_6185();
    let (timers, probe, slot) = ppu_slot(&sim.clock);
    let id = slot.id();
    let (mut smi, _) =
        Switch::probe(&mut sim.bus, &sim.counter, 2, Family::Mv6085, Config::new()).unwrap();
    smi.set_ppu_timer(Some(slot)).unwrap();
    for i in 0..N {
        assert_eq!(smi.phy_read(p(i % 10), r(2)).unwrap(), 0x0141);
        sim.clock.advance(100_000); // a run of 32 reads over 3.2 ms
    }
    let t_last = sim.clock.now_ns() - 100_000;
    // The firmware's main loop: sleep until the queue fires; on the PPU slot's expiry,
    // call `service`. Nothing else touches the switch.
    let mut services = 0;
    while smi.ppu_held() {
        assert!(services < 4, "the hold does not end");
        probe
            .advance_to_fire()
            .expect("the hold left its timer armed");
        let mut expired = false;
        timers
            .on_interrupt(|t, _| {
                expired |= t == id;
                Restart::No
            })
            .unwrap();
        if expired {
            smi.service().unwrap();
            services += 1;
        }
    }
    assert_eq!(services, 2);
    assert!(!timers.is_queued(id), "no timer left behind");
    let _ = smi.release();
    let m = sim.bus.device().chip(0).unwrap();
    assert_eq!(
        (m.ppu_stops(), m.ppu_starts(), m.ppu_collisions()),
        (1, 1, 0)
    );
    let started = m.ppu_last_start_ns().unwrap();
    assert!(
        started >= t_last + PPU_HOLD_NS,
        "{started} < {t_last} + 10 ms"
    );
    // Within a tick and one restart's frames of the deadline.
    assert!(started <= t_last + PPU_HOLD_NS + 200_000, "{started}");
}

/// Without a timer, and without a `service` call, the PPU stays stopped: a second later
/// it has been off the whole second (the cost the `service` docs state).
#[test]
fn without_a_timer_the_ppu_stays_off_until_service() {
    let mut sim = sim_6185();
    let (mut smi, _) =
        Switch::probe(&mut sim.bus, &sim.counter, 2, Family::Mv6085, Config::new()).unwrap();
    smi.phy_read(p(0), r(2)).unwrap();
    sim.clock.advance(1_000_000_000);
    assert!(smi.ppu_held());
    let now = sim.clock.now_ns();
    let _ = smi.release();
    let m = sim.bus.device().chip(0).unwrap();
    assert!(m.ppu_off_ns(now) >= 1_000_000_000);
    assert_eq!(m.ppu_starts(), 0);
}

/// A timer that cannot be armed: the switch restarts the PPU at once instead of leaving
/// it stopped with nothing to restart it.
#[test]
fn a_timer_that_cannot_be_armed_restarts_the_ppu_at_once() {
    #[derive(Debug)]
    struct Refuses;
    impl PpuTimer for Refuses {
        fn arm_after_ns(&self, _ns: u64) -> Result<(), hwtimer_core::Error> {
            Err(hwtimer_core::Error::QueueFull)
        }
        fn cancel(&self) {}
    }
    static REFUSES: Refuses = Refuses;
    let mut sim = sim_6185();
    let (mut smi, _) =
        Switch::probe(&mut sim.bus, &sim.counter, 2, Family::Mv6085, Config::new()).unwrap();
    smi.set_ppu_timer(Some(&REFUSES)).unwrap();
    assert_eq!(smi.phy_read(p(1), r(2)).unwrap(), 0x0141);
    assert!(!smi.ppu_held());
    let _ = smi.release();
    let m = sim.bus.device().chip(0).unwrap();
    assert_eq!(
        (m.ppu_stops(), m.ppu_starts(), m.ppu_collisions()),
        (1, 1, 0)
    );
}
