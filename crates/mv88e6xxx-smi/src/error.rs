//! Errors. Every fallible operation returns [`Error`]; nothing in the crate panics.

pub use hwtimer_core::poll::Bound;

use crate::chip::{Chip, Family};
use crate::port::MirrorDirection;

/// Which busy bit (or status bit) a bounded wait was polling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum BusyWait {
    /// Indirect-mode SMI_CMD BUSY (bit 15 of reg 0x00 at `sw_addr`).
    SmiCmd,
    /// Global1 G1_STS INIT_READY (bit 11) to become set.
    InitReady,
    /// Global1 G1_ATU_OP BUSY.
    AtuOp,
    /// Global1 G1_VTU_OP BUSY.
    VtuOp,
    /// Global1 G1_STATS_OP BUSY.
    StatsOp,
    /// Global2 G2_SMI_PHY_CMD BUSY (internal PHY access).
    SmiPhyCmd,
    /// G1_STS PPU state to read "disabled" after PPU_ENABLE was cleared (PPU-gated PHY
    /// access).
    PpuDisabled,
    /// G1_STS PPU state to read "polling" after PPU_ENABLE was set again.
    PpuPolling,
    /// Global2 G2_EEPROM_CMD BUSY and RUNNING to clear: the EEPROM load after a hardware
    /// reset (Linux `mv88e6xxx_g2_eeprom_wait`).
    EepromCmd,
    /// G1_STS EEPROM done (bit 0) to be set, 0xFFFF not counting (Linux
    /// `mv88e6xxx_g1_wait_eeprom_done`, the 6250 family).
    EepromDone,
    /// G1_CTL1 RELOAD_EEPROM to clear after a reload request (Linux
    /// `mv88e6250_g1_eeprom_reload`).
    EepromReload,
    /// The hidden-register control word's BUSY (port 4 register 0x1A) to clear (Linux
    /// `mv88e6xxx_port_hidden_wait`).
    HiddenBusy,
    /// A caller's [`Switch::wait_mask`](crate::Switch::wait_mask) on device `dev`, register `reg`.
    Mask {
        /// Device address inside the switch.
        dev: u8,
        /// Register.
        reg: u8,
    },
}

/// A bounded wait gave up: the condition did not hold on any read, including the one
/// extra read made after the deadline (hwtimer-core's iopoll semantics), or the wait's
/// poll-count backstop ended it because the clocksource did not advance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BusyTimeout {
    /// What was being waited for.
    pub wait: BusyWait,
    /// The last value read (after the deadline).
    pub last: u16,
    /// Reads of the polled register (at least 2).
    pub polls: u32,
    /// Clocksource ticks between the start of the wait and the final read.
    pub elapsed_ticks: u64,
    /// Which bound ended the wait: the deadline, or the poll-count backstop
    /// ([`Config::max_polls`](crate::Config::max_polls)) when the clock did not advance.
    pub bound: Bound,
}

