//! A board with a Marvell switch behind a DWMAC: the MAC's MDIO master reaches the switch's
//! SMI, and the MAC's Ethernet wire is the switch's CPU port. The other ports have link
//! partners ("hosts") whose received frames are logged and who send frames in.
//!
//! The pump is explicit: nothing moves until [`SwitchBoard::pump`] (MAC to switch, switch
//! to MAC and hosts) or [`SwitchBoard::host_send`] (a host to the switch) is called, each at
//! the shared clock's current virtual time.

use std::cell::{Cell, RefCell};

use hwtimer_core::sim::{SimBus, SimClock, SimCounter};
use mv88e6xxx_smi::sim::{ChipModel, SwitchModel};
use stmmac_coalesce::sim::{Gmac3Model, SimArena};
use stmmac_coalesce::{
    DmaConfig, DmaSetup, Dwmac as _, Gmac3, RxConfig, RxRing, TxConfig, TxRing, ring_bytes,
};

use crate::MacBus;

/// The CSR clock of the board's DWMAC (the MDIO divider and the RX watchdog unit).
pub const CSR_HZ: u32 = 125_000_000;

/// The shortest frame an Ethernet MAC puts on the wire, without FCS (802.3 `minFrameSize`
/// 64 bytes with FCS). The DWMAC pads shorter frames on transmit (TDES DP, "disable
/// padding", clear: Linux stmmac never sets it); the DWMAC model's sent log holds the
/// bytes as the descriptors gave them, so the wire pads them.
pub const ETH_ZLEN: usize = 60;

/// The board: the clock, the MAC (model and driver handle), the DMA memory, and the wire.
pub struct SwitchBoard {
    /// Virtual time, shared by the MAC model, the switch model and the clocksource.
    pub clock: SimClock,
    /// The 25 MHz clocksource every bounded wait uses.
    pub counter: SimCounter,
    /// The MAC's register bus (and through it, both models).
    pub bus: MacBus,
    /// The MAC.
    pub mac: Gmac3<MacBus>,
    /// The MAC's DMA memory.
    pub arena: SimArena,
    /// The DMA set-up the MAC accepted.
    pub setup: DmaSetup,
    /// The switch port wired to the MAC.
    pub cpu_port: usize,
    host_rx: RefCell<Vec<Vec<Vec<u8>>>>,
    wire: RefCell<Vec<WireFrame>>,
    mac_to_switch: Cell<u64>,
    switch_to_mac: Cell<u64>,
}

/// One frame on one port's wire, as the switch received or sent it (without FCS).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireFrame {
    /// The switch port.
    pub port: usize,
    /// Into the switch (else out of it).
    pub ingress: bool,
    /// The bytes.
    pub bytes: Vec<u8>,
}

impl SwitchBoard {
    /// `chip` (chip 0 of the MAC's MDIO bus) with its port `cpu_port` on the MAC's wire; the
    /// MAC soft-reset, its DMA configured (1 MiB of coherent memory), nothing else set up.
    pub fn new(chip: ChipModel, cpu_port: usize) -> Self {
        let clock = SimClock::new();
        let counter = SimCounter::new(&clock, 32, 25_000_000).with_read_cost(20);
        let arena = SimArena::new(0x1000_0000, 1 << 20);
        let switch = SwitchModel::new().with_chip(chip);
        let model = Gmac3Model::new(arena.clone(), switch, CSR_HZ);
        let bus = SimBus::new(&clock, model);
        let mac = Gmac3::new(bus.clone());
        mac.soft_reset(&counter).expect("DWMAC soft reset");
        let setup = mac
            .configure_dma(&DmaConfig {
                csr_hz: CSR_HZ,
                ..DmaConfig::default()
            })
            .expect("DMA configuration");
        let ports = bus.model(|m| {
            let c = m.mdio_device().chip(0).expect("chip 0");
            (0..32).take_while(|&p| c.port_reg(p, 0).is_some()).count()
        });
        Self {
            clock,
            counter,
            bus,
            mac,
            arena,
            setup,
            cpu_port,
            host_rx: RefCell::new(vec![Vec::new(); ports]),
            wire: RefCell::new(Vec::new()),
            mac_to_switch: Cell::new(0),
            switch_to_mac: Cell::new(0),
        }
    }

