//! The MAC vocabulary both versions share: the timeouts, the DMA events, the frame filter and
//! [`MacConfig`].

use crate::common::Error;
use crate::common::phy::{Duplex, LinkState, Speed};

/// Linux's MDIO busy-wait timeout (`stmmac_mdio.c`: 10 ms), µs.
pub const MDIO_TIMEOUT_US: u64 = 10_000;
/// Software-reset wait (DMA_BUS_MODE.SWR), µs: Linux's `dwmac_dma_reset` bound (200 ms,
/// polled every 10 ms; some glue waits longer: i.MX 1 s, Loongson 2 s; use
/// [`Dwmac::soft_reset_within`](crate::Dwmac::soft_reset_within) there).
pub const SWR_TIMEOUT_US: u64 = 200_000;

/// The bound of a wait for a DMA process to reach the Stopped state after its ST or SR bit
/// was cleared, in status reads (then one more read is judged, as iopoll does).
///
/// A process stops only after the packet it is on (RT1170 DMA_CH0_TX_CONTROL ST: "the Tx
/// DMA ... stops after completing the current packet"): at worst a 1522-byte frame with
/// preamble and gap at 10 Mbit/s, about 1.23 ms. 65 536 reads last at least 1.3 ms at
/// 20 ns per uncached register read (6.5 ms at 100 ns, the sim bus's cost). The MAC holds
/// no clock, and the stop is also made from the interrupt path, so the bound is a count of
/// reads rather than a deadline on a clocksource. A bus much faster or slower than that,
/// or a test on a block that never stops, sets its own with
/// [`Dwmac::set_stop_polls`](crate::Dwmac::set_stop_polls).
pub const STOP_POLLS: u32 = 65_536;

/// Read with `read` until `stopped` holds, at most `bound` times (at least once) and then
/// once more; the number of reads, or [`Error::Timeout`].
pub(crate) fn wait_stopped(
    mut read: impl FnMut() -> u32,
    stopped: impl Fn(u32) -> bool,
    bound: u32,
) -> Result<u32, Error> {
    let mut polls: u32 = 0;
    while polls < bound.max(1) {
        polls = polls.wrapping_add(1);
        if stopped(read()) {
            return Ok(polls);
        }
    }
    // The read after the bound is the one judged (iopoll semantics).
    if stopped(read()) {
        Ok(polls.wrapping_add(1))
    } else {
        Err(Error::Timeout)
    }
}

/// What the DMA reported, whatever the version: the semantic events of Linux's stmmac
/// `common.h` (its `dma_irq_status` / `stmmac_*_status` vocabulary), as a bit set.
///
/// Each MAC maps its own status word to it in its [`take_events`](crate::Dwmac::take_events)
/// (GMAC 3.x DMA_STATUS in [`gmac3`](crate::gmac3), QoS 4.x/5.x DMA_CH0_STATUS in
/// [`qos`](crate::qos)); the bit positions here are this type's own and no register's.
/// `take_events` reports only the sources enabled in the interrupt-enable register, so with
/// the default mask ([`Dwmac::enable_default_interrupts`](crate::Dwmac::enable_default_interrupts),
/// Linux's) [`TX_STOPPED`](Self::TX_STOPPED), [`RX_STOPPED`](Self::RX_STOPPED) and
/// [`RX_BUFFER_UNAVAILABLE`](Self::RX_BUFFER_UNAVAILABLE) never appear.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DmaEvents(u32);

