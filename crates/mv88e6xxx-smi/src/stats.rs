//! MIB statistics: the per-port counters of the Global1 statistics unit
//! (docs/mv88e6xxx.md#mib-statistics).
//!
//! The unit keeps counters for every port. Software reads them in two steps, each a
//! Global1 G1_STATS_OP operation with a bounded BUSY wait ([`Switch::g1_op`]): **capture** one
//! port's counters into the unit's capture buffer, then **read captured** counter *n*
//! of it, which puts the counter's 32 bits into G1_STATS_COUNTER_32 (bits 31..16) and
//! G1_STATS_COUNTER_01 (bits 15..0). The two octet counters are 64 bits wide: two
//! consecutive counters, low half first.
//!
//! How the port is encoded in the capture word, where the histogram mode lives and how
//! bank 1 is selected differ per chip ([`StatsLayout`], [`Chip::stats_layout`]); every chip
//! of the crate's table has its layout from Linux's ops tables. Beyond bank 0, the chips
//! Linux reads them on also have bank 1 ([`Mib::snapshot_bank1`]) or the port-register
//! counters ([`Mib::port_counters`]); [`Mib::snapshot_all`] reads what the chip has
//! (docs/mv88e6xxx.md#mib-bank-1-and-port-counters). [`Mib`] is the driver:
//!
//! ```
//! use mv88e6xxx_smi::chip::{Chip, Family};
//! use mv88e6xxx_smi::sim::{Attach, ChipModel, SwitchSim};
//! use mv88e6xxx_smi::stats::{HistogramMode, Mib};
//! use mv88e6xxx_smi::{Config, Switch};
//!
//! let mut sim = SwitchSim::single(ChipModel::new(Chip::Mv6352, Attach::Indirect(2)));
//! // A 64-byte broadcast (60 bytes without the FCS) arrives on port 1, leaves on port 2.
//! let mut frame = [0u8; 60];
//! frame[..6].fill(0xFF);
//! sim.bus.device().chip_mut(0).unwrap().count_frame(0, 1, &[2], &frame);
//!
//! let (mut smi, _) =
//!     Switch::probe(&mut sim.bus, &sim.counter, 2, Family::Mv6085, Config::new()).unwrap();
//! let mib = Mib::new(HistogramMode::RxTx);
//! let p1 = mib.snapshot(&mut smi, 1).unwrap();
//! assert_eq!((p1.in_broadcasts, p1.in_good_octets, p1.hist_64), (1, 64, 1));
//! ```

use hwtimer_core::Continuous;
use mdio_bus::Mdio;

use crate::chip::Chip;
use crate::error::{ConfigError, Error};
use crate::global1::G1Op;
use crate::regs::g1;
use crate::switch::Switch;

mod ext;

pub use ext::{AllStats, Bank1Counter, Bank1Stats, ExtStats, PortRegStats};

/// How a chip's capture (and flush-port) operation names the port in G1_STATS_OP
/// (docs/mv88e6xxx.md#mib-statistics).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PortField {
    /// The port number itself in bits \[4:0\] (Linux `mv88e6xxx_g1_stats_snapshot`).
    Low,
    /// Port + 1 in bits \[9:5\] (Linux `mv88e6320_g1_stats_snapshot`,
    /// `mv88e6390_g1_stats_snapshot`).
    PlusOneAt5,
}

impl PortField {
    /// The field value for `port` (only ports the chip has reach this, so at most 10:
    /// the sum and the shift cannot overflow; both are masked to the field anyway).
    pub const fn encode(self, port: u8) -> u16 {
        match self {
            PortField::Low => (port as u16) & 0x1F,
            PortField::PlusOneAt5 => (((port as u16) & 0x1F).wrapping_add(1) & 0x1F) << 5,
        }
    }
}

/// Where a chip keeps the histogram mode (what the six size buckets count).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum HistogramAt {
    /// G1_STATS_OP \[11:10\]: part of every operation word (Linux
    /// `mv88e6095_g1_stats_set_histogram`, and the capture and read words that carry the
    /// mode).
    StatsOp,
    /// G1_CTL2 \[7:6\], set once (Linux `mv88e6390_g1_stats_set_histogram`); the operation
    /// words carry no histogram bits (bit 10 is the bank-1 select there).
    Ctl2,
}