/// Which setting or argument the driver refused ([`Error::Config`]): one variant per cause.
/// Each is returned before anything is written: before any frame, except
/// [`MirrorBusy`](ConfigError::MirrorBusy), which the driver learns by reading the switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ConfigError {
    /// The addressing mode does not fit the family's SMI mode
    /// ([`AddressMap::mode`](crate::AddressMap::mode)): direct or indirect for the dual-chip
    /// 6250 family, dual-chip for a multi-chip family.
    AddressingMode {
        /// The family asked for.
        family: Family,
    },
    /// The switch address is out of range for the mode: 0 in indirect (multi-chip) mode
    /// (0 means single-chip), other than 0 or 16 in dual-chip mode (the ADDR4 strap), or
    /// above 31 ([`Switch::probe`](crate::Switch::probe) takes it as a `u8`).
    SwitchAddress {
        /// The `sw_addr` asked for.
        sw_addr: u8,
    },
    /// The 6393X remap was asked for on a family without it
    /// ([`Family::has_6393x_remap`]).
    Remap6393x {
        /// The family asked for.
        family: Family,
    },
    /// [`Switch::probe`](crate::Switch::probe) identified a chip whose family is reached in
    /// another SMI mode (dual-chip or multi-chip) than the hint's: the hint does not
    /// describe this switch.
    HintMismatch {
        /// The chip that answered.
        chip: Chip,
    },
    /// A port the chip does not have (at or above [`ChipInfo::num_ports`](crate::ChipInfo::num_ports), whose device
    /// address would be another port's, a PHY's or a global block's), or one not routed to
    /// pins ([`ChipInfo::invalid_port_mask`](crate::ChipInfo::invalid_port_mask)). Before the chip is identified, the family's
    /// [`max_ports`](Family::max_ports) applies.
    Port {
        /// The port number asked for.
        port: u8,
    },
    /// A device address that the addressing mode cannot reach: in dual-chip mode a device
    /// at or above 16, or `sw_addr + dev` above 31.
    Device {
        /// The device address asked for.
        dev: u8,
    },
    /// A PHY address off the chip's PHY bus (`phy_base .. phy_base + num_ports`, Linux's
    /// PHY mask of the switch's MDIO bus): a directly accessed address beyond it would be
    /// a port or a global block.
    Phy {
        /// The PHY address asked for.
        phy: u8,
    },
    /// A Clause 45 access on a chip whose internal PHY bus has none: Linux gives Clause 45
    /// operations only to the chips that reach their PHYs through Global2 SMI_PHY
    /// ([`PhyAccess::Global2`](crate::PhyAccess::Global2)); the PPU-gated 6085, 6095,
    /// 6131, 6185 and the direct 6165 have none (docs/mv88e6xxx.md#clause-45).
    NoClause45 {
        /// The chip.
        chip: Chip,
    },
    /// A port with no SERDES lane this driver can reach, whatever its CMODE: anything but
    /// ports 0, 9, 10 of a 6393-family chip, ports 9, 10 of a 6190/6191/6290/6390, ports
    /// 2–7, 9, 10 of a 6190X/6390X, port 5 of a 6141/6341, or any port of another chip
    /// (docs/mv88e6xxx.md#6393x-serdes, #6390-and-6390x-serdes).
    SerdesLane {
        /// The port number asked for.
        port: u8,
    },
    /// A port, link, reset or interrupt function ([`crate::port`], [`crate::irq`]) that
    /// this crate does not implement for the chip (its family's facts were not taken,
    /// docs/mv88e6xxx.md#port-control), or a setting the chip or that port cannot take.
    /// Returned before any frame.
    PortFeature {
        /// The chip (`None` only before identification).
        chip: Option<Chip>,
        /// The port, when the refusal is about one port.
        port: Option<u8>,
        /// What was refused.
        feature: Feature,
    },
    /// A forwarding database number at or above the chip's number of databases
    /// ([`AtuInfo::num_databases`](crate::atu::AtuInfo::num_databases)).
    Fid {
        /// The FID asked for.
        fid: u16,
    },
    /// A VLAN ID above the chip's largest ([`VtuInfo::max_vid`](crate::vtu::VtuInfo::max_vid)),
    /// or a port default VID above 4095 (PORT_DEFAULT_VLAN holds 12 bits).
    Vid {
        /// The VID asked for.
        vid: u16,
    },
    /// A port vector with a bit set for a port the chip does not have or route.
    PortVector {
        /// The vector asked for.
        ports: u16,
    },
    /// A spanning-tree instance above 63, or other than 0 on a chip without an STU.
    Sid {
        /// The SID asked for.
        sid: u8,
    },
    /// An ATU age time outside `coeff ..= 255 × coeff` ms
    /// ([`AtuInfo::age_time_coeff_ms`](crate::atu::AtuInfo::age_time_coeff_ms)).
    AgeTime {
        /// The age time asked for, in milliseconds.
        ms: u32,
    },
    /// An ATU entry state that cannot be loaded for that address (a learned state for a
    /// multicast address, or a raw state of 0 or above 15).
    AtuState {
        /// The raw state the entry would have had (0 when it has none).
        state: u8,
    },
    /// The chip's unit is not supported by this crate: its layout is not in our sources
    /// (docs/mv88e6xxx.md#atu-vtu-and-stu), or the chip has no such unit (no STU).
    UnitUnsupported {
        /// The unit.
        unit: SwitchUnit,
        /// The chip.
        chip: Chip,
    },
    /// A trunk ID above 15 (G2_TRUNK_MAPPING and PORT_CTL1 hold 4 bits).
    TrunkId {
        /// The trunk ID asked for.
        id: u8,
    },
    /// A trunk mask number above 7 (the G2_TRUNK_MASK table has 8 masks).
    TrunkMask {
        /// The mask number asked for.
        num: u8,
    },
    /// A priority above what its map field holds (3 for a queue priority of the
    /// IEEE / IP priority maps, 7 for a remapped PCP).
    Priority {
        /// The priority asked for.
        value: u8,
    },
    /// [`Switch::port_mirror_add`](crate::Switch::port_mirror_add) would move the mirror
    /// destination of `direction` while a port (the asking one included) mirrors to it
    /// (Linux `chip.c` `mv88e6xxx_port_mirror_add` returns -EBUSY). Returned after the
    /// reads that found it, before any write.
    MirrorBusy {
        /// The direction asked for.
        direction: MirrorDirection,
        /// The destination in use.
        dest: u8,
    },
}

