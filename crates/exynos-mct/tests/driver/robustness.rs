//! What happens when the block misbehaves: waits that stay bounded when the FRC stops, the
//! "FRC runs" belief that changes only after an acknowledgement, stale write-status bits
//! at takeover, channels left running by a failed write, and a suspend that cuts the
//! block's power. Virtual time and MMIO counts only.

use exynos_mct::sim::{MctModel, WstatMode};
use exynos_mct::wstat::{max_reads, max_reads_iterations};
use exynos_mct::{Config, Mct, WaitClock, WstatConfig, regs};
use hwtimer_core::sim::{SimBus, SimClock};
use hwtimer_core::{ClockEvent, Error, Monotonic, RegisterBus};

/// Short bounds so the counts below stay readable: 1 ms of FRC time or 100 polls.
fn config() -> Config {
    Config {
        wstat: WstatConfig {
            timeout_ns: 1_000_000,
            max_polls: 100,
        },
        ..Config::default()
    }
}

fn setup(model: MctModel) -> (SimClock, SimBus<MctModel>) {
    let clock = SimClock::new();
    let bus = SimBus::new(&clock, model);
    (clock, bus)
}

/// An unclocked block: every read is 0, no acknowledgement ever comes. `start_frc` times
/// out, the FRC is not believed to run, and the next arm is bounded by polls. (Before:
/// the belief was set before the acknowledgement, so the arm polled a frozen `G_CNT_L`
/// with no other bound: it never returned.)
#[test]
fn a_failed_start_leaves_the_frc_not_running_and_later_waits_bounded() {
    let (_clock, bus) = setup(MctModel::exynos4210());
    let mct = Mct::new(bus.clone(), config()).unwrap();
    let mut comp = mct.comparator(0).unwrap();
    bus.go_dead(Some(0));
    assert_eq!(mct.start_frc(), Err(Error::Timeout));
    assert!(!mct.frc_running(), "belief set without an acknowledgement");
    assert_eq!(mct.wait_clock(), WaitClock::Iterations);
    bus.reset_stats();
    assert_eq!(comp.set_next_event(2_400), Err(Error::Timeout));
    // The hi-lo-hi start read (3), then one wait (the disable, forced after the failed
    // start), bounded by polls.
    let reads = bus.stats().reads;
    assert!(reads <= 3 + max_reads_iterations(100), "{reads} reads");
}

/// The FRC stops counting in the middle of the driver's life (its clock is cut): a wait
/// bounded by the FRC ends after `max_polls` polls. (Before: the wait polled the frozen
/// `G_CNT_L` forever.)
#[test]
fn a_frc_that_stops_during_a_wait_ends_it_after_max_polls() {
    let (_clock, bus) = setup(MctModel::exynos4210());
    let mct = Mct::new(bus.clone(), config()).unwrap();
    mct.start_frc().unwrap();
    assert!(matches!(mct.wait_clock(), WaitClock::Frc { .. }));
    let mut comp = mct.comparator(0).unwrap();
    bus.model(|m| {
        m.force_read(regs::G_CNT_L.offset(), Some(0x1234));
        m.set_wstat_mode(WstatMode::Stuck);
    });
    bus.reset_stats();
    assert_eq!(comp.set_next_event(2_400), Err(Error::Timeout));
    let reads = bus.stats().reads;
    // The hi-lo-hi read of the start, then one wait (G_COMP0_L) that never ends.
    assert!(reads <= 7 + max_reads(&config().wstat), "{reads} reads");
    assert!(
        reads >= 2 * 100,
        "{reads} reads: gave up before max_polls polls"
    );
}

/// The same wait with a running FRC is bounded by the FRC deadline (1 ms), not cut short
/// by the poll count (10 000 polls of 2 reads at 100 ns take 2 ms).
#[test]
fn a_running_frc_bounds_the_wait_by_its_deadline() {
    let (clock, bus) = setup(MctModel::exynos4210());
    let mct = Mct::new(bus.clone(), Config::default()).unwrap();
    mct.start_frc().unwrap();
    let mut comp = mct.comparator(0).unwrap();
    bus.model(|m| m.set_wstat_mode(WstatMode::Stuck));
    let t0 = clock.now_ns();
    assert_eq!(comp.set_next_event(2_400), Err(Error::Timeout));
    let waited = clock.now_ns() - t0;
    assert!((1_000_000..1_100_000).contains(&waited), "{waited} ns");
}