/// A chip's statistics layout: Linux's `stats_snapshot`, `stats_set_histogram` and
/// `stats_get_stats` ops for it (docs/mv88e6xxx.md#mib-statistics).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct StatsLayout {
    /// The port encoding of the capture word.
    pub port_field: PortField,
    /// Where the histogram mode lives.
    pub histogram: HistogramAt,
    /// The READ_CAPTURED bit that selects bank 1, on chips whose bank 1 Linux reads
    /// (`0x0200` on the 6320/6321, `0x0400` on the 6390 class); `None` elsewhere.
    pub bank1_select: Option<u16>,
    /// Whether Linux also reads the port-register counters (PORT 0x10–0x13) on this chip.
    pub port_counters: bool,
}

impl Chip {
    /// The chip's statistics layout, from Linux's ops table entry for it
    /// (docs/mv88e6xxx.md#mib-statistics). Every chip of [`Chip::ALL`] has one.
    pub const fn stats_layout(self) -> StatsLayout {
        use Chip::*;
        match self {
            // mv88e6xxx_g1_stats_snapshot + mv88e6095 histogram + mv88e6095 stats.
            Mv6085 | Mv6095 | Mv6097 | Mv6131 | Mv6161 | Mv6165 | Mv6185 => StatsLayout {
                port_field: PortField::Low,
                histogram: HistogramAt::StatsOp,
                bank1_select: None,
                port_counters: true,
            },
            // mv88e6320_g1_stats_snapshot + mv88e6095 histogram + mv88e6095 stats.
            Mv6123 | Mv6171 | Mv6172 | Mv6175 | Mv6176 | Mv6240 | Mv6350 | Mv6351 | Mv6352 => {
                StatsLayout {
                    port_field: PortField::PlusOneAt5,
                    histogram: HistogramAt::StatsOp,
                    bank1_select: None,
                    port_counters: true,
                }
            }
            // mv88e6320_g1_stats_snapshot + mv88e6095 histogram + mv88e6320 stats.
            Mv6320 | Mv6321 => StatsLayout {
                port_field: PortField::PlusOneAt5,
                histogram: HistogramAt::StatsOp,
                bank1_select: Some(0x0200),
                port_counters: false,
            },
            // mv88e6320_g1_stats_snapshot + mv88e6095 histogram + mv88e6250 stats.
            Mv6020 | Mv6071 | Mv6220 | Mv6250 => StatsLayout {
                port_field: PortField::PlusOneAt5,
                histogram: HistogramAt::StatsOp,
                bank1_select: None,
                port_counters: false,
            },
            // mv88e6390_g1_stats_snapshot + mv88e6390 histogram + mv88e6390 stats.
            Mv6141 | Mv6341 | Mv6190 | Mv6190X | Mv6191 | Mv6290 | Mv6390 | Mv6390X | Mv6191X
            | Mv6193X | Mv6393X | Mv6361 => StatsLayout {
                port_field: PortField::PlusOneAt5,
                histogram: HistogramAt::Ctl2,
                bank1_select: Some(0x0400),
                port_counters: false,
            },
        }
    }
}

/// What the six histogram counters (`hist_*`) count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum HistogramMode {
    /// Received frames only.
    Rx,
    /// Transmitted frames only.
    Tx,
    /// Both (Linux's choice on every chip).
    RxTx,
}

impl HistogramMode {
    /// The G1_STATS_OP \[11:10\] value.
    pub const fn stats_op_bits(self) -> u16 {
        match self {
            HistogramMode::Rx => 0x0400,
            HistogramMode::Tx => 0x0800,
            HistogramMode::RxTx => 0x0C00,
        }
    }

    /// The G1_CTL2 \[7:6\] value.
    pub const fn ctl2_bits(self) -> u16 {
        match self {
            HistogramMode::Rx => 0x0040,
            HistogramMode::Tx => 0x0080,
            HistogramMode::RxTx => 0x00C0,
        }
    }
}