impl DmaEvents {
    /// No event.
    pub const NONE: Self = Self(0);
    /// A frame whose last descriptor asked for an interrupt was sent (3.x TI, QoS TI).
    pub const TX_COMPLETE: Self = Self(1 << 0);
    /// The TX DMA found no descriptor it owns and suspended (3.x TU, QoS TBU).
    pub const TX_BUFFER_UNAVAILABLE: Self = Self(1 << 1);
    /// The TX process entered the Stopped state (3.x and QoS TPS).
    pub const TX_STOPPED: Self = Self(1 << 2);
    /// The TX FIFO underflowed during a frame (3.x UNF).
    pub const TX_UNDERFLOW: Self = Self(1 << 3);
    /// The transmitter was on for longer than the jabber limit (3.x TJT).
    pub const TX_JABBER: Self = Self(1 << 4);
    /// A frame was received (3.x and QoS RI).
    pub const RX_COMPLETE: Self = Self(1 << 5);
    /// The RX DMA found no descriptor it owns and suspended (3.x RU, QoS RBU). Not enabled
    /// by default: the RX ring's refill rings the doorbell itself.
    pub const RX_BUFFER_UNAVAILABLE: Self = Self(1 << 6);
    /// The RX process entered the Stopped state (3.x and QoS RPS).
    pub const RX_STOPPED: Self = Self(1 << 7);
    /// The RX FIFO overflowed (3.x OVF).
    pub const RX_OVERFLOW: Self = Self(1 << 8);
    /// A received frame was longer than the watchdog allows (3.x and QoS RWT; not RIWT).
    pub const RX_WATCHDOG: Self = Self(1 << 9);
    /// A bus error stopped both DMA engines (3.x FBI, QoS FBE).
    pub const FATAL_BUS_ERROR: Self = Self(1 << 10);
    /// The early-transmit interrupt (3.x and QoS ETI).
    pub const EARLY_TX: Self = Self(1 << 11);
    /// The early-receive interrupt (3.x and QoS ERI).
    pub const EARLY_RX: Self = Self(1 << 12);
    /// The abnormal interrupt summary (3.x and QoS AIS).
    pub const ABNORMAL: Self = Self(1 << 13);
    /// The normal interrupt summary (3.x and QoS NIS).
    pub const NORMAL: Self = Self(1 << 14);
    const ALL: u32 = (1 << 15) - 1;

    /// This set's bits (this type's own positions, for storing in an atomic).
    #[inline]
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// The set whose [`bits`](Self::bits) are `bits`; bits this type does not define are
    /// dropped.
    #[inline]
    pub const fn from_bits(bits: u32) -> Self {
        Self(bits & Self::ALL)
    }

    /// The events a status word `st` shows, through `map` (bit of the word, its event):
    /// each version's decode.
    /// Inlined into each version's decode, where `map` is a constant table: the loop
    /// unrolls into a few masks on the interrupt path.
    #[inline]
    pub(crate) fn from_word(st: u32, map: &[(u32, DmaEvents)]) -> Self {
        let mut bits = 0;
        for &(bit, ev) in map {
            if st & bit != 0 {
                bits |= ev.0;
            }
        }
        Self(bits)
    }

    /// Both sets.
    #[must_use]
    #[inline]
    pub const fn union(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    /// Every event of `other` is in this set.
    #[inline]
    pub const fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }

    /// Any event of `other` is in this set.
    #[inline]
    pub const fn intersects(self, other: Self) -> bool {
        self.0 & other.0 != 0
    }

    /// Nothing happened.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// [`TX_COMPLETE`](Self::TX_COMPLETE): TX descriptors can be reclaimed ("TX space freed"
    /// once [`TxRing::service`](crate::TxRing::service) ran).
    #[inline]
    pub const fn tx_done(self) -> bool {
        self.intersects(Self::TX_COMPLETE)
    }

    /// [`RX_COMPLETE`](Self::RX_COMPLETE): a frame was received ("RX ready"); QEMU raises it
    /// together with [`RX_BUFFER_UNAVAILABLE`](Self::RX_BUFFER_UNAVAILABLE).
    #[inline]
    pub const fn rx_ready(self) -> bool {
        self.intersects(Self::RX_COMPLETE)
    }

