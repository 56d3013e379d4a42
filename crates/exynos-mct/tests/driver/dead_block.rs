//! Dead blocks: every read returns 0 (an unclocked block) or all ones (an address nothing
//! decodes). Every public call returns (a typed error or a defined value) within a stated
//! number of MMIO reads, counted by `SimBus`; none hangs, none panics.
//!
//! The bounds are written in terms of `W`, the most reads one write-status wait makes
//! ([`max_reads`]: `2 · max_polls + 5`), and `H = 7`, the most a hi-lo-hi read makes
//! (3 attempts). Run with `--nocapture` to see the reads each call took.

use exynos_mct::sim::MctModel;
use exynos_mct::wstat::{self, WaitClock, WstatBit, max_reads};
use exynos_mct::{Config, Mct, WstatConfig, frc_rate, regs};
use hwtimer_core::sim::{Dead, SimBus, SimClock, dead_values};
use hwtimer_core::{ClockEvent, Clocksource, ConfigError, Error, Monotonic, Reg};

const MAX_POLLS: u32 = 100;

fn config() -> Config {
    Config {
        wstat: WstatConfig {
            timeout_ns: 1_000_000,
            max_polls: MAX_POLLS,
        },
        ..Config::default()
    }
}

/// `W`: one wait, whatever bounds it.
const W: u64 = max_reads(&WstatConfig {
    timeout_ns: 1_000_000,
    max_polls: MAX_POLLS,
});
/// `H`: a hi-lo-hi read.
const H: u64 = 7;
/// `C`: the counting check of a started FRC (1 + `max_polls` + 2).
const C: u64 = MAX_POLLS as u64 + 3;

/// Reads per call, checked against its bound; printed as a table.
struct Meter<'a> {
    bus: &'a SimBus<MctModel>,
    rows: Vec<(String, u64, u64)>,
}

impl Meter<'_> {
    fn call<R: std::fmt::Debug>(&mut self, name: &str, bound: u64, f: impl FnOnce() -> R) {
        let (r, stats) = self.bus.counted(f);
        let reads = stats.reads;
        assert!(
            reads <= bound,
            "{name}: {reads} reads, bound {bound} (returned {r:?})"
        );
        self.rows.push((format!("{name} -> {r:?}"), reads, bound));
    }
}