/// What a [`ConfigError::PortFeature`] refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum Feature {
    /// Port control, link and reset on a chip whose ops this crate does not have.
    PortOps,
    /// A forced speed, in Mb/s, the chip or port cannot be forced to.
    Speed(u16),
    /// RGMII delays on a port without them (`PortOps::rgmii_ports`; e.g. the 6352 family:
    /// ports 5 and 6 only).
    RgmiiDelay,
    /// A frame mode the chip does not have (6185, 6095, 6123: normal and DSA only; the
    /// 6165: none).
    FrameMode,
    /// Global1 interrupt source `bit` beyond the chip's sources.
    G1Irq(u8),
    /// Global2 PHY interrupts on a chip without internal PHYs behind Global2 SMI_PHY.
    PhyIrq,
    /// Decoding PORT_STS on a chip whose status layout differs (the 6250 family).
    LinkStatus,
    /// A mirror (monitor) destination on a chip without that op (the 6095).
    MirrorPort,
    /// Unknown-address flooding on a chip without those ops (the 6165).
    Flood,
    /// The 6320/6321 RGMII transmit delay before [`Switch::apply_errata`](crate::Switch::apply_errata)
    /// applied erratum 3.3 ("RGMII timing may be out of spec when transmit delay is
    /// enabled", Linux `chip.c` `mv88e6320_setup_errata`).
    RgmiiTxDelayErratum,
    /// The 6352-family SERDES (PHY 0x0F, page 1) on another chip, or its page register
    /// (22) or a register above 31 asked for.
    Serdes6352,
    /// MIB bank-1 counters on a chip whose bank 1 Linux does not read (all but the
    /// 6320/6321 and the 6390 class; docs/mv88e6xxx.md#mib-bank-1-and-port-counters).
    MibBank1,
    /// The port-register MIB counters (PORT 0x10–0x13) on a chip Linux does not read them
    /// on (all but the 6085-map and 6352-class chips;
    /// docs/mv88e6xxx.md#mib-bank-1-and-port-counters).
    MibPortCounters,
    /// The EDSA EtherType (PORT_ETH_TYPE) on a chip whose ops table has no
    /// `port_set_ether_type` (6095, 6123, 6165, 6185).
    EtherType,
    /// A frame size, in bytes, above the chip's largest
    /// ([`max_frame_size`](crate::port::max_frame_size): 10240 with the jumbo op, 1632
    /// with the 6185 Global1 op, else 1522).
    MaxFrameSize(u16),
    /// Reserved multicast to the CPU (`mgmt_rsvd2cpu`) with a 01:80:C2:00:00:2x mask on
    /// a chip whose op has only the 0x range (6095, 6131, 6185).
    Rsvd2Cpu2x,
    /// Per-port reserved-multicast traps on a chip whose traps are switch-wide (all but
    /// the 6393 family).
    Rsvd2CpuPerPort,
    /// The per-port IEEE tag remap on a chip without `port_tag_remap` (6095, 6123,
    /// 6165, 6185).
    TagRemap,
    /// The Global1 IEEE / IP priority maps on a chip without `ieee_pri_map` /
    /// `ip_pri_map` (the 6390 and 6393 families).
    PriorityMap,
}

