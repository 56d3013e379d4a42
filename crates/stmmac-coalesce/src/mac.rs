//! The MAC and DMA control registers ([`Dwmac`]) and MDIO over MII_ADDR/MII_DATA
//! ([`DwmacMdio`]).

use hwtimer_core::{Continuous, Poller, RegisterBus, RegisterBusExt};
use mdio_bus::{Mdio, PhyAddr, RegAddr};
use tock_registers::LocalRegisterCopy;

use crate::error::Error;
use crate::regs::{self, DMA_BUS_MODE, DMA_CONTROL, DMA_STATUS, GMAC_CONTROL, GMAC_MII_ADDR};

/// Linux's MDIO busy-wait timeout (`stmmac_mdio.c`: 10 ms), µs.
pub const MDIO_TIMEOUT_US: u64 = 10_000;
/// Software-reset wait (DMA_BUS_MODE.SWR), µs. Linux waits up to 10 ms for SWR too.
pub const SWR_TIMEOUT_US: u64 = 10_000;

/// One GMAC 3.x instance: MAC registers at bus offset 0, DMA at 0x1000.
///
/// `B` is any [`RegisterBus`] over the block: [`hwtimer_core::Mmio`] on target (length
/// 0x1060), a `hwtimer_core::sim::SimBus` over `sim::DwmacModel` (feature `sim`)
/// on the host.
#[derive(Debug)]
pub struct Dwmac<B: RegisterBus<Word = u32>> {
    bus: B,
}

impl<B: RegisterBus<Word = u32>> Dwmac<B> {
    /// Wrap the register block. Touches no register.
    pub const fn new(bus: B) -> Self {
        Self { bus }
    }

    /// The register bus.
    pub fn bus(&self) -> &B {
        &self.bus
    }

    /// GMAC_VERSION (0x1032 on QEMU's npcm-gmac: Synopsys 3.2, user 0x10).
    pub fn version(&self) -> u32 {
        self.bus.read_raw(regs::GMAC_VERSION)
    }

    /// DMA_HW_FEATURE.
    pub fn hw_feature(&self) -> u32 {
        self.bus.read_raw(regs::DMA_HW_FEATURE)
    }

    /// Software reset of the DMA and MAC (DMA_BUS_MODE.SWR), waiting with iopoll semantics
    /// for the bit to self-clear. Returns the number of reads the wait took.
    ///
    /// Errors: [`Error::Timeout`] when SWR is still set [`SWR_TIMEOUT_US`] later (a missing
    /// PHY clock keeps real DWMACs in reset).
    pub fn soft_reset<C: Continuous + Copy>(&self, clock: C) -> Result<u32, Error> {
        self.bus.write(DMA_BUS_MODE, DMA_BUS_MODE::SWR::SET);
        Poller::new(clock)
            .timeout_us(SWR_TIMEOUT_US)
            .poll(
                || self.bus.read(DMA_BUS_MODE),
                |v| !v.is_set(DMA_BUS_MODE::SWR),
            )
            .map(|p| p.polls)
            .map_err(|_| Error::Timeout)
    }

    /// Program MAC address 0 (GMAC_ADDR_HIGH/LOW(0)), AE set.
    // `+` on tock-registers `FieldValue`s combines fields (a bitwise OR), it is no arithmetic.
    #[allow(clippy::arithmetic_side_effects)]
    pub fn set_mac_address(&self, mac: [u8; 6]) {
        let [a0, a1, a2, a3, a4, a5] = mac;
        self.bus.write(
            regs::GMAC_ADDR_HIGH,
            regs::GMAC_ADDR_HIGH::ADDRHI.val(u32::from(u16::from_le_bytes([a4, a5])))
                + regs::GMAC_ADDR_HIGH::AE::SET,
        );
        self.bus
            .write_raw(regs::GMAC_ADDR_LOW, u32::from_le_bytes([a0, a1, a2, a3]));
    }