/// `G_TCON`'s shadow changes only when the acknowledgement came: a start that times out
/// does not make the driver believe the FRC runs, and the next write goes out even when
/// the shadow says it would change nothing.
#[test]
fn the_g_tcon_shadow_changes_only_after_the_acknowledgement() {
    let (_clock, bus) = setup(MctModel::exynos4210().with_wstat(WstatMode::Stuck));
    let mct = Mct::new(bus.clone(), config()).unwrap();
    assert_eq!(mct.start_frc(), Err(Error::Timeout));
    assert!(!mct.frc_running());
    // The block recovers: the shadow still says stopped, so the write goes out again and
    // is acknowledged now. The first write's acknowledgement came with the recovery; it is
    // cleared before the second write, so it cannot pass for that write's.
    bus.model(|m| m.set_wstat_mode(WstatMode::Immediate));
    bus.reset_stats();
    assert_eq!(mct.start_frc(), Ok(1));
    assert!(mct.frc_running());
    assert_eq!(
        bus.stats().writes,
        3,
        "W1C of the owed acknowledgement, G_TCON write and its W1C"
    );
    assert_eq!(bus.model(|m| m.lost_writes()), 0);
}

/// Stale acknowledgements left by earlier software are cleared at takeover, so the first
/// wait waits for its own write. (Before: `start_frc` took the boot loader's `G_TCON`
/// acknowledgement for its own, returned at once, and the comparator's `G_TCON` write that
/// followed hit the still unacknowledged first one and was lost.)
#[test]
fn stale_write_status_bits_are_cleared_at_takeover() {
    let (clock, bus) = setup(MctModel::exynos4210());
    // A boot loader wrote G_TCON, G_COMP0_L and L0's TCNTB and left the bits set.
    bus.write_word(0x240, 0);
    bus.write_word(0x200, 0);
    bus.write_word(0x300, 1);
    assert_ne!(bus.read_word(0x24C), 0);
    bus.model(|m| m.set_wstat_mode(WstatMode::Delay(2_000)));
    let mct = Mct::new(bus.clone(), Config::default()).unwrap();
    let polls = mct.start_frc().unwrap();
    assert!(
        polls > 1,
        "start_frc took a stale bit for its acknowledgement"
    );
    let mut comp = mct.comparator(0).unwrap();
    comp.set_next_event(24_000).unwrap();
    assert_eq!(bus.model(|m| m.lost_writes()), 0, "a write was lost");
    let due = bus
        .model(|m| m.comparator_due_ns(clock.now_ns(), 0))
        .expect("comparator enabled in the hardware");
    clock.advance_to(due);
    assert!(comp.ack());
    let l0 = mct.local_timer(0).unwrap();
    assert_eq!(
        bus.model(|m| m.lost_writes()),
        0,
        "a local timer write was lost"
    );
    drop(l0);
}

/// A local timer whose starting `L_TCON` write landed without its acknowledgement runs
/// in interval mode: it must not interrupt, and `ack`/`shutdown` stop it. (Before: its
/// `L_INT_ENB` stayed on and `ack` only stopped timers it believed were oneshots: it
/// interrupted at every interval.)
#[test]
fn a_local_timer_left_running_by_a_tcon_timeout_does_not_keep_interrupting() {
    let (clock, bus) = setup(MctModel::exynos4210());
    let mct = Mct::new(bus.clone(), config()).unwrap();
    mct.start_frc().unwrap();
    let mut l0 = mct.local_timer(0).unwrap();
    // L_WSTAT shows ICNTB's acknowledgement but never TCON's.
    bus.model(|m| m.force_read(0x340, Some(regs::L_WSTAT::ICNTB::SET.value)));
    assert_eq!(l0.set_periodic(1_200), Err(Error::Timeout));
    bus.model(|m| m.force_read(0x340, None));
    assert!(bus.model(|m| m.local_running(0)), "the start landed");
    for _ in 0..5 {
        clock.advance(200_000); // two intervals of 1201 ticks at 12 MHz
        assert!(
            !bus.model(|m| m.local_line(clock.now_ns(), 0)),
            "interrupting after a failed arm"
        );
    }
    // A status latched behind the mask: ack stops the timer and clears it.
    assert!(l0.ack());
    assert!(!bus.model(|m| m.local_running(0)), "ack did not stop it");
    assert!(!l0.ack());
    // And shutdown stops it whatever the driver believed.
    bus.model(|m| m.force_read(0x340, Some(regs::L_WSTAT::ICNTB::SET.value)));
    assert_eq!(l0.set_next_event(1_200), Err(Error::Timeout));
    bus.model(|m| m.force_read(0x340, None));
    l0.shutdown();
    assert!(!bus.model(|m| m.local_running(0)));
    clock.advance(1_000_000);
    assert!(!l0.is_pending());
}

