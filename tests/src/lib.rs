//! Cross-crate scenarios for the timer family: the drivers wired together with the core's
//! machinery (time base, alarms, timer queue, polling) on their behavioural models, the way
//! a firmware wires them. The scenarios live in `tests/tests/*.rs`; this library holds the
//! fixtures they share.

pub mod dsa_device;
pub mod firmware;
pub mod host_nic;
pub mod switch_board;

use hwtimer_core::sim::{SimBus, SimClock, SimCounter};
use hwtimer_core::{ClockEvent, HrTimers, Monotonic, Restart, TimerId};
use mv88e6xxx_smi::chip::Chip;
use mv88e6xxx_smi::sim::{Attach, ChipModel, SwitchModel};
use stmmac_coalesce::Dwmac as _;
use stmmac_coalesce::Gmac3;
use stmmac_coalesce::sim::{Gmac3Model, SimArena};

/// Start one timer per offset, at `base + offset`; returns their ids in offset order.
pub fn start_timers<E: ClockEvent, M: Monotonic, const N: usize>(
    timers: &HrTimers<E, M, N>,
    base: u64,
    offsets: &[u64],
) -> Vec<TimerId> {
    offsets
        .iter()
        .map(|off| {
            let id = timers.alloc().expect("a free timer slot");
            timers.start(id, base + off).expect("start");
            id
        })
        .collect()
}

/// Take interrupts until `count` timers have run: `next_irq` moves virtual time to the
/// next interrupt (false when none is armed), then the queue's handler runs. Returns each
/// expiry as (timer index, time it observed), in the order they ran. At most `max_irqs`
/// interrupts are taken.
pub fn run_timers<E: ClockEvent, M: Monotonic, const N: usize>(
    timers: &HrTimers<E, M, N>,
    count: usize,
    max_irqs: usize,
    mut next_irq: impl FnMut() -> bool,
) -> Vec<(usize, u64)> {
    let mut ran = Vec::new();
    for _ in 0..max_irqs {
        if ran.len() == count || !next_irq() {
            break;
        }
        timers
            .on_interrupt(|id, now| {
                ran.push((id.index(), now));
                Restart::No
            })
            .expect("the queue re-armed the channel");
    }
    ran
}

/// Every expiry in `ran` came at or after its deadline `base + offsets[index]`, and at most
/// `late` ticks after it.
pub fn assert_on_time(ran: &[(usize, u64)], base: u64, offsets: &[u64], late: u64) {
    for &(index, now) in ran {
        let deadline = base + offsets[index];
        assert!(now >= deadline, "timer {index} early by {}", deadline - now);
        assert!(
            now <= deadline + late,
            "timer {index} late by {} (bound {late})",
            now - deadline
        );
    }
}

/// The indices of `ran`, in the order the timers ran.
pub fn order(ran: &[(usize, u64)]) -> Vec<usize> {
    ran.iter().map(|&(index, _)| index).collect()
}

/// The register bus of a DWMAC model with a switch on its MDIO bus.
pub type MacBus = SimBus<Gmac3Model<SwitchModel>>;

/// A DWMAC model with a Marvell 6352 behind its MDIO master at SMI address 0x10 (indirect),
/// after a soft reset, and the 25 MHz clocksource that bounds its waits.
pub fn switch_behind_dwmac() -> (SimClock, SimCounter, MacBus, Gmac3<MacBus>) {
    switch_model_behind_dwmac(ChipModel::new(Chip::Mv6352, Attach::Indirect(0x10)))
}

/// [`switch_behind_dwmac`] with the switch model `chip` (chip 0 of the MAC's MDIO device).
pub fn switch_model_behind_dwmac(chip: ChipModel) -> (SimClock, SimCounter, MacBus, Gmac3<MacBus>) {
    let clock = SimClock::new();
    let counter = SimCounter::new(&clock, 32, 25_000_000).with_read_cost(20);
    let switch = SwitchModel::new().with_chip(chip);
    let model = Gmac3Model::new(SimArena::new(0x1000_0000, 0x1000), switch, 125_000_000);
    let bus = SimBus::new(&clock, model);
    let mac = Gmac3::new(bus.clone());
    mac.soft_reset(&counter).expect("DWMAC soft reset");
    (clock, counter, bus, mac)
}

/// The managed-switch board of `tests/switch/managed.rs`: a 6352 at SMI 0x10 (indirect)
/// with its internal PHYs (link events), port 5 wired to the DWMAC, and a host plugged into
/// each of ports 0–4 (their links up from the first frame on).
pub fn managed_switch_board() -> switch_board::SwitchBoard {
    let chip = (0..5).fold(
        ChipModel::new(Chip::Mv6352, Attach::Indirect(0x10)).with_port_phys(),
        |chip, port| chip.with_link_event(0, port, true),
    );
    switch_board::SwitchBoard::new(chip, 5)
}

/// [`managed_switch_board`] with nothing plugged into ports 0–4 yet (every link down until a
/// test raises it).
pub fn managed_switch_board_unplugged() -> switch_board::SwitchBoard {
    let chip = ChipModel::new(Chip::Mv6352, Attach::Indirect(0x10)).with_port_phys();
    switch_board::SwitchBoard::new(chip, 5)
}