/// Every public call on a block that dies after the driver took it over, with the FRC
/// believed running or not.
fn every_call_on_a_block_that_died(dead: u32, started: bool) -> Vec<(String, u64, u64)> {
    let clock = SimClock::new();
    let bus = SimBus::new(&clock, MctModel::exynos4210());
    let mut mct = Mct::new(bus.clone(), config()).unwrap();
    if started {
        mct.start_frc().unwrap();
    }
    let mut m = Meter {
        bus: &bus,
        rows: Vec::new(),
    };
    {
        let mut comp = mct.comparator(0).unwrap();
        let mut local = mct.local_timer(0).unwrap();
        bus.go_dead(Some(dead));
        clock.advance(1_000_000);

        // The Mct.
        m.call("Mct::freq_hz", 0, || mct.freq_hz());
        m.call("Mct::config", 0, || mct.config().local_timers);
        m.call("Mct::bus", 0, || mct.bus().stats().reads);
        m.call("Mct::frc_running", 0, || mct.frc_running());
        m.call("Mct::wait_clock", 0, || mct.wait_clock());
        m.call("Mct::comparator(1)", W, || {
            mct.comparator(1).map(|c| c.index())
        });
        m.call("Mct::comparator(4)", 0, || {
            mct.comparator(4).map(|c| c.index())
        });
        m.call("Mct::local_timer(1)", 3 * W, || {
            mct.local_timer(1).map(|t| t.index())
        });
        m.call("Mct::local_timer(2)", 0, || {
            mct.local_timer(2).map(|t| t.index())
        });

        // The FRC and the time base.
        let frc = mct.frc();
        let time = mct.time();
        m.call("Frc::read_low", 1, || frc.read_low());
        m.call("Frc::read_high", 1, || frc.read_high());
        m.call("Frc::read64", H, || frc.read64());
        m.call("Frc::freq_hz", 0, || frc.freq_hz());
        m.call("Clocksource::read", 1, || Clocksource::read(&frc));
        m.call("Clocksource::bits/mask", 0, || (frc.bits(), frc.mask()));
        m.call("FrcTime::now", 1, || time.now());
        m.call("FrcTime::update_from_low", 0, || time.update_from_low(5));
        m.call("FrcTime::resync", H, || time.resync());
        m.call("FrcTime::last", 0, || time.last());
        m.call("FrcTime::max_idle_ticks", 0, || time.max_idle_ticks());
        m.call("FrcTime::frc", 0, || time.frc().freq_hz());

        // A comparator: every method.
        let arm = H + 4 * (4 * W + 2);
        m.call("Comparator::capabilities", 0, || comp.capabilities());
        m.call("Comparator::set_next_event", arm, || {
            comp.set_next_event(2_400)
        });
        m.call("Comparator::set_next_event(out of range)", 0, || {
            comp.set_next_event(0)
        });
        m.call("Comparator::set_compare", arm, || comp.set_compare(1 << 40));
        m.call("Comparator::set_compare(past)", arm, || comp.set_compare(0));
        m.call("Comparator::set_periodic", H + 5 * W, || {
            comp.set_periodic(2_400)
        });
        m.call("Comparator::arm_at", 5 * W, || comp.arm_at(1 << 40));
        m.call("Comparator::is_pending", 1, || comp.is_pending());
        m.call("Comparator::ack", 1, || comp.ack());
        m.call("Comparator::ack (again)", 1, || comp.ack());
        m.call("Comparator::read_compare", 2, || comp.read_compare());
        m.call("Comparator::programmed/index", 0, || {
            (comp.programmed(), comp.index())
        });
        m.call("Comparator::shutdown", W, || comp.shutdown());
        m.call("Comparator::try_shutdown", W, || comp.try_shutdown());
        m.call("Comparator::resume", W, || comp.resume());

        // A local timer: every method.
        m.call("LocalTimer::capabilities", 0, || local.capabilities());
        m.call("LocalTimer::set_next_event", 3 * W, || {
            local.set_next_event(1_200)
        });
        m.call("LocalTimer::set_next_event(out of range)", 0, || {
            local.set_next_event(u64::MAX)
        });
        m.call("LocalTimer::set_periodic", 3 * W, || {
            local.set_periodic(1_200)
        });
        m.call("LocalTimer::set_compare", 0, || local.set_compare(1));
        m.call("LocalTimer::is_pending", 1, || local.is_pending());
        m.call("LocalTimer::ack", 1 + W, || local.ack());
        m.call("LocalTimer::icnto", 1, || local.icnto());
        m.call("LocalTimer::index/regs", 0, || {
            (local.index(), local.regs().tcon.offset())
        });
        m.call("LocalTimer::shutdown", W, || local.shutdown());
        m.call("LocalTimer::try_shutdown", W, || local.try_shutdown());
        m.call("LocalTimer::resume", 2 * W, || local.resume());

        // The write-status protocol on its own.
        let bit = WstatBit {
            status: Reg::new(regs::G_WSTAT_REG.offset()),
            mask: regs::g_wstat_comp_l(3),
        };
        let cfg = config().wstat;
        m.call("wstat::write_and_wait (FRC)", W, || {
            wstat::write_and_wait(
                &bus,
                regs::g_comp_l(3),
                0,
                bit,
                WaitClock::Frc {
                    freq_hz: 24_000_000,
                },
                &cfg,
            )
        });
        m.call("wstat::wait_and_clear (polls)", W, || {
            wstat::wait_and_clear(&bus, bit, WaitClock::Iterations, &cfg)
        });
        m.call("frc_rate", 0, || frc_rate(24_000_000, 1, 1));

        // Restarting the FRC (last: a failure makes the driver stop believing it runs).
        m.call("Mct::start_frc", W + C, || mct.start_frc());
        m.call("Mct::resume", 2 + H + 2 * W + W + C, || mct.resume());

        // Dropping a part shuts it down.
        m.call("drop(Comparator)", W, || drop(comp));
        m.call("drop(LocalTimer)", W, || drop(local));
    }
    // `&mut Mct` calls, with nothing lent out.
    m.call("Mct::stop_frc", W, || mct.stop_frc());
    m.call("Mct::load_frc", 2 * W + H, || {
        mct.load_frc(0x1234_5678_9ABC)
    });
    m.call("Mct::set_prescaler", 0, || mct.set_prescaler(23, 0));
    m.call("Mct::set_prescaler(inexact)", 0, || mct.set_prescaler(6, 0));
    m.call("Mct::release", 0, || mct.release().stats().writes > 0);
    m.rows
}

fn print(title: &str, rows: &[(String, u64, u64)]) {
    println!("{title} (W = {W}, H = {H}, max_polls = {MAX_POLLS})");
    for (name, reads, bound) in rows {
        println!("  {reads:>5} reads (bound {bound:>5})  {name}");
    }
}

/// Both dead values (all zeros, all ones), with the FRC believed running or not.
#[test]
fn every_call_returns_within_its_read_bound_on_a_block_that_died() {
    for (dead, name) in dead_values::<u32>() {
        for started in [false, true] {
            let rows = every_call_on_a_block_that_died(dead, started);
            print(
                &format!("reads {name}, FRC started before: {started}"),
                &rows,
            );
        }
    }
}

/// Dead from the start: `Mct::new` itself. All zeros is an MCT at reset that never
/// acknowledges (new succeeds; starting fails); all ones reads as an `MCT_CFG` whose
/// prescaler does not divide 24 MHz, and is refused after one read.
#[test]
fn mct_new_on_a_dead_block() {
    for ((dead, name), new_ok) in dead_values::<u32>().into_iter().zip([true, false]) {
        let clock = SimClock::new();
        let bus = SimBus::new(&clock, Dead(dead));
        let (mct, stats) = bus.counted(|| Mct::new(bus.clone(), config()));
        let reads = stats.reads;
        println!("Mct::new, reads {name}: {reads} reads, ok: {}", mct.is_ok());
        assert!(reads <= 3 + H + C, "{reads} reads");
        assert_eq!(mct.is_ok(), new_ok);
        match mct {
            Ok(mct) => {
                let (started, stats) = bus.counted(|| mct.start_frc());
                assert_eq!(started, Err(Error::Timeout));
                assert!(stats.reads <= W + C);
                assert!(!mct.frc_running());
            }
            Err(e) => {
                assert_eq!(e, Error::Config(ConfigError::RateUnreachable));
                assert_eq!(reads, 1);
            }
        }
    }
}
