//! The checksum offload engines a core announces ([`Coe`]) and whether a ring uses them
//! ([`Offload`]).

/// The RX checksum offload engine HW_FEATURE announces ([`Coe::rx`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RxCoe {
    /// No RX checksum offload engine.
    None,
    /// Type 1 (RXTYP1COE, bit 17): IP header and payload checksum errors in RDES0.
    Type1,
    /// Type 2 (RXTYP2COE, bit 18): full offload; wins when both bits are set.
    Type2,
}

/// The checksum offload engines (COE) of the core, from HW_FEATURE ([`gmac3::coe_from_hw_feature`](crate::gmac3::coe_from_hw_feature),
/// [`DmaSetup::coe`](crate::DmaSetup::coe), [`Gmac3::coe`](crate::Gmac3::coe)).
///
/// See [Checksum offload](crate#checksum-offload) for what the rings do with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Coe {
    /// TX checksum insertion (TXCOESEL, bit 16).
    pub tx: bool,
    /// RX checksum checking.
    pub rx: RxCoe,
}

impl Coe {
    /// Whether the core checks RX checksums (type 1 or type 2).
    pub const fn rx_checks(self) -> bool {
        !matches!(self.rx, RxCoe::None)
    }
}

/// Whether a ring uses the checksum offload engine
/// ([`TxRing::set_checksum_offload`](crate::TxRing::set_checksum_offload),
/// [`RxRing::set_checksum_offload`](crate::RxRing::set_checksum_offload)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Offload {
    /// Never (the default: the stack computes and verifies every checksum).
    #[default]
    Off,
    /// When HW_FEATURE announces the engine ([`DmaSetup::coe`](crate::DmaSetup::coe)); off when HW_FEATURE does
    /// not exist.
    IfDetected,
    /// Even without HW_FEATURE (a pre-3.50a core whose documentation says it has the
    /// engine). TX: the firmware's promise, not checked (a core without the engine sends
    /// frames whose checksums the stack left out; no memory is at stake). RX: checked at
    /// [`RxRing::start`](crate::RxRing::start) by reading GMAC_CONTROL.IPC back, as Linux's
    /// `rx_ipc` does (a core without the engine keeps the bit 0).
    Assume,
}