/// A periodic comparator whose enable landed without its acknowledgement is masked, so it
/// does not interrupt at every period; the next shutdown disables it in the hardware.
#[test]
fn a_comparator_enable_that_times_out_is_masked() {
    let (clock, bus) = setup(MctModel::exynos4210());
    let mct = Mct::new(bus.clone(), config()).unwrap();
    mct.start_frc().unwrap();
    let mut comp = mct.comparator(0).unwrap();
    // G_WSTAT shows the comparator's own bits but never TCON's.
    bus.model(|m| m.force_read(0x24C, Some(0x7)));
    assert_eq!(comp.set_periodic(2_400), Err(Error::Timeout));
    bus.model(|m| m.force_read(0x24C, None));
    assert!(bus.model(|m| m.comparator_enabled(0)), "the enable landed");
    for _ in 0..4 {
        clock.advance(100_000);
        assert!(
            !bus.model(|m| m.comparator_line(clock.now_ns(), 0)),
            "a periodic comparator interrupting after a failed arm"
        );
    }
    comp.shutdown();
    assert!(!bus.model(|m| m.comparator_enabled(0)), "not disabled");
    assert!(!comp.is_pending());
}

/// Suspend with power loss, then resume the way Linux does: the FRC restarts (loaded with
/// the published time, so time never goes back and keeps equalling the count the
/// comparators compare against), each channel's `resume` shuts it down, the local timer
/// gets its `L_TCNTB` back, and both work afterwards.
#[test]
fn resume_after_power_loss_restarts_the_frc_and_shuts_the_local_timer_down() {
    let (clock, bus) = setup(MctModel::exynos4210().with_frc(0x1_0000_0000));
    let mct = Mct::new(bus.clone(), MctModel::exynos4210().driver_config()).unwrap();
    mct.start_frc().unwrap();
    let time = mct.time();
    let mut comp = mct.comparator(1).unwrap();
    let mut l1 = mct.local_timer(1).unwrap();
    clock.advance(5_000_000);
    l1.set_periodic(1_200).unwrap();
    comp.set_periodic(2_400).unwrap();
    let before = time.now();
    // Suspend: the block loses power (FRC stopped at 0, registers reset).
    let now = clock.now_ns();
    bus.model(|m| m.power_loss(now));
    clock.advance(50_000_000);
    assert_eq!(bus.read_word(0x300 + 0x100), 0, "L1_TCNTB lost");
    mct.resume().unwrap();
    comp.resume().unwrap();
    l1.resume().unwrap();
    assert!(mct.frc_running());
    assert_eq!(
        bus.read_word(0x400),
        regs::TICK_BASE_CNT,
        "L1_TCNTB restored"
    );
    let after = time.now();
    assert!(after >= before, "time went back across the suspend");
    let hw = bus.model(|m| m.frc_value(clock.now_ns()));
    assert!(
        hw >= after && hw - after < 100,
        "time base {after} vs count {hw}"
    );
    // Nothing fires after resume until re-armed.
    clock.advance(1_000_000);
    assert!(!l1.is_pending() && !comp.is_pending());
    assert!(!bus.model(|m| m.local_running(1)));
    // Both work again.
    l1.set_next_event(1_200).unwrap();
    let due = bus.model(|m| m.local_due_ns(1)).unwrap();
    clock.advance_to(due);
    assert!(l1.ack());
    comp.set_compare(time.now() + 2_400).unwrap();
    let due = bus
        .model(|m| m.comparator_due_ns(clock.now_ns(), 1))
        .unwrap();
    clock.advance_to(due);
    assert!(comp.ack());
}

