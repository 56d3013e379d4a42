//! Bank 1 and the port-register counters (docs/mv88e6xxx.md#mib-bank-1-and-port-counters):
//! [`Bank1Counter`], [`Bank1Stats`], [`PortRegStats`], and [`Mib::snapshot_all`]'s
//! [`AllStats`].

use hwtimer_core::Continuous;
use mdio_bus::Mdio;

use crate::error::{ConfigError, Error, Feature};
use crate::regs::port::{
    PORT_IN_DISCARD_HI, PORT_IN_DISCARD_LO, PORT_IN_FILTERED, PORT_OUT_FILTERED,
};
use crate::switch::Switch;

use super::{Mib, PortStats, StatsLayout, chip_of};
macro_rules! bank1_counters {
    ($($variant:ident, $field:ident = $index:literal, $doc:literal;)*) => {
        /// A bank-1 MIB counter (Linux's `mv88e6xxx_hw_stats` entries of type BANK1; all
        /// 32 bits wide), read on the chips with a
        /// [`StatsLayout::bank1_select`] bit (docs/mv88e6xxx.md#mib-bank-1-and-port-counters).
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[cfg_attr(feature = "defmt", derive(defmt::Format))]
        pub enum Bank1Counter {
            $(
                #[doc = concat!($doc, " (bank-1 index ", stringify!($index), ").")]
                $variant,
            )*
        }

        impl Bank1Counter {
            /// Every bank-1 counter, in Linux's table order (the order
            /// [`Mib::snapshot_bank1`] reads them).
            pub const ALL: [Bank1Counter; 26] = [$(Bank1Counter::$variant),*];

            /// The counter's index in bank 1 of the capture buffer.
            pub const fn index(self) -> u16 {
                match self { $(Bank1Counter::$variant => $index,)* }
            }

            /// Linux's ethtool name of the counter.
            pub const fn name(self) -> &'static str {
                match self { $(Bank1Counter::$variant => stringify!($field),)* }
            }
        }

        /// One port's bank-1 counters, as one capture holds them ([`Mib::snapshot_bank1`]).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
        #[cfg_attr(feature = "defmt", derive(defmt::Format))]
        pub struct Bank1Stats {
            $(
                #[doc = concat!($doc, ".")]
                pub $field: u32,
            )*
        }

        impl Bank1Stats {
            /// The value of `counter`.
            pub const fn get(&self, counter: Bank1Counter) -> u32 {
                match counter { $(Bank1Counter::$variant => self.$field,)* }
            }

            fn set(&mut self, counter: Bank1Counter, value: u32) {
                match counter { $(Bank1Counter::$variant => self.$field = value,)* }
            }
        }
    };
}

bank1_counters! {
    InDiscards, in_discards = 0x00, "Received frames discarded for lack of resources";
    InFiltered, in_filtered = 0x01, "Received frames dropped by ingress filtering";
    InAccepted, in_accepted = 0x02, "Good received frames accepted for forwarding";
    InBadAccepted, in_bad_accepted = 0x03, "Bad received frames accepted";
    InGoodAvbClassA, in_good_avb_class_a = 0x04, "Good AVB class A frames received";
    InGoodAvbClassB, in_good_avb_class_b = 0x05, "Good AVB class B frames received";
    InBadAvbClassA, in_bad_avb_class_a = 0x06, "Bad AVB class A frames received";
    InBadAvbClassB, in_bad_avb_class_b = 0x07, "Bad AVB class B frames received";
    TcamCounter0, tcam_counter_0 = 0x08, "TCAM counter 0";
    TcamCounter1, tcam_counter_1 = 0x09, "TCAM counter 1";
    TcamCounter2, tcam_counter_2 = 0x0A, "TCAM counter 2";
    TcamCounter3, tcam_counter_3 = 0x0B, "TCAM counter 3";
    InDaUnknown, in_da_unknown = 0x0E, "Received frames with a destination not in the ATU";
    InManagement, in_management = 0x0F, "Management frames received";
    OutQueue0, out_queue_0 = 0x10, "Frames transmitted from egress queue 0";
    OutQueue1, out_queue_1 = 0x11, "Frames transmitted from egress queue 1";
    OutQueue2, out_queue_2 = 0x12, "Frames transmitted from egress queue 2";
    OutQueue3, out_queue_3 = 0x13, "Frames transmitted from egress queue 3";
    OutQueue4, out_queue_4 = 0x14, "Frames transmitted from egress queue 4";
    OutQueue5, out_queue_5 = 0x15, "Frames transmitted from egress queue 5";
    OutQueue6, out_queue_6 = 0x16, "Frames transmitted from egress queue 6";
    OutQueue7, out_queue_7 = 0x17, "Frames transmitted from egress queue 7";
    OutCutThrough, out_cut_through = 0x18, "Frames transmitted cut-through";
    OutOctetsA, out_octets_a = 0x1A, "Octets transmitted, AVB class A";
    OutOctetsB, out_octets_b = 0x1B, "Octets transmitted, AVB class B";
    OutManagement, out_management = 0x1F, "Management frames transmitted";
}