macro_rules! counters {
    ($($variant:ident, $field:ident: $ty:ident = $index:literal, $doc:literal;)*) => {
        /// A bank-0 MIB counter (Linux's `mv88e6xxx_hw_stats` bank-0 entries).
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[cfg_attr(feature = "defmt", derive(defmt::Format))]
        pub enum Counter {
            $(
                #[doc = concat!($doc, " (index ", stringify!($index), ", ",
                    stringify!($ty), ").")]
                $variant,
            )*
        }

        impl Counter {
            /// Every bank-0 counter, in the order [`Mib::snapshot`] reads them.
            pub const ALL: [Counter; 30] = [$(Counter::$variant),*];

            /// The counter's index in the capture buffer (its low half for 64-bit ones).
            pub const fn index(self) -> u16 {
                match self { $(Counter::$variant => $index,)* }
            }

            /// Whether the counter is 64 bits wide (two indices, low half first).
            pub const fn is_wide(self) -> bool {
                match self { $(Counter::$variant => counters!(@wide $ty),)* }
            }

            /// Linux's ethtool name of the counter.
            pub const fn name(self) -> &'static str {
                match self { $(Counter::$variant => stringify!($field),)* }
            }
        }

        /// One port's bank-0 counters, as one [`Mib::snapshot`] captured them.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
        #[cfg_attr(feature = "defmt", derive(defmt::Format))]
        pub struct PortStats {
            $(
                #[doc = concat!($doc, ".")]
                pub $field: $ty,
            )*
        }

        impl PortStats {
            /// The value of `counter`.
            pub const fn get(&self, counter: Counter) -> u64 {
                match counter { $(Counter::$variant => self.$field as u64,)* }
            }

            /// Store `value` for `counter` (a 32-bit counter keeps the low 32 bits, all
            /// the hardware has).
            fn set(&mut self, counter: Counter, value: u64) {
                match counter {
                    $(Counter::$variant => self.$field = counters!(@narrow $ty, value),)*
                }
            }
        }
    };
    (@wide u64) => { true };
    (@wide u32) => { false };
    (@narrow u64, $v:expr) => { $v };
    (@narrow u32, $v:expr) => { ($v & 0xFFFF_FFFF) as u32 };
}

counters! {
    InGoodOctets, in_good_octets: u64 = 0x00, "Octets of good frames received";
    InBadOctets, in_bad_octets: u32 = 0x02, "Octets of bad frames received";
    InUnicast, in_unicast: u32 = 0x04, "Good unicast frames received";
    InBroadcasts, in_broadcasts: u32 = 0x06, "Good broadcast frames received";
    InMulticasts, in_multicasts: u32 = 0x07, "Good multicast frames received";
    InPause, in_pause: u32 = 0x16, "Pause frames received";
    InUndersize, in_undersize: u32 = 0x18, "Frames shorter than 64 bytes with a good FCS received";
    InFragments, in_fragments: u32 = 0x19, "Frames shorter than 64 bytes with a bad FCS received";
    InOversize, in_oversize: u32 = 0x1A, "Frames longer than the maximum with a good FCS received";
    InJabber, in_jabber: u32 = 0x1B, "Frames longer than the maximum with a bad FCS received";
    InRxError, in_rx_error: u32 = 0x1C, "Frames received with an RX error";
    InFcsError, in_fcs_error: u32 = 0x1D, "Frames received with a bad FCS";
    OutOctets, out_octets: u64 = 0x0E, "Octets transmitted";
    OutUnicast, out_unicast: u32 = 0x10, "Unicast frames transmitted";
    OutBroadcasts, out_broadcasts: u32 = 0x13, "Broadcast frames transmitted";
    OutMulticasts, out_multicasts: u32 = 0x12, "Multicast frames transmitted";
    OutPause, out_pause: u32 = 0x15, "Pause frames transmitted";
    Excessive, excessive: u32 = 0x11, "Frames dropped after excessive collisions";
    Collisions, collisions: u32 = 0x1E, "Collisions";
    Deferred, deferred: u32 = 0x05, "Frames deferred";
    Single, single: u32 = 0x14, "Frames sent after one collision";
    Multiple, multiple: u32 = 0x17, "Frames sent after several collisions";
    OutFcsError, out_fcs_error: u32 = 0x03, "Frames transmitted with a bad FCS";
    Late, late: u32 = 0x1F, "Late collisions";
    Hist64, hist_64: u32 = 0x08, "Histogram: frames of 64 bytes";
    Hist65To127, hist_65_127: u32 = 0x09, "Histogram: frames of 65 to 127 bytes";
    Hist128To255, hist_128_255: u32 = 0x0A, "Histogram: frames of 128 to 255 bytes";
    Hist256To511, hist_256_511: u32 = 0x0B, "Histogram: frames of 256 to 511 bytes";
    Hist512To1023, hist_512_1023: u32 = 0x0C, "Histogram: frames of 512 to 1023 bytes";
    Hist1024ToMax, hist_1024_max: u32 = 0x0D, "Histogram: frames of 1024 bytes to the maximum";
}