/// A timer queue on comparator 0: the step of a long wait must be re-armed from the
/// interrupt, and the block stops acknowledging just then. `HrTimers::on_interrupt`
/// reports the failure (the timer stays queued with nothing armed) instead of returning
/// "0 expired" as if all were well; once the block recovers, the next queue operation
/// re-arms and the timer runs, never early. (Before: the failure was dropped and the
/// queue stalled silently.)
#[test]
fn a_failed_rearm_in_the_timer_queue_is_reported_not_dropped() {
    use hwtimer_core::{Alarm, HrTimers, QueueError, Restart};
    let (clock, bus) = setup(MctModel::exynos4210());
    let mct = Mct::new(bus.clone(), config()).unwrap();
    mct.start_frc().unwrap();
    let time = mct.time();
    let timers: HrTimers<_, _, 2> =
        HrTimers::new(Alarm::new(mct.comparator(0).unwrap(), time).unwrap());
    let id = timers.alloc().unwrap();
    // 3 minutes: longer than the comparator's max_delta, so the alarm steps.
    let deadline = time.now() + 180 * 24_000_000;
    timers.start(id, deadline).unwrap();
    let due = bus
        .model(|m| m.comparator_due_ns(clock.now_ns(), 0))
        .unwrap();
    clock.advance_to(due);
    bus.model(|m| m.set_wstat_mode(WstatMode::Stuck));
    let mut ran = Vec::new();
    let result = timers.on_interrupt(|id, now| {
        ran.push((id, now));
        Restart::No
    });
    assert_eq!(result, Err(QueueError::Hardware(Error::Timeout)));
    assert!(ran.is_empty(), "ran before its deadline");
    assert!(timers.is_queued(id), "the timer was dropped");

    // The block recovers; the next queue operation re-arms.
    bus.model(|m| m.set_wstat_mode(WstatMode::Immediate));
    timers.restart(id, deadline).unwrap();
    for _ in 0..8 {
        let Some(due) = bus.model(|m| m.comparator_due_ns(clock.now_ns(), 0)) else {
            break;
        };
        clock.advance_to(due);
        timers
            .on_interrupt(|id, now| {
                ran.push((id, now));
                Restart::No
            })
            .unwrap();
    }
    assert_eq!(ran.len(), 1);
    assert!(ran[0].1 >= deadline, "early");
}

/// Bounds for the late-acknowledgement tests: a 20 µs wait, so an acknowledgement 30 µs
/// after its write comes after the wait gave up.
fn short_waits() -> Config {
    Config {
        wstat: WstatConfig {
            timeout_ns: 20_000,
            max_polls: 200,
        },
        ..MctModel::exynos4210().driver_config()
    }
}

/// An acknowledgement that comes after its wait gave up is not taken for the next write's.
/// A local oneshot of 15 ticks times out on `L_ICNTB` (the block takes the write and
/// acknowledges it 30 µs later); the block then acknowledges quickly again, and a 1200-tick
/// oneshot is armed before the late bit came. (Before: the new `L_ICNTB` write, issued
/// while the old one was unacknowledged, was dropped, the late bit ended its wait, and the
/// timer ran the old 15-tick count: due 10.8 µs after a call asking for 100 µs.)
#[test]
fn a_late_acknowledgement_does_not_pass_for_the_next_local_timer_write() {
    let (clock, bus) = setup(MctModel::exynos4210());
    let mct = Mct::new(bus.clone(), short_waits()).unwrap();
    mct.start_frc().unwrap();
    let mut l0 = mct.local_timer(0).unwrap();
    bus.model(|m| m.set_wstat_mode(WstatMode::Delay(30_000)));
    assert_eq!(l0.set_next_event(15), Err(Error::Timeout));
    bus.model(|m| m.set_wstat_mode(WstatMode::Delay(500)));
    let t0 = clock.now_ns();
    l0.set_next_event(1_200).unwrap();
    assert_eq!(bus.model(|m| m.lost_writes()), 0, "a write was dropped");
    let due = bus
        .model(|m| m.local_due_ns(0))
        .expect("armed but not running");
    // 1200 ticks at 12 MHz: 100 µs after the call began, at the earliest.
    assert!(due >= t0 + 100_000, "due {} ns after the call", due - t0);
    clock.advance_to(due - 1);
    assert!(!l0.is_pending(), "early");
    clock.advance_to(due);
    assert!(l0.ack());
}