    /// MAC address 0 as programmed.
    pub fn mac_address(&self) -> [u8; 6] {
        let hi = self.bus.read_raw(regs::GMAC_ADDR_HIGH).to_le_bytes();
        let lo = self.bus.read_raw(regs::GMAC_ADDR_LOW).to_le_bytes();
        [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1]]
    }

    /// Write the descriptor list base addresses (DMA must be stopped).
    pub fn set_ring_bases(&self, tx_base: u32, rx_base: u32) {
        self.bus.write_raw(regs::DMA_TX_BASE_ADDR, tx_base);
        self.bus.write_raw(regs::DMA_RCV_BASE_ADDR, rx_base);
    }

    /// Enable the MAC (TE, RE, full duplex) and start both DMA engines (ST, SR) in
    /// store-and-forward mode. The TX DMA immediately looks at the current descriptor.
    // `+` on tock-registers `FieldValue`s combines fields (a bitwise OR), it is no arithmetic.
    #[allow(clippy::arithmetic_side_effects)]
    pub fn start(&self) {
        self.bus.write(
            GMAC_CONTROL,
            GMAC_CONTROL::TE::SET + GMAC_CONTROL::RE::SET + GMAC_CONTROL::DM::SET,
        );
        self.bus.write(
            DMA_CONTROL,
            DMA_CONTROL::ST::SET + DMA_CONTROL::SR::SET + DMA_CONTROL::TSF::SET,
        );
    }

    /// Stop both DMA engines and the MAC.
    pub fn stop(&self) {
        self.bus.write_raw(DMA_CONTROL, 0);
        self.bus.write_raw(GMAC_CONTROL, 0);
    }

    /// DMA_INTR_ENA (bit positions of [`DMA_STATUS`](const@DMA_STATUS)).
    pub fn set_interrupts(&self, mask: u32) {
        self.bus.write_raw(regs::DMA_INTR_ENA, mask);
    }

    /// The RX interrupt watchdog (DMA_RX_WATCHDOG.RIWT, 0 = off).
    pub fn set_riwt(&self, riwt: u8) {
        self.bus.write(
            regs::DMA_RX_WATCHDOG,
            regs::DMA_RX_WATCHDOG::RIWT.val(u32::from(riwt)),
        );
    }

    /// DMA_STATUS.
    pub fn status(&self) -> LocalRegisterCopy<u32, DMA_STATUS::Register> {
        self.bus.read(DMA_STATUS)
    }

    /// Acknowledge `bits` of DMA_STATUS (write-1-to-clear; read-only bits are masked off).
    pub fn ack(&self, bits: u32) {
        self.bus.write_raw(DMA_STATUS, bits & regs::DMA_STATUS_W1C);
    }

    /// TX poll demand: the TX DMA re-reads the current descriptor and resumes if suspended.
    pub fn tx_poll_demand(&self) {
        self.bus.write_raw(regs::DMA_XMT_POLL_DEMAND, 1);
    }

    /// RX poll demand.
    pub fn rx_poll_demand(&self) {
        self.bus.write_raw(regs::DMA_RCV_POLL_DEMAND, 1);
    }

    /// An MDIO master on this MAC, bounded on `clock`, for a CSR clock of `csr_hz`
    /// (selects MII_ADDR.CR).
    ///
    /// Errors: [`Error::CsrClock`] when `csr_hz` is outside 20–300 MHz.
    pub fn mdio<C: Continuous + Copy>(
        &self,
        clock: C,
        csr_hz: u32,
    ) -> Result<DwmacMdio<'_, B, C>, Error> {
        let (cr, _) = regs::csr_clock_range(csr_hz).ok_or(Error::CsrClock)?;
        Ok(DwmacMdio {
            mac: self,
            poller: Poller::new(clock).timeout_us(MDIO_TIMEOUT_US),
            cr,
            check_busy: true,
        })
    }
}

/// Clause 22 MDIO through GMAC_MII_ADDR / GMAC_MII_DATA (hardware.md §4.6).
///
/// Each frame: write MII_ADDR = PA | GR | CR | (GW) | GB, then poll GB until it clears,
/// bounded by [`MDIO_TIMEOUT_US`] with iopoll semantics (≥ 2 reads, one more after the
/// deadline). GB is checked *before* a frame only the first time and after a failure
/// (every frame waits for its own completion; seed 004's lesson), saving one MMIO read per
/// frame compared with Linux, which polls before and after.
#[derive(Debug)]
pub struct DwmacMdio<'a, B: RegisterBus<Word = u32>, C: Continuous + Copy> {
    mac: &'a Dwmac<B>,
    poller: Poller<C>,
    cr: u32,
    check_busy: bool,
}

impl<B: RegisterBus<Word = u32>, C: Continuous + Copy> DwmacMdio<'_, B, C> {
    /// The MII_ADDR.CR code in use.
    pub fn cr(&self) -> u32 {
        self.cr
    }

    fn wait_idle(&mut self) -> Result<(), hwtimer_core::Error> {
        let bus = &self.mac.bus;
        match self
            .poller
            .poll(|| bus.read(GMAC_MII_ADDR), |v| !v.is_set(GMAC_MII_ADDR::GB))
        {
            Ok(_) => {
                self.check_busy = false;
                Ok(())
            }
            Err(_) => {
                self.check_busy = true;
                Err(hwtimer_core::Error::Timeout)
            }
        }
    }

    // `+` on tock-registers `FieldValue`s combines fields (a bitwise OR), it is no arithmetic.
    #[allow(clippy::arithmetic_side_effects)]
    fn frame(
        &mut self,
        phy: PhyAddr,
        reg: RegAddr,
        write: bool,
    ) -> Result<(), hwtimer_core::Error> {
        if self.check_busy {
            self.wait_idle()?;
        }
        let gw = if write {
            GMAC_MII_ADDR::GW::SET
        } else {
            GMAC_MII_ADDR::GW::CLEAR
        };
        self.mac.bus.write(
            GMAC_MII_ADDR,
            GMAC_MII_ADDR::PA.val(u32::from(phy.get()))
                + GMAC_MII_ADDR::GR.val(u32::from(reg.get()))
                + GMAC_MII_ADDR::CR.val(self.cr)
                + gw
                + GMAC_MII_ADDR::GB::SET,
        );
        self.wait_idle()
    }
}

impl<B: RegisterBus<Word = u32>, C: Continuous + Copy> Mdio for DwmacMdio<'_, B, C> {
    type Error = hwtimer_core::Error;

    fn read(&mut self, phy: PhyAddr, reg: RegAddr) -> Result<u16, Self::Error> {
        self.frame(phy, reg, false)?;
        let v = self.mac.bus.read(regs::GMAC_MII_DATA);
        // GD is 16 bits wide, so the conversion cannot fail.
        Ok(u16::try_from(v.read(regs::GMAC_MII_DATA::GD)).unwrap_or(u16::MAX))
    }

    fn write(&mut self, phy: PhyAddr, reg: RegAddr, value: u16) -> Result<(), Self::Error> {
        if self.check_busy {
            self.wait_idle()?;
        }
        self.mac
            .bus
            .write_raw(regs::GMAC_MII_DATA, u32::from(value));
        // The busy check already happened; `frame` will not repeat it.
        self.frame(phy, reg, true)
    }
}