    /// [`RX_BUFFER_UNAVAILABLE`](Self::RX_BUFFER_UNAVAILABLE): the RX DMA suspended (seen
    /// only when that source is enabled; not by default).
    #[inline]
    pub const fn rx_no_buffer(self) -> bool {
        self.intersects(Self::RX_BUFFER_UNAVAILABLE)
    }

    /// [`TX_UNDERFLOW`](Self::TX_UNDERFLOW) or [`TX_JABBER`](Self::TX_JABBER) (3.x UNF,
    /// TJT) with [`ABNORMAL`](Self::ABNORMAL) in the same read: the TX ring restarts the
    /// DMA in [`TxRing::service`](crate::TxRing::service).
    ///
    /// [`TX_STOPPED`](Self::TX_STOPPED) is no fault: every stop raises it, a deliberate one
    /// too. Linux handles the abnormal causes only under AIS (`dwmac_dma_interrupt`,
    /// `dwmac4_dma_interrupt`: the whole abnormal block is inside `if (AIS)`), and enables
    /// neither TPS nor RPS (dwmac_dma.h `DMA_INTR_DEFAULT_MASK`, dwmac4_dma.h
    /// `DMA_CHAN_INTR_DEFAULT_MASK`).
    #[inline]
    pub const fn tx_fault(self) -> bool {
        self.intersects(Self::ABNORMAL)
            && self.intersects(Self(Self::TX_UNDERFLOW.0 | Self::TX_JABBER.0))
    }

    /// [`FATAL_BUS_ERROR`](Self::FATAL_BUS_ERROR) with [`ABNORMAL`](Self::ABNORMAL) in the
    /// same read: both DMA engines stopped, both rings restart them. The only event that
    /// restarts RX: RX_STOPPED, RX_BUFFER_UNAVAILABLE, RX_OVERFLOW and RX_WATCHDOG are
    /// only counted by Linux, never acted on (`dwmac_dma_interrupt`,
    /// `dwmac4_dma_interrupt`).
    #[inline]
    pub const fn fatal(self) -> bool {
        self.intersects(Self::ABNORMAL) && self.intersects(Self::FATAL_BUS_ERROR)
    }
}

impl core::ops::BitOr for DmaEvents {
    type Output = Self;
    #[inline]
    fn bitor(self, rhs: Self) -> Self {
        self.union(rhs)
    }
}

impl core::ops::BitOrAssign for DmaEvents {
    fn bitor_assign(&mut self, rhs: Self) {
        *self = self.union(rhs);
    }
}

/// The destination-address filter (GMAC_FRAME_FILTER / MAC_PACKET_FILTER and the multicast
/// hash table).
///
/// Unicast frames always pass when they match MAC address 0 ([`Dwmac::set_mac_address`](crate::Dwmac::set_mac_address)).
/// QEMU's npcm-gmac does not filter at all; real cores drop what this does not accept,
/// so IPv6 neighbour discovery needs its solicited-node groups here (or
/// `all_multicast`).
///
/// The multicast groups are kept in a 256-bin table (the top 8 bits of the bit-reversed
/// CRC-32 of the address); each MAC folds it to the table its core has, 64, 128 or 256
/// bins (GMAC 3.x: 64 in GMAC_HASH_LOW/HIGH; QoS: HW_FEATURE1.HASHTBLSZ), keeping the top
/// 6, 7 or 8 bits, as Linux `dwmac1000_set_filter` / `dwmac4_set_filter` compute the bin
/// for their `mcbitslog2`. A larger table lets fewer other groups through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct FrameFilter {
    /// Accept every frame (PR).
    pub promiscuous: bool,
    /// Accept every multicast frame (PM).
    pub all_multicast: bool,
    /// Accept broadcast frames (DBF clear).
    pub broadcast: bool,
    /// The 256-bin multicast table: bit `n % 32` of word `n / 32` for bin `n`
    /// ([`multicast_hash_bin8`]); fill it with [`add_multicast`](Self::add_multicast).
    pub multicast_hash: [u32; 8],
}