/// The MIB statistics driver: the histogram mode it set up, and the operations of the
/// statistics unit on an [`Switch`] (docs/mv88e6xxx.md#mib-statistics).
///
/// Every operation is a Global1 G1_STATS_OP operation through [`Switch::g1_op`]: its BUSY is
/// polled (bounded) before it only when the driver has not seen it clear at the end of
/// its own last operation, and awaited (bounded) after it; a unit that never clears BUSY
/// gives [`Error::Timeout`] with [`BusyWait::StatsOp`](crate::BusyWait::StatsOp). A port
/// the chip does not have or route is [`ConfigError::Port`] before any frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Mib {
    mode: HistogramMode,
}

/// The chip behind `smi`. An [`Switch`] made by `new` or `probe` always knows it; the
/// `UnknownSwitchId` error for one that does not cannot happen through the public API.
fn chip_of<M: Mdio, C: Continuous + Copy>(smi: &Switch<M, C>) -> Result<Chip, Error<M::Error>> {
    smi.chip().ok_or(Error::UnknownSwitchId { raw: 0 })
}

impl Mib {
    /// A driver for a switch whose histogram mode is already `mode` (set by
    /// [`setup`](Self::setup) or [`set_histogram`](Self::set_histogram) earlier, or by
    /// another driver): no frame is sent.
    pub const fn new(mode: HistogramMode) -> Self {
        Self { mode }
    }

    /// The histogram mode this driver set up (or was told).
    pub const fn mode(&self) -> HistogramMode {
        self.mode
    }

    /// Linux's statistics setup: set the histogram mode ([`set_histogram`](Self::set_histogram)),
    /// then clear every port's counters ([`flush_all`](Self::flush_all)).
    ///
    /// Errors: as the two steps.
    pub fn setup<M: Mdio, C: Continuous + Copy>(
        smi: &mut Switch<M, C>,
        mode: HistogramMode,
    ) -> Result<Self, Error<M::Error>> {
        let mut mib = Self::new(mode);
        mib.set_histogram(smi, mode)?;
        mib.flush_all(smi)?;
        Ok(mib)
    }

    /// Set what the histogram counters count, the way the chip keeps it
    /// ([`HistogramAt`]): on [`HistogramAt::StatsOp`] chips G1_STATS_OP is written with
    /// the mode and no BUSY (no operation starts; the bits are then part of every
    /// operation word this driver writes); on [`HistogramAt::Ctl2`] chips G1_CTL2 is read
    /// and written back with its \[7:6\] field replaced.
    ///
    /// Errors: [`Error::Timeout`] if STATS BUSY does not clear before the write (it is
    /// polled first unless known clear, see
    /// [`Config::with_sole_bus_master`](crate::Config::with_sole_bus_master)); MDIO
    /// errors.
    pub fn set_histogram<M: Mdio, C: Continuous + Copy>(
        &mut self,
        smi: &mut Switch<M, C>,
        mode: HistogramMode,
    ) -> Result<(), Error<M::Error>> {
        let layout = chip_of(smi)?.stats_layout();
        match layout.histogram {
            HistogramAt::StatsOp => smi.g1_write(g1::STATS_OP, mode.stats_op_bits())?,
            HistogramAt::Ctl2 => {
                let ctl2 = smi.g1_read(g1::CTL2)?;
                smi.g1_write(g1::CTL2, (ctl2 & !g1::CTL2_HIST_MASK) | mode.ctl2_bits())?;
            }
        }
        self.mode = mode;
        Ok(())
    }

