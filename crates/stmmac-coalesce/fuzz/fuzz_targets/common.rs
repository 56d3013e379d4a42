//! A board on the model for the fuzz targets: a DWMAC model behind
//! `hwtimer_core::sim::model::Faults` (so reads can answer anything), a gigabit PHY, a
//! coherent DMA arena, and a byte reader for the fuzzer's input.

use hwtimer_core::sim::model::Faults;
use hwtimer_core::sim::{SimBus, SimClock, SimCounter};
use mdio_bus::PhyAddr;
use stmmac_coalesce::Gmac3;

use stmmac_coalesce::sim::{AnPhy, Gmac3Model, SIM_CSR_HZ, SimArena};

pub type Model = Faults<Gmac3Model<AnPhy>>;
pub type Bus = SimBus<Model>;

/// Our station address.
pub const US: [u8; 6] = [0x52, 0x54, 0x00, 0x12, 0x34, 0x56];

/// The model, its clock, a 25 MHz counter and the MAC driver on it.
pub struct Board {
    pub clock: SimClock,
    pub counter: SimCounter,
    pub arena: SimArena,
    pub bus: Bus,
    pub mac: Gmac3<Bus>,
}

impl Board {
    /// A fresh model with an arena of `arena_len` bytes (nothing configured yet).
    ///
    /// `SimArena` leaks its memory (its regions are `'static`, as on a board), so every
    /// run of a target leaks one arena: keep it as small as the rings need, and run the
    /// targets with `-detect_leaks=0` (see README.md).
    pub fn new(arena_len: usize) -> Self {
        let clock = SimClock::new();
        let counter = SimCounter::new(&clock, 32, 25_000_000);
        let arena = SimArena::new(0x1000_0000, arena_len);
        let phy = AnPhy::gigabit();
        let model = Gmac3Model::new(arena.clone(), phy.clone(), SIM_CSR_HZ).with_phy(phy);
        let bus = SimBus::new(&clock, Faults::new(model));
        let mac = Gmac3::new(bus.clone());
        Self {
            clock,
            counter,
            arena,
            bus,
            mac,
        }
    }

    /// Drop every injected read-back not consumed yet (each read consumes one).
    pub fn clear_faults(&self) {
        for _ in 0..4096 {
            if self.bus.model(|m| m.pending()) == 0 {
                return;
            }
            let _ = self.mac.version();
        }
        panic!("injected read-backs never consumed");
    }

    /// The PHY at address 0.
    pub fn phy_addr() -> PhyAddr {
        PhyAddr::from_bits(0)
    }
}

/// Reads the fuzzer's bytes front to back; zeros once they run out.
pub struct Input<'a>(pub &'a [u8]);

impl Input<'_> {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }

    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }
}