impl Default for FrameFilter {
    /// Our unicast address and broadcast only.
    fn default() -> Self {
        Self {
            promiscuous: false,
            all_multicast: false,
            broadcast: true,
            multicast_hash: [0; 8],
        }
    }
}

impl FrameFilter {
    /// The filter register's PM bit (pass all multicast; bit 4 on both versions).
    pub(crate) const PM: u32 = 1 << 4;

    /// Also accept the multicast group `addr` (through its hash bin; other groups in the
    /// same bin pass too).
    pub fn add_multicast(&mut self, addr: [u8; 6]) {
        let n = multicast_hash_bin8(addr);
        if let Some(w) = self.multicast_hash.get_mut(usize::from(n >> 5)) {
            *w |= 1 << (n & 31);
        }
    }

    /// Whether a table of `bins` bins (64, 128 or 256; other values count as 64) lets
    /// `addr` through.
    pub fn hash_accepts(&self, addr: [u8; 6], bins: u32) -> bool {
        let words = self.hash_words(bins);
        let n = usize::from(multicast_hash_bin8(addr) >> 8u32.saturating_sub(bin_bits(bins)));
        words.get(n >> 5).is_some_and(|w| w & (1 << (n & 31)) != 0)
    }

    /// Whether any multicast group was added.
    pub fn has_multicast(&self) -> bool {
        self.multicast_hash != [0; 8]
    }

    /// The table folded to `bins` bins (64, 128 or 256; other values count as 64): the
    /// hash registers' values, word `i` for register `i` (GMAC 3.x: HASH_LOW, HASH_HIGH;
    /// QoS: MAC_HASH_TABLE_REG`i`); the words past `bins / 32` are 0.
    pub fn hash_words(&self, bins: u32) -> [u32; 8] {
        // `bin_bits` is 6 to 8: no saturation.
        let shift = 8u32.saturating_sub(bin_bits(bins));
        let mut out = [0u32; 8];
        for n in 0..256usize {
            let set = self
                .multicast_hash
                .get(n >> 5)
                .is_some_and(|w| w & (1 << (n & 31)) != 0);
            if set {
                let m = n >> shift;
                if let Some(w) = out.get_mut(m >> 5) {
                    *w |= 1 << (m & 31);
                }
            }
        }
        out
    }

    /// The filter register's value (the same bits on both versions): PR, HMC while a
    /// group is in the table, PM, DBF.
    pub fn register(&self) -> u32 {
        let mut v = 0;
        if self.promiscuous {
            v |= 1 << 0; // PR
        }
        if self.has_multicast() {
            v |= 1 << 2; // HMC
        }
        if self.all_multicast {
            v |= Self::PM;
        }
        if !self.broadcast {
            v |= 1 << 5; // DBF
        }
        v
    }
}

/// log2 of a table size: 7 for 128, 8 for 256, else 6 (64).
const fn bin_bits(bins: u32) -> u32 {
    match bins {
        128 => 7,
        256 => 8,
        _ => 6,
    }
}

/// The multicast hash bin (0..64) of `addr` in a 64-bin table: the upper 6 bits of the
/// bit-reversed IEEE 802.3 CRC-32 of the address (Linux `dwmac1000_set_filter`:
/// `bitrev32(~crc32_le(~0, addr, 6)) >> 26`).
///
/// ```
/// use stmmac_coalesce::multicast_hash_bin;
/// // IPv6 all-nodes 33:33:00:00:00:01 and IPv4 all-hosts 01:00:5e:00:00:01.
/// assert_eq!(multicast_hash_bin([0x33, 0x33, 0, 0, 0, 1]), 0x01);
/// assert_eq!(multicast_hash_bin([0x01, 0x00, 0x5e, 0, 0, 1]), 0x20);
/// ```
pub const fn multicast_hash_bin(addr: [u8; 6]) -> u8 {
    multicast_hash_bin8(addr) >> 2
}