    /// A TX and an RX ring (not started) in fresh DMA memory.
    pub fn rings(&self, tx: TxConfig, rx: RxConfig) -> (TxRing, RxRing) {
        let line = self.setup.cache_line();
        let tx_mem = self
            .arena
            .region(ring_bytes(tx.descriptors, tx.buf_size, line))
            .expect("DMA memory for the TX ring");
        let rx_mem = self
            .arena
            .region(ring_bytes(rx.descriptors, rx.buf_size, line))
            .expect("DMA memory for the RX ring");
        let t = TxRing::new(
            tx_mem,
            &self.arena,
            &self.setup,
            tx,
            stmmac_coalesce::NoTimer,
            stmmac_coalesce::Coherent,
        )
        .expect("TX ring");
        let r = RxRing::new(
            rx_mem,
            &self.arena,
            &self.setup,
            rx,
            stmmac_coalesce::Coherent,
        )
        .expect("RX ring");
        (t, r)
    }

    /// The current virtual time in ns.
    pub fn now(&self) -> u64 {
        self.clock.now_ns()
    }

    /// Run `f` on the switch model.
    pub fn switch<R>(&self, f: impl FnOnce(&mut ChipModel) -> R) -> R {
        self.bus
            .model(|m| f(m.mdio_device().chip_mut(0).expect("chip 0")))
    }

    /// The switch's interrupt line (INTn) at the current time.
    pub fn irq_line(&self) -> bool {
        let now = self.now();
        self.switch(|c| c.irq_asserted(now))
    }

    /// Carry what the MAC sent since the last pump into the switch's CPU port, and what the
    /// switch sent in reply onwards; returns the frames the MAC had sent.
    pub fn pump(&self) -> usize {
        let sent: Vec<Vec<u8>> = self.bus.model(|m| {
            let f = m.sent().iter().map(|s| s.bytes.clone()).collect();
            m.clear_sent();
            f
        });
        for mut frame in sent.iter().cloned() {
            // The MAC's pad (see [`ETH_ZLEN`]).
            if frame.len() < ETH_ZLEN {
                frame.resize(ETH_ZLEN, 0);
            }
            self.mac_to_switch.set(self.mac_to_switch.get() + 1);
            let now = self.now();
            let cpu = self.cpu_port;
            self.log(cpu, true, &frame);
            let out = self.switch(|c| c.inject_frame(now, cpu, &frame));
            self.deliver(out);
        }
        sent.len()
    }

    /// A host on `port` sends `frame` (without FCS) into the switch; returns the ports it
    /// left on (ascending), after delivering it.
    pub fn host_send(&self, port: usize, frame: &[u8]) -> Vec<usize> {
        let now = self.now();
        self.log(port, true, frame);
        let out = self.switch(|c| c.inject_frame(now, port, frame));
        let mut ports: Vec<usize> = out.iter().map(|(p, _)| *p).collect();
        ports.sort_unstable();
        self.deliver(out);
        ports
    }

    /// What the host on `port` received since the last call, oldest first.
    pub fn take_host_rx(&self, port: usize) -> Vec<Vec<u8>> {
        self.host_rx
            .borrow_mut()
            .get_mut(port)
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// How many frames the host on each port holds, untaken.
    pub fn host_rx_counts(&self) -> Vec<usize> {
        self.host_rx.borrow().iter().map(Vec::len).collect()
    }

    /// Every frame the switch received or sent so far, in order.
    pub fn wire(&self) -> Vec<WireFrame> {
        self.wire.borrow().clone()
    }

    /// Frames the wire carried from the MAC into the switch's CPU port, and back.
    pub fn cpu_wire_frames(&self) -> (u64, u64) {
        (self.mac_to_switch.get(), self.switch_to_mac.get())
    }

    fn log(&self, port: usize, ingress: bool, bytes: &[u8]) {
        self.wire.borrow_mut().push(WireFrame {
            port,
            ingress,
            bytes: bytes.to_vec(),
        });
    }

    fn deliver(&self, out: Vec<(usize, Vec<u8>)>) {
        let now = self.now();
        for (port, bytes) in out {
            self.log(port, false, &bytes);
            if port == self.cpu_port {
                self.switch_to_mac.set(self.switch_to_mac.get() + 1);
                self.bus.model(|m| m.inject(now, &bytes));
            } else if let Some(log) = self.host_rx.borrow_mut().get_mut(port) {
                log.push(bytes);
            }
        }
    }
}