/// A switch unit that a chip may lack or that this crate may not support on it
/// ([`ConfigError::UnitUnsupported`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SwitchUnit {
    /// The VLAN table unit (G1_VTU_OP load/purge, get next).
    Vtu,
    /// The spanning-tree unit (G1_VTU_OP STU load/purge, get next).
    Stu,
}

impl core::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ConfigError::AddressingMode { family } => {
                write!(
                    f,
                    "addressing mode does not fit the {} family",
                    family_name(*family)
                )
            }
            ConfigError::SwitchAddress { sw_addr } => {
                write!(f, "switch address {sw_addr} out of range for the mode")
            }
            ConfigError::Remap6393x { family } => {
                write!(f, "the {} family has no 6393X remap", family_name(*family))
            }
            ConfigError::HintMismatch { chip } => write!(
                f,
                "88E{} is not reached in the hint family's SMI mode",
                chip.name()
            ),
            ConfigError::Port { port } => write!(f, "port {port} does not exist on this chip"),
            ConfigError::Device { dev } => {
                write!(f, "device address {dev:#04x} out of range for the mode")
            }
            ConfigError::Phy { phy } => {
                write!(f, "PHY address {phy:#04x} is not on the chip's PHY bus")
            }
            ConfigError::NoClause45 { chip } => {
                write!(f, "88E{} has no Clause 45 PHY access", chip.name())
            }
            ConfigError::SerdesLane { port } => {
                write!(f, "port {port} has no SERDES lane this driver can reach")
            }
            ConfigError::PortFeature {
                chip,
                port,
                feature,
            } => {
                write!(f, "{feature:?} not supported")?;
                if let Some(chip) = chip {
                    write!(f, " on the 88E{}", chip.name())?;
                }
                if let Some(port) = port {
                    write!(f, " port {port}")?;
                }
                Ok(())
            }
            ConfigError::Fid { fid } => write!(f, "FID {fid} out of range for this chip"),
            ConfigError::Vid { vid } => write!(f, "VID {vid} out of range for this chip"),
            ConfigError::PortVector { ports } => {
                write!(
                    f,
                    "port vector {ports:#06x} names a port the chip does not have"
                )
            }
            ConfigError::Sid { sid } => write!(f, "SID {sid} out of range for this chip"),
            ConfigError::AgeTime { ms } => write!(f, "age time {ms} ms out of range"),
            ConfigError::AtuState { state } => {
                write!(f, "ATU state {state:#x} cannot be loaded for this address")
            }
            ConfigError::UnitUnsupported { unit, chip } => {
                let unit = match unit {
                    SwitchUnit::Vtu => "VTU",
                    SwitchUnit::Stu => "STU",
                };
                write!(f, "the {unit} of the 88E{} is not supported", chip.name())
            }
            ConfigError::TrunkId { id } => write!(f, "trunk ID {id} out of range (0 to 15)"),
            ConfigError::TrunkMask { num } => {
                write!(f, "trunk mask {num} out of range (0 to 7)")
            }
            ConfigError::Priority { value } => {
                write!(f, "priority {value} out of range for its map")
            }
            ConfigError::MirrorBusy { direction, dest } => {
                let dir = match direction {
                    MirrorDirection::Ingress => "ingress",
                    MirrorDirection::Egress => "egress",
                };
                write!(f, "the {dir} mirror destination, port {dest}, is in use")
            }
        }
    }
}

impl core::error::Error for ConfigError {}

/// The family as Linux names it (after its first chip).
const fn family_name(family: Family) -> &'static str {
    match family {
        Family::Mv6085 => "6085",
        Family::Mv6341 => "6341",
        Family::Mv6390 => "6390",
        Family::Mv6393 => "6393",
        Family::Mv6250 => "6250",
    }
}