/// The same for a comparator: the `G_COMP0_L` write of a 100 µs oneshot times out, and a
/// 1 ms oneshot armed before its late acknowledgement came holds its own value. (Before:
/// the block kept the old low word, the 100 µs value, and the driver believed the 1 ms one:
/// the interrupt came about 0.9 ms early.)
#[test]
fn a_late_acknowledgement_does_not_pass_for_the_next_comparator_write() {
    let (clock, bus) = setup(MctModel::exynos4210());
    let mct = Mct::new(bus.clone(), short_waits()).unwrap();
    mct.start_frc().unwrap();
    let mut comp = mct.comparator(0).unwrap();
    bus.model(|m| m.set_wstat_mode(WstatMode::Delay(30_000)));
    assert_eq!(comp.set_next_event(2_400), Err(Error::Timeout));
    bus.model(|m| m.set_wstat_mode(WstatMode::Delay(500)));
    let start = bus.model(|m| m.frc_value(clock.now_ns()));
    comp.set_next_event(24_000).unwrap();
    assert_eq!(bus.model(|m| m.lost_writes()), 0, "a write was dropped");
    assert_eq!(
        bus.model(|m| m.comparator_value(0)),
        Some(comp.programmed()),
        "G_COMP0 is not what the driver programmed"
    );
    let due = bus
        .model(|m| m.comparator_due_ns(clock.now_ns(), 0))
        .expect("armed but not enabled");
    clock.advance_to(due - 1);
    assert!(!comp.is_pending(), "early");
    clock.advance_to(due);
    assert!(bus.model(|m| m.frc_value(clock.now_ns())) >= start + 24_000);
    assert!(comp.ack());
}

/// A block that never acknowledges keeps the register refused: the write after a timeout
/// is not issued (it would be dropped, and the owed bit could end its wait), the call
/// returns `Timeout` after one bounded wait, and the channel is masked, not interrupting.
/// Once the block recovers and the owed acknowledgement comes, the channel works again.
#[test]
fn an_owed_acknowledgement_that_never_comes_keeps_the_register_refused_until_it_does() {
    let (clock, bus) = setup(MctModel::exynos4210());
    let mct = Mct::new(bus.clone(), short_waits()).unwrap();
    mct.start_frc().unwrap();
    let mut l0 = mct.local_timer(0).unwrap();
    bus.model(|m| m.set_wstat_mode(WstatMode::Stuck));
    assert_eq!(l0.set_next_event(1_200), Err(Error::Timeout));
    bus.reset_stats();
    assert_eq!(l0.set_next_event(1_200), Err(Error::Timeout));
    assert!(
        bus.stats().reads <= max_reads(&short_waits().wstat) + 1,
        "{} reads: more than one wait",
        bus.stats().reads
    );
    assert_eq!(bus.model(|m| m.lost_writes()), 0, "a write was dropped");
    assert!(!bus.model(|m| m.local_line(clock.now_ns(), 0)));
    bus.model(|m| m.set_wstat_mode(WstatMode::Immediate));
    let t0 = clock.now_ns();
    l0.set_next_event(1_200).unwrap();
    let due = bus.model(|m| m.local_due_ns(0)).expect("not running");
    assert!(due >= t0 + 100_000);
    clock.advance_to(due);
    assert!(l0.ack());
    assert_eq!(bus.model(|m| m.lost_writes()), 0);
}

/// A suspend that cuts the power after a timed-out write: the owed acknowledgement went
/// with the block's state, so each `resume` declares it lost and the channels work again.
/// (Without that, the owed bit that can no longer come would refuse the registers forever.)
#[test]
fn resume_forgets_acknowledgements_owed_before_a_power_loss() {
    let (clock, bus) = setup(MctModel::exynos4210());
    let mct = Mct::new(bus.clone(), short_waits()).unwrap();
    mct.start_frc().unwrap();
    let time = mct.time();
    let mut comp = mct.comparator(0).unwrap();
    let mut l0 = mct.local_timer(0).unwrap();
    bus.model(|m| m.set_wstat_mode(WstatMode::Stuck));
    assert_eq!(comp.set_next_event(2_400), Err(Error::Timeout));
    assert_eq!(l0.set_next_event(1_200), Err(Error::Timeout));
    let now = clock.now_ns();
    bus.model(|m| {
        m.power_loss(now);
        m.set_wstat_mode(WstatMode::Immediate);
    });
    mct.resume().unwrap();
    comp.resume().unwrap();
    l0.resume().unwrap();
    l0.set_next_event(1_200).unwrap();
    let due = bus.model(|m| m.local_due_ns(0)).expect("not running");
    clock.advance_to(due);
    assert!(l0.ack());
    comp.set_compare(time.now() + 2_400).unwrap();
    let due = bus
        .model(|m| m.comparator_due_ns(clock.now_ns(), 0))
        .expect("not enabled");
    clock.advance_to(due);
    assert!(comp.ack());
}