/// One port's port-register counters (Linux's entries of type PORT: PORT 0x10–0x13), read
/// by [`Mib::port_counters`] on the chips with [`StatsLayout::port_counters`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PortRegStats {
    /// `sw_in_discards`: PORT 0x11 << 16 | PORT 0x10.
    pub sw_in_discards: u32,
    /// `sw_in_filtered`: PORT 0x12.
    pub sw_in_filtered: u16,
    /// `sw_out_filtered`: PORT 0x13.
    pub sw_out_filtered: u16,
}

/// The counters beyond bank 0 that Linux reads on a chip ([`Mib::snapshot_all`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ExtStats {
    /// None: the 6250 family (Linux reads bank 0 only).
    None,
    /// Bank 1: the 6320/6321 and the 6390 class.
    Bank1(Bank1Stats),
    /// The port registers: the 6085-map and 6352-class chips.
    PortRegs(PortRegStats),
}

/// Everything Linux's `stats_get_stats` reads for one port of the chip, from one capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AllStats {
    /// The bank-0 counters.
    pub bank0: PortStats,
    /// Bank 1 or the port registers, as the chip has them.
    pub ext: ExtStats,
}

impl Mib {
    /// The chip's bank-1 select bit, or the typed refusal.
    fn bank1_bit<M: Mdio, C: Continuous + Copy>(
        smi: &Switch<M, C>,
    ) -> Result<(StatsLayout, u16), Error<M::Error>> {
        let chip = chip_of(smi)?;
        let layout = chip.stats_layout();
        match layout.bank1_select {
            Some(bit) => Ok((layout, bit)),
            None => Err(ConfigError::PortFeature {
                chip: Some(chip),
                port: None,
                feature: Feature::MibBank1,
            }
            .into()),
        }
    }

    /// Bank-1 counter `counter` of the capture buffer (the last
    /// [`capture`](Self::capture)): READ_CAPTURED with its index, the chip's
    /// [`StatsLayout::bank1_select`] bit and the histogram bits, a bounded BUSY wait, then
    /// G1_STATS_COUNTER_32 and _01 (docs/mv88e6xxx.md#mib-bank-1-and-port-counters).
    ///
    /// Errors: [`ConfigError::PortFeature`] with [`Feature::MibBank1`] on a chip without
    /// a bank 1 Linux reads (no frame sent); [`Error::Timeout`]; MDIO errors.
    pub fn read_captured_bank1<M: Mdio, C: Continuous + Copy>(
        &self,
        smi: &mut Switch<M, C>,
        counter: Bank1Counter,
    ) -> Result<u32, Error<M::Error>> {
        let (layout, bit) = Self::bank1_bit(smi)?;
        self.read_index(smi, layout, bit, counter.index())
    }