impl core::fmt::Display for BusyWait {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            BusyWait::SmiCmd => f.write_str("SMI_CMD BUSY"),
            BusyWait::InitReady => f.write_str("G1_STS INIT_READY"),
            BusyWait::AtuOp => f.write_str("G1_ATU_OP BUSY"),
            BusyWait::VtuOp => f.write_str("G1_VTU_OP BUSY"),
            BusyWait::StatsOp => f.write_str("G1_STATS_OP BUSY"),
            BusyWait::SmiPhyCmd => f.write_str("G2_SMI_PHY_CMD BUSY"),
            BusyWait::PpuDisabled => f.write_str("PPU state \"disabled\""),
            BusyWait::PpuPolling => f.write_str("PPU state \"polling\""),
            BusyWait::EepromCmd => f.write_str("G2_EEPROM_CMD BUSY/RUNNING"),
            BusyWait::EepromDone => f.write_str("G1_STS EEPROM done"),
            BusyWait::EepromReload => f.write_str("G1_CTL1 RELOAD_EEPROM"),
            BusyWait::HiddenBusy => f.write_str("hidden register BUSY"),
            BusyWait::Mask { dev, reg } => write!(f, "device {dev:#04x} register {reg:#04x}"),
        }
    }
}

impl core::fmt::Display for BusyTimeout {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let bound = match self.bound {
            Bound::Deadline => "deadline passed",
            Bound::PollLimit => "poll limit reached",
        };
        write!(
            f,
            "timeout waiting for {} ({bound} after {} polls, {} ticks; last value {:#06x})",
            self.wait, self.polls, self.elapsed_ticks, self.last
        )
    }
}

impl core::error::Error for BusyTimeout {}

/// Why a switch access failed. `E` is the MDIO bus's error type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum Error<E> {
    /// An MDIO frame failed; returned as soon as it happens, from any step of an access
    /// (including from inside a busy wait, which then stops polling).
    Mdio(E),
    /// A busy bit did not clear (or INIT_READY did not set) within the configured timeout
    /// ([`Config::timeout_ns`](crate::Config::timeout_ns), default 50 ms). A timeout of
    /// the SMI_CMD wait inside an indirect access is reported as [`BusyWait::SmiCmd`] even
    /// when it happened while polling another register. After it, the next access first
    /// waits for the busy bit again instead of trusting it is clear.
    Timeout(BusyTimeout),
    /// PORT_SWITCH_ID read back a product number that is not in the chip table
    /// (docs/mv88e6xxx.md#identification); 0xFFFF usually means nothing answered at that address.
    UnknownSwitchId {
        /// The raw PORT_SWITCH_ID value.
        raw: u16,
    },
    /// A read of a status register returned 0xFFFF: the switch is not answering (in or
    /// just after a hardware reset, or nothing at that address), so the value is no status
    /// (Linux `global1.c` `mv88e6xxx_g1_is_eeprom_done` takes 0xFFFF the same way). Nothing
    /// was taken: what was pending is returned by a later call once the switch answers.
    NotAnswering {
        /// The SMI device address read.
        dev: u8,
        /// The register read.
        reg: u8,
    },
    /// A setting or an argument the switch cannot take; the [`ConfigError`] names which.
    /// Nothing was written.
    Config(ConfigError),
    /// A CMODE-checked SERDES access ([`Switch::serdes_read_checked`](crate::Switch::serdes_read_checked),
    /// [`serdes_write_checked`](crate::Switch::serdes_write_checked)) found the port's lane
    /// not in use: the CMODE (PORT_STS \[3:0\]) read from `cmode_port` is not a mode
    /// that gives `port` its lane (docs/mv88e6xxx.md#6390-and-6390x-serdes). Returned
    /// after the CMODE reads, before any SMI_PHY frame: nothing was written.
    SerdesCmode {
        /// The port asked for.
        port: u8,
        /// The port whose CMODE ruled the lane out: `port` itself, or on the 6390X's ports
        /// 2–7 port 9 or 10, whose lanes they use.
        cmode_port: u8,
        /// That port's CMODE.
        cmode: u8,
    },
}

impl<E> From<BusyTimeout> for Error<E> {
    fn from(t: BusyTimeout) -> Self {
        Error::Timeout(t)
    }
}

impl<E> From<ConfigError> for Error<E> {
    fn from(e: ConfigError) -> Self {
        Error::Config(e)
    }
}

