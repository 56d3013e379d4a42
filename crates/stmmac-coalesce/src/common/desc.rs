//! What descriptors say, whatever the layout: what a TX descriptor is handed over with
//! ([`TxPrep`]) and what an RX write-back says ([`RxStatus`], [`RxErrors`]). Each version's
//! descriptor code (`gmac3::desc`, `qos::desc`) speaks these.

/// OWN, bit 31 of the owner word in every layout (GMAC 3.x RDES0/TDES0, QoS RDES3/TDES3;
/// Linux `descs.h` and `dwmac4_descs.h`).
pub(crate) const OWN: u32 = 1 << 31;

/// CIC value for full insertion: IP header, and TCP/UDP/ICMP with the pseudo-header.
pub(crate) const CIC_FULL: u32 = 3;

/// What a TX descriptor is handed over with.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TxPrep {
    /// Buffer bus address (above 32 bits only in the QoS layout).
    pub buf: u64,
    /// Bytes in the buffer.
    pub len: u32,
    /// Interrupt on completion.
    pub ic: bool,
    /// Last descriptor of the ring (TER; the QoS ring length register wraps instead).
    pub end_of_ring: bool,
    /// The control bits every frame of the ring carries ([`tx_ctl`]).
    pub ctl: u32,
}

/// An RX write-back, decoded the same way for every layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RxStatus {
    pub own: bool,
    pub first: bool,
    pub last: bool,
    /// A QoS context descriptor (timestamp): no frame data, skipped.
    pub ctxt: bool,
    /// Frame length including the FCS; valid on the last descriptor.
    pub fl: u32,
    /// An error the frame is dropped for ([`rx_errors`] names the causes).
    pub drop: bool,
}

/// The error causes an RX write-back names, as a set (Linux `common.h`'s
/// `stmmac_rx_frame_status` and the `stmmac_extra_stats` counters they feed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct RxErrors(u16);

impl RxErrors {
    pub(crate) const NONE: Self = Self(0);
    /// The error summary (ES; on QoS also the giant-packet flag).
    pub(crate) const SUMMARY: Self = Self(1 << 0);
    /// The 802.3 length field disagrees with the frame.
    pub(crate) const LENGTH_FIELD: Self = Self(1 << 1);
    /// The PHY signalled a receive error (RX_ER).
    pub(crate) const MII: Self = Self(1 << 2);
    /// Wrong FCS.
    pub(crate) const CRC: Self = Self(1 << 3);
    /// Not a whole number of bytes (MII); alone it drops nothing.
    pub(crate) const DRIBBLE: Self = Self(1 << 4);
    /// The RX FIFO overflowed.
    pub(crate) const OVERFLOW: Self = Self(1 << 5);
    /// Receive watchdog (jabber).
    pub(crate) const WATCHDOG: Self = Self(1 << 6);
    /// Late collision.
    pub(crate) const LATE_COLLISION: Self = Self(1 << 7);
    /// The frame did not fit the descriptors.
    pub(crate) const DESCRIPTOR: Self = Self(1 << 8);
    /// The core found the IPv4 header checksum wrong.
    pub(crate) const IP_HEADER_CHECKSUM: Self = Self(1 << 9);
    /// The core found the TCP/UDP/ICMP checksum wrong.
    pub(crate) const PAYLOAD_CHECKSUM: Self = Self(1 << 10);

    /// Both sets.
    pub(crate) const fn union(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    /// Any cause of `other` is in this set.
    pub(crate) const fn intersects(self, other: Self) -> bool {
        self.0 & other.0 != 0
    }

    /// No cause.
    pub(crate) const fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl core::ops::BitOr for RxErrors {
    type Output = Self;
    fn bitor(self, rhs: Self) -> Self {
        self.union(rhs)
    }
}