/// The bin (0..256) of `addr` in a 256-bin table: the upper 8 bits of the bit-reversed
/// CRC-32 (Linux `dwmac4_set_filter` with `mcbitslog2` 8); a smaller table's bin is its
/// top 6 or 7 bits.
pub const fn multicast_hash_bin8(addr: [u8; 6]) -> u8 {
    const fn step(mut crc: u32, byte: u8) -> u32 {
        crc ^= byte as u32;
        let mut b = 0u32;
        while b < 8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
            b = b.wrapping_add(1);
        }
        crc
    }
    let [a0, a1, a2, a3, a4, a5] = addr;
    let crc = step(
        step(step(step(step(step(0xFFFF_FFFF, a0), a1), a2), a3), a4),
        a5,
    );
    ((!crc).reverse_bits() >> 24) as u8
}

/// MAC settings applied at bring-up by [`Dwmac::init_mac`](crate::Dwmac::init_mac).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MacConfig {
    /// Our station address (MAC address 0).
    pub address: [u8; 6],
    /// The receive filter.
    pub filter: FrameFilter,
}

pub(crate) fn encode_link(l: LinkState) -> u32 {
    let speed = match l.speed {
        Speed::M10 => 0,
        Speed::M100 => 1,
        Speed::M1000 => 2,
    };
    u32::from(l.up) | speed << 1 | u32::from(l.duplex == Duplex::Full) << 3
}

pub(crate) fn decode_link(v: u32) -> LinkState {
    LinkState {
        up: v & 1 != 0,
        speed: match (v >> 1) & 3 {
            0 => Speed::M10,
            1 => Speed::M100,
            _ => Speed::M1000,
        },
        duplex: if v & 8 != 0 {
            Duplex::Full
        } else {
            Duplex::Half
        },
    }
}

/// Take a MAC's single MDIO master (`taken` is its flag): [`Error::MdioBusy`] while another
/// is alive. A load and a store in a critical section: no exclusive access (LDREX/STREX)
/// needed, which is unpredictable on strongly-ordered memory (MMU off).
pub(crate) fn take_master(taken: &core::sync::atomic::AtomicBool) -> Result<(), Error> {
    use core::sync::atomic::Ordering;
    critical_section::with(|_| {
        if taken.load(Ordering::Relaxed) {
            return Err(Error::MdioBusy);
        }
        taken.store(true, Ordering::Relaxed);
        Ok(())
    })
}

/// Wait on `poller` until the MDIO busy bit (GB) reads clear: `read` reads the address
/// register, `idle` judges it. Sets `check_busy` when the wait timed out, so that the next
/// frame waits for GB before it writes, and clears it otherwise. Both versions' masters
/// (MII_ADDR.GB on GMAC 3.x, MAC_MDIO_ADDRESS.GB on QoS 4.x/5.x) wait through it.
pub(crate) fn mdio_wait_idle<C: hwtimer_core::Continuous + Copy, T>(
    poller: &hwtimer_core::Poller<C>,
    check_busy: &mut bool,
    read: impl FnMut() -> T,
    idle: impl FnMut(&T) -> bool,
) -> Result<(), hwtimer_core::Error> {
    let done = poller.poll(read, idle).is_ok();
    *check_busy = !done;
    if done {
        Ok(())
    } else {
        Err(hwtimer_core::Error::Timeout)
    }
}

/// The software-reset wait of both versions: poll `read` on `clock` until `done` holds
/// (SWR reads clear), at most `timeout_us` with iopoll semantics; the number of reads, or
/// [`Error::Timeout`].
pub(crate) fn wait_reset<C: hwtimer_core::Continuous + Copy, T>(
    clock: C,
    timeout_us: u64,
    read: impl FnMut() -> T,
    done: impl FnMut(&T) -> bool,
) -> Result<u32, Error> {
    hwtimer_core::Poller::new(clock)
        .timeout_us(timeout_us)
        .poll(read, done)
        .map(|p| p.polls)
        .map_err(|_| Error::Timeout)
}