impl<E: core::fmt::Display> core::fmt::Display for Error<E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Error::Mdio(e) => write!(f, "MDIO frame failed: {e}"),
            Error::Timeout(t) => write!(f, "{t}"),
            Error::UnknownSwitchId { raw } => write!(f, "unknown switch id {raw:#06x}"),
            Error::NotAnswering { dev, reg } => {
                write!(
                    f,
                    "the switch read 0xFFFF at device {dev:#04x} register {reg:#04x}: not answering"
                )
            }
            Error::Config(e) => write!(f, "invalid configuration: {e}"),
            Error::SerdesCmode {
                port,
                cmode_port,
                cmode,
            } => write!(
                f,
                "port {port}'s SERDES lane is not in use (port {cmode_port} CMODE {cmode:#x})"
            ),
        }
    }
}

impl<E: core::error::Error + 'static> core::error::Error for Error<E> {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Error::Mdio(e) => Some(e),
            Error::Timeout(t) => Some(t),
            Error::Config(e) => Some(e),
            Error::UnknownSwitchId { .. }
            | Error::NotAnswering { .. }
            | Error::SerdesCmode { .. } => None,
        }
    }
}

/// Into the family-wide error, keeping the cause as far as hwtimer-core's
/// [`ConfigError`](hwtimer_core::ConfigError) can name it: timeouts stay
/// [`Timeout`](hwtimer_core::Error::Timeout); unknown chips, and modes the switch cannot be
/// reached in ([`ConfigError::AddressingMode`], [`Remap6393x`](ConfigError::Remap6393x),
/// [`HintMismatch`](ConfigError::HintMismatch)), and Clause 45 on a chip without it
/// ([`NoClause45`](ConfigError::NoClause45)), are
/// [`Unsupported`](hwtimer_core::Error::Unsupported); a port, PHY, switch or device address
/// that names nothing, and a port without a SERDES lane (or whose lane its CMODE leaves
/// unused, [`Error::SerdesCmode`]), is
/// [`AddressOutOfRange`](hwtimer_core::ConfigError::AddressOutOfRange); a mirror
/// destination in use ([`MirrorBusy`](ConfigError::MirrorBusy)) is
/// [`ConflictsWithRunning`](hwtimer_core::ConfigError::ConflictsWithRunning); a switch not
/// answering ([`Error::NotAnswering`]) is [`Busy`](hwtimer_core::Error::Busy); MDIO errors
/// convert with their own `Into`.
impl<E: Into<hwtimer_core::Error>> From<Error<E>> for hwtimer_core::Error {
    fn from(e: Error<E>) -> Self {
        use hwtimer_core::ConfigError as Core;
        match e {
            Error::Mdio(e) => e.into(),
            Error::Timeout(_) => hwtimer_core::Error::Timeout,
            Error::NotAnswering { .. } => hwtimer_core::Error::Busy,
            Error::UnknownSwitchId { .. }
            | Error::Config(
                ConfigError::AddressingMode { .. }
                | ConfigError::Remap6393x { .. }
                | ConfigError::HintMismatch { .. }
                | ConfigError::NoClause45 { .. }
                | ConfigError::PortFeature { .. }
                | ConfigError::UnitUnsupported { .. },
            ) => hwtimer_core::Error::Unsupported,
            Error::Config(
                ConfigError::SwitchAddress { .. }
                | ConfigError::Port { .. }
                | ConfigError::Phy { .. }
                | ConfigError::Device { .. }
                | ConfigError::SerdesLane { .. }
                | ConfigError::Fid { .. }
                | ConfigError::Vid { .. }
                | ConfigError::PortVector { .. }
                | ConfigError::Sid { .. }
                | ConfigError::TrunkId { .. }
                | ConfigError::TrunkMask { .. },
            ) => Core::AddressOutOfRange.into(),
            Error::Config(ConfigError::Priority { .. }) => hwtimer_core::Error::Unsupported,
            Error::Config(ConfigError::AgeTime { .. }) => Core::PeriodOutOfRange.into(),
            Error::Config(ConfigError::AtuState { .. }) => hwtimer_core::Error::Unsupported,
            Error::Config(ConfigError::MirrorBusy { .. }) => Core::ConflictsWithRunning.into(),
            Error::SerdesCmode { .. } => Core::AddressOutOfRange.into(),
        }
    }
}