    /// The histogram bits every G1_STATS_OP word carries on this layout.
    const fn op_bits(&self, layout: StatsLayout) -> u16 {
        match layout.histogram {
            HistogramAt::StatsOp => self.mode.stats_op_bits(),
            HistogramAt::Ctl2 => 0,
        }
    }

    /// The chip's layout and the port field for `port`, or [`ConfigError::Port`].
    fn port_word<M: Mdio, C: Continuous + Copy>(
        &self,
        smi: &Switch<M, C>,
        port: u8,
    ) -> Result<(StatsLayout, u16), Error<M::Error>> {
        let chip = chip_of(smi)?;
        if !chip.is_valid_port(port) {
            return Err(ConfigError::Port { port }.into());
        }
        let layout = chip.stats_layout();
        Ok((layout, layout.port_field.encode(port)))
    }

    /// Capture port `port`'s counters into the unit's capture buffer (CAPTURE_PORT with the
    /// chip's port encoding and histogram bits; bounded BUSY wait). Read them afterwards
    /// with [`read_captured`](Self::read_captured).
    ///
    /// Errors: [`ConfigError::Port`] (no frame sent); [`Error::Timeout`]; MDIO errors.
    pub fn capture<M: Mdio, C: Continuous + Copy>(
        &self,
        smi: &mut Switch<M, C>,
        port: u8,
    ) -> Result<(), Error<M::Error>> {
        let (layout, field) = self.port_word(smi, port)?;
        smi.stats_capture_op(
            g1::STATS_OP_CAPTURE_PORT | self.op_bits(layout) | field,
            false,
        )?;
        Ok(())
    }

    /// One 32-bit counter of the capture buffer: READ_CAPTURED with `index` and `bank`
    /// (0 for bank 0, else the chip's bank-1 select bit), bounded BUSY wait, then
    /// G1_STATS_COUNTER_32 and _01.
    fn read_index<M: Mdio, C: Continuous + Copy>(
        &self,
        smi: &mut Switch<M, C>,
        layout: StatsLayout,
        bank: u16,
        index: u16,
    ) -> Result<u32, Error<M::Error>> {
        let word = g1::STATS_OP_READ_CAPTURED
            | self.op_bits(layout)
            | bank
            | (index & g1::STATS_OP_INDEX_MASK);
        smi.stats_capture_op(word, true)?;
        let hi = smi.g1_read(g1::STATS_COUNTER_32)?;
        let lo = smi.g1_read(g1::STATS_COUNTER_01)?;
        Ok((u32::from(hi) << 16) | u32::from(lo))
    }

    /// Counter `counter` of the capture buffer (the last [`capture`](Self::capture)): for
    /// each of its halves READ_CAPTURED with its index, a bounded BUSY wait, then
    /// G1_STATS_COUNTER_32 and G1_STATS_COUNTER_01 (a 64-bit counter is two such reads,
    /// low half first).
    ///
    /// Errors: [`Error::Timeout`]; MDIO errors.
    pub fn read_captured<M: Mdio, C: Continuous + Copy>(
        &self,
        smi: &mut Switch<M, C>,
        counter: Counter,
    ) -> Result<u64, Error<M::Error>> {
        let layout = chip_of(smi)?.stats_layout();
        let index = counter.index();
        let lo = self.read_index(smi, layout, 0, index)?;
        if !counter.is_wide() {
            return Ok(u64::from(lo));
        }
        let hi = self.read_index(smi, layout, 0, index.wrapping_add(1))?;
        Ok((u64::from(hi) << 32) | u64::from(lo))
    }