    /// Port `port`'s bank-0 and bank-1 counters from one capture: [`capture`](Self::capture),
    /// the 30 [`Counter`](super::Counter)s, then the 26 [`Bank1Counter`]s (Linux's order). In steady state
    /// that is 59 operations and 116 counter register reads: 234 accesses (702 frames
    /// indirect).
    ///
    /// Errors: [`ConfigError::Port`], or [`ConfigError::PortFeature`] with
    /// [`Feature::MibBank1`] on a chip without bank 1 (both before any frame);
    /// [`Error::Timeout`]; MDIO errors.
    pub fn snapshot_bank1<M: Mdio, C: Continuous + Copy>(
        &self,
        smi: &mut Switch<M, C>,
        port: u8,
    ) -> Result<(PortStats, Bank1Stats), Error<M::Error>> {
        self.port_word(smi, port)?;
        let (layout, bit) = Self::bank1_bit(smi)?;
        let bank0 = self.snapshot(smi, port)?;
        let mut bank1 = Bank1Stats::default();
        for counter in Bank1Counter::ALL {
            let v = self.read_index(smi, layout, bit, counter.index())?;
            bank1.set(counter, v);
        }
        Ok((bank0, bank1))
    }

    /// Port `port`'s port-register counters: PORT 0x10, 0x11, 0x12, 0x13, in that order
    /// (four port register reads, no operation and no BUSY wait; the two halves of
    /// `sw_in_discards` are read low first, as Linux does, so a carry between them is not
    /// caught). The statistics unit is not involved: no capture is needed.
    ///
    /// Errors: [`ConfigError::Port`], or [`ConfigError::PortFeature`] with
    /// [`Feature::MibPortCounters`] on a chip Linux does not read them on (both before any
    /// frame); MDIO errors.
    pub fn port_counters<M: Mdio, C: Continuous + Copy>(
        &self,
        smi: &mut Switch<M, C>,
        port: u8,
    ) -> Result<PortRegStats, Error<M::Error>> {
        let (layout, _) = self.port_word(smi, port)?;
        if !layout.port_counters {
            return Err(ConfigError::PortFeature {
                chip: smi.chip(),
                port: Some(port),
                feature: Feature::MibPortCounters,
            }
            .into());
        }
        let lo = smi.port_read(port, PORT_IN_DISCARD_LO)?;
        let hi = smi.port_read(port, PORT_IN_DISCARD_HI)?;
        let sw_in_filtered = smi.port_read(port, PORT_IN_FILTERED)?;
        let sw_out_filtered = smi.port_read(port, PORT_OUT_FILTERED)?;
        Ok(PortRegStats {
            sw_in_discards: (u32::from(hi) << 16) | u32::from(lo),
            sw_in_filtered,
            sw_out_filtered,
        })
    }

    /// Everything Linux's `stats_get_stats` reads on this chip for port `port`:
    /// [`snapshot`](Self::snapshot), then bank 1 (as [`snapshot_bank1`](Self::snapshot_bank1))
    /// or the port registers ([`port_counters`](Self::port_counters)) per
    /// [`Chip::stats_layout`](crate::chip::Chip::stats_layout), or nothing more on the 6250 family. Never refused for the
    /// chip.
    ///
    /// Errors: [`ConfigError::Port`] (no frame sent); [`Error::Timeout`]; MDIO errors.
    pub fn snapshot_all<M: Mdio, C: Continuous + Copy>(
        &self,
        smi: &mut Switch<M, C>,
        port: u8,
    ) -> Result<AllStats, Error<M::Error>> {
        let (layout, _) = self.port_word(smi, port)?;
        if layout.bank1_select.is_some() {
            let (bank0, bank1) = self.snapshot_bank1(smi, port)?;
            return Ok(AllStats {
                bank0,
                ext: ExtStats::Bank1(bank1),
            });
        }
        let bank0 = self.snapshot(smi, port)?;
        let ext = if layout.port_counters {
            ExtStats::PortRegs(self.port_counters(smi, port)?)
        } else {
            ExtStats::None
        };
        Ok(AllStats { bank0, ext })
    }
}