    /// Port `port`'s bank-0 counters: [`capture`](Self::capture), then every
    /// [`Counter`] by [`read_captured`](Self::read_captured). In steady state (BUSY
    /// clearing before the first poll) that is one BUSY check before the capture, 33
    /// operations and 64 counter register reads: 393 frames in indirect mode, 131 in
    /// direct mode (with [`Config::with_sole_bus_master`](crate::Config): 390 and 130,
    /// the BUSY check skipped).
    ///
    /// Errors: [`ConfigError::Port`] (no frame sent); [`Error::Timeout`]; MDIO errors.
    pub fn snapshot<M: Mdio, C: Continuous + Copy>(
        &self,
        smi: &mut Switch<M, C>,
        port: u8,
    ) -> Result<PortStats, Error<M::Error>> {
        self.capture(smi, port)?;
        let mut stats = PortStats::default();
        for counter in Counter::ALL {
            let v = self.read_captured(smi, counter)?;
            stats.set(counter, v);
        }
        Ok(stats)
    }

    /// Clear every port's counters (FLUSH_ALL with the histogram bits; bounded BUSY wait).
    /// Unlike Linux, G1_STATS_OP is not read first: the driver knows the bits to keep.
    ///
    /// Errors: [`Error::Timeout`]; MDIO errors.
    pub fn flush_all<M: Mdio, C: Continuous + Copy>(
        &self,
        smi: &mut Switch<M, C>,
    ) -> Result<(), Error<M::Error>> {
        let layout = chip_of(smi)?.stats_layout();
        smi.g1_op(G1Op::Stats, g1::STATS_OP_FLUSH_ALL | self.op_bits(layout))?;
        Ok(())
    }

    /// Clear port `port`'s counters (FLUSH_PORT with the port encoded as for a capture;
    /// Linux never issues this operation, so that encoding is **unverified**, see
    /// docs/mv88e6xxx.md#mib-statistics; bounded BUSY wait).
    ///
    /// Errors: [`ConfigError::Port`] (no frame sent); [`Error::Timeout`]; MDIO errors.
    pub fn flush_port<M: Mdio, C: Continuous + Copy>(
        &self,
        smi: &mut Switch<M, C>,
        port: u8,
    ) -> Result<(), Error<M::Error>> {
        let (layout, field) = self.port_word(smi, port)?;
        smi.g1_op(
            G1Op::Stats,
            g1::STATS_OP_FLUSH_PORT | self.op_bits(layout) | field,
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bank0_indices_cover_the_buffer_once() {
        let mut seen = 0u32;
        for c in Counter::ALL {
            let n = if c.is_wide() { 2 } else { 1 };
            for i in 0..n {
                let bit = 1u32 << (c.index() + i);
                assert_eq!(seen & bit, 0, "{c:?}");
                seen |= bit;
            }
        }
        assert_eq!(seen, u32::MAX);
    }

    #[test]
    fn bank1_indices_are_distinct_and_in_the_field() {
        let mut seen = 0u32;
        for c in Bank1Counter::ALL {
            assert!(c.index() <= g1::STATS_OP_INDEX_MASK, "{c:?}");
            let bit = 1u32 << c.index();
            assert_eq!(seen & bit, 0, "{c:?}");
            seen |= bit;
        }
        // The six indices Linux's table leaves out.
        assert_eq!(
            !seen,
            (1 << 0x0C) | (1 << 0x0D) | (1 << 0x19) | (0x7 << 0x1C)
        );
    }

    #[test]
    fn port_fields_follow_the_snapshot_ops() {
        assert_eq!(PortField::Low.encode(5), 5);
        assert_eq!(PortField::PlusOneAt5.encode(0), 1 << 5);
        assert_eq!(PortField::PlusOneAt5.encode(10), 11 << 5);
        for chip in Chip::ALL {
            let l = chip.stats_layout();
            // Bank 1 is selected by bit 10 exactly where the histogram mode left STATS_OP.
            assert_eq!(
                l.bank1_select == Some(0x0400),
                l.histogram == HistogramAt::Ctl2
            );
        }
    }
}
