//! [`Measured`]: a cost probe around any [`smoltcp::phy::Device`], in the manner of
//! smoltcp's own middleware ([`Tracer`](smoltcp::phy::Tracer),
//! [`FaultInjector`](smoltcp::phy::FaultInjector)).

use core::sync::atomic::{Ordering, compiler_fence};

use smoltcp::phy::{self, DeviceCapabilities, PacketMeta};
use smoltcp::time::Instant;

/// A free-running counter (for example the CPU's retired-instruction counter) that
/// [`Measured`] reads around the wrapped device's work. It may wrap at 32 bits. Any
/// `Fn() -> u64` is a probe (a direct, inlinable call), as is a type of the caller's own.
pub trait CostProbe {
    /// The counter now.
    fn read(&self) -> u64;
}

impl<F: Fn() -> u64> CostProbe for F {
    #[inline]
    fn read(&self) -> u64 {
        self()
    }
}

/// What a [`Measured`] device counted. A span between two readings leaves out what one
/// reading of the probe costs ([`Measured::probe_cost`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MeasuredStats {
    /// RX tokens consumed.
    pub rx_frames: u64,
    /// TX tokens consumed (from `transmit()` and the replies of `receive()`).
    pub tx_frames: u64,
    /// Units of the wrapped device's RX path: the `receive()` call that returned the token
    /// (with the reservation of its reply token, which a device makes there: smoltcp takes
    /// both tokens from that one call, so a wrapper cannot split it), plus its `consume`
    /// without the stack's closure (for this crate's device: lending or copying the frame
    /// and giving its descriptors back).
    pub rx_driver_units: u64,
    /// Units of whole RX tokens: [`rx_driver_units`](Self::rx_driver_units) plus the
    /// stack's closure (parsing and processing the frame).
    pub rx_token_units: u64,
    /// Units of the wrapped device's TX path: the `transmit()` call that returned the token
    /// (none for a reply token: its call is in [`rx_driver_units`](Self::rx_driver_units)),
    /// plus its `consume` without the stack's closure (the handover to the hardware).
    pub tx_driver_units: u64,
    /// Units of whole TX tokens: [`tx_driver_units`](Self::tx_driver_units) plus the stack
    /// writing the frame.
    pub tx_token_units: u64,
    /// `receive()` calls that returned `None`.
    pub rx_empty_polls: u64,
    /// Units of those calls.
    pub rx_empty_units: u64,
    /// `transmit()` calls that returned `None`.
    pub tx_empty_polls: u64,
    /// Units of those calls.
    pub tx_empty_units: u64,
}

/// `b - a` of a counter that may wrap at 32 bits.
fn wrap_span(a: u64, b: u64) -> u64 {
    b.wrapping_sub(a) & 0xFFFF_FFFF
}

/// A probe and what one reading of it costs.
#[derive(Debug, Clone, Copy)]
struct Probe<P> {
    probe: P,
    cost: u64,
}

impl<P: CostProbe> Probe<P> {
    /// A reading that is a compiler fence on both sides: no memory access moves across
    /// it, so a span holds the code between its readings in program order (neither the
    /// stack's moves into the device's span nor the device's out of it).
    #[inline(always)]
    fn read(&self) -> u64 {
        compiler_fence(Ordering::SeqCst);
        let now = self.probe.read();
        compiler_fence(Ordering::SeqCst);
        now
    }

    /// What the code between readings `a` and `b` cost, without the probe itself.
    #[inline(always)]
    fn span(&self, a: u64, b: u64) -> u64 {
        wrap_span(a, b).saturating_sub(self.cost)
    }

    /// The smallest of a few back-to-back spans (an interrupt may land in one of them).
    fn calibrate(probe: P) -> Self {
        let mut cost = u64::MAX;
        for _ in 0..4 {
            let a = probe.read();
            cost = cost.min(wrap_span(a, probe.read()));
        }
        Self { probe, cost }
    }
}

/// A [`phy::Device`] that measures `D`'s share of every token with a [`CostProbe`], and
/// the stack's share apart: around each `receive()` and `transmit()` call, and around each
/// token's `consume` with the stack's closure taken out. Wrap the device a stack polls
/// (`iface.poll(now, &mut measured, &mut sockets)`); reach the device itself through
/// [`inner`](Self::inner) / [`inner_mut`](Self::inner_mut).
///
/// # What a frame's driver share holds
///
/// - **RX** ([`MeasuredStats::rx_driver_units`]): the whole `receive()` call that returned
///   the frame, the reservation of the reply token included (smoltcp's `receive()` hands
///   out both tokens, so the device reserves the reply there, used or not), then the RX
///   token's `consume` up to the stack's closure and from its return.
/// - **TX** ([`MeasuredStats::tx_driver_units`]): the whole `transmit()` call that returned
///   the token, then its `consume` outside the stack's closure (for this crate's device:
///   IC and timer decision, handover, doorbell). A reply token adds its `consume` only.
///
/// Each reading is a compiler fence on both sides, and the stack's closure is wrapped
/// before the first one, so a span holds the code between its readings in program order:
/// building the wrapper around the stack's closure (a copy of what it captured) is not
/// counted as the device's work, and no memory access of the device's moves out of its
/// span. The spans leave out one reading each ([`probe_cost`](Self::probe_cost)); the
/// wrapper's own bookkeeping runs after the last reading of a token.
///
/// ```
/// use hwtimer_core::sim::{SimBus, SimClock, SimCounter};
/// use std::cell::Cell;
/// use stmmac_coalesce::mdio_bus::{PhyAddr, sim::PhyModel};
/// use stmmac_coalesce::net::Measured;
/// use stmmac_coalesce::net::smoltcp_crate::phy::{Device as _, TxToken as _};
/// use stmmac_coalesce::net::smoltcp_crate::time::Instant;
/// use stmmac_coalesce::sim::{Gmac3Model, SIM_CSR_HZ, SimArena};
/// use stmmac_coalesce::smoltcp::Device;
/// use stmmac_coalesce::{
///     CoalesceConfig, Coherent, DmaConfig, Duplex, Dwmac, Gmac3, LinkState, NoTimer, RxConfig, RxRing, Speed,
///     TxConfig, TxRing,
/// };
///
/// // The GMAC 3.x model and a ring pair (see the crate docs for the bring-up).
/// let sim = SimClock::new();
/// let arena = SimArena::new(0x1000_0000, 256 * 1024);
/// let phy = PhyModel::bcm54612e(PhyAddr::new(0).unwrap());
/// let mac = Gmac3::new(SimBus::new(&sim, Gmac3Model::new(arena.clone(), phy, SIM_CSR_HZ)));
/// mac.soft_reset(&SimCounter::new(&sim, 32, 25_000_000))?;
/// let setup = mac.configure_dma(&DmaConfig { csr_hz: SIM_CSR_HZ, ..DmaConfig::default() })?;
/// let no_timer = CoalesceConfig { tx_usecs: 0, ..CoalesceConfig::default() }; // IC only
/// let mut tx = TxRing::new(arena.region(64 * 1024).unwrap(), &arena, &setup,
///     TxConfig { coalesce: no_timer, ..TxConfig::default() }, NoTimer, Coherent)?;
/// let mut rx = RxRing::new(arena.region(64 * 1024).unwrap(), &arena, &setup,
///     RxConfig { descriptors: 16, ..RxConfig::default() }, Coherent)?;
/// tx.start(&mac);
/// rx.start(&mac);
/// mac.set_link(LinkState::up(Speed::M1000, Duplex::Full));
///
/// let mut scratch = [0u8; 1518];
/// // Any free-running counter; here one that counts its own readings.
/// let clock = Cell::new(0u64);
/// let tick = || { clock.set(clock.get() + 1); clock.get() };
/// let dev = Device::new(&mac, &mut tx, &mut rx, &mut scratch);
/// let mut dev = Measured::new(dev, tick);
/// assert!(dev.receive(Instant::ZERO).is_none());     // an empty poll
/// dev.transmit(Instant::ZERO).unwrap().consume(60, |b| b.fill(0xAB));
/// let s = dev.stats();
/// assert_eq!((s.tx_frames, s.rx_empty_polls), (1, 1));
/// assert_eq!(dev.inner().stats().tx_frames, 1);     // the device's own count
/// # Ok::<(), stmmac_coalesce::Error>(())
/// ```
#[derive(Debug)]
pub struct Measured<D, P> {
    inner: D,
    probe: Probe<P>,
    stats: MeasuredStats,
}

impl<D: phy::Device, P: CostProbe> Measured<D, P> {
    /// Measure `inner` with `probe`. The probe's own cost is measured here (two readings
    /// back to back, the smallest of four tries) and left out of every span.
    pub fn new(inner: D, probe: P) -> Self {
        Self {
            inner,
            probe: Probe::calibrate(probe),
            stats: MeasuredStats::default(),
        }
    }

    /// The wrapped device.
    pub fn inner(&self) -> &D {
        &self.inner
    }

    /// The wrapped device, mutably.
    pub fn inner_mut(&mut self) -> &mut D {
        &mut self.inner
    }

    /// The wrapped device, unwrapped.
    pub fn into_inner(self) -> D {
        self.inner
    }

    /// The counters.
    pub fn stats(&self) -> MeasuredStats {
        self.stats
    }

    /// A reading of the probe, for a caller that measures around the device with the same
    /// counter.
    #[inline(always)]
    pub fn probe_read(&self) -> u64 {
        self.probe.read()
    }

    /// What one reading of the probe costs, in its units (left out of every span).
    pub fn probe_cost(&self) -> u64 {
        self.probe.cost
    }
}

impl<D: phy::Device, P: CostProbe> phy::Device for Measured<D, P> {
    type RxToken<'a>
        = RxToken<'a, D::RxToken<'a>, P>
    where
        Self: 'a;
    type TxToken<'a>
        = TxToken<'a, D::TxToken<'a>, P>
    where
        Self: 'a;

    fn receive(&mut self, timestamp: Instant) -> Option<(Self::RxToken<'_>, Self::TxToken<'_>)> {
        let Self {
            inner,
            probe,
            stats,
        } = self;
        let probe = &*probe;
        let t0 = probe.read();
        let got = inner.receive(timestamp);
        let spent = probe.span(t0, probe.read());
        let Some((rx, tx)) = got else {
            stats.rx_empty_polls = stats.rx_empty_polls.wrapping_add(1);
            stats.rx_empty_units = stats.rx_empty_units.wrapping_add(spent);
            return None;
        };
        // One token pair borrows the counters at a time: the RX token's counts go through
        // a cell shared with the reply token.
        let stats = core::cell::Cell::from_mut(stats);
        let stats = Shared(stats);
        Some((
            RxToken {
                token: rx,
                stats: stats.clone(),
                probe,
                spent,
            },
            TxToken {
                token: tx,
                stats,
                probe,
                spent: 0,
            },
        ))
    }

    fn transmit(&mut self, timestamp: Instant) -> Option<Self::TxToken<'_>> {
        let Self {
            inner,
            probe,
            stats,
        } = self;
        let probe = &*probe;
        let t0 = probe.read();
        let got = inner.transmit(timestamp);
        let spent = probe.span(t0, probe.read());
        let Some(token) = got else {
            stats.tx_empty_polls = stats.tx_empty_polls.wrapping_add(1);
            stats.tx_empty_units = stats.tx_empty_units.wrapping_add(spent);
            return None;
        };
        Some(TxToken {
            token,
            stats: Shared(core::cell::Cell::from_mut(stats)),
            probe,
            spent,
        })
    }

    fn capabilities(&self) -> DeviceCapabilities {
        self.inner.capabilities()
    }
}

/// The counters, shared by the two tokens of one `receive()`.
#[derive(Clone)]
struct Shared<'a>(&'a core::cell::Cell<MeasuredStats>);

impl Shared<'_> {
    fn update(&self, f: impl FnOnce(&mut MeasuredStats)) {
        let mut s = self.0.get();
        f(&mut s);
        self.0.set(s);
    }
}

/// An RX token of a [`Measured`] device.
pub struct RxToken<'a, R, P> {
    token: R,
    stats: Shared<'a>,
    probe: &'a Probe<P>,
    spent: u64,
}

/// A TX token of a [`Measured`] device.
pub struct TxToken<'a, T, P> {
    token: T,
    stats: Shared<'a>,
    probe: &'a Probe<P>,
    spent: u64,
}

/// Run the stack's closure `f` on `b` between two readings, kept in `s`.
#[inline(always)]
fn stack_part<P: CostProbe, B, T>(
    probe: &Probe<P>,
    s: &mut Option<(u64, u64)>,
    f: impl FnOnce(B) -> T,
    b: B,
) -> T {
    let s0 = probe.read();
    let r = f(b);
    *s = Some((s0, probe.read()));
    r
}

/// Which way a token goes.
#[derive(Clone, Copy)]
enum Way {
    Rx,
    Tx,
}

impl Shared<'_> {
    /// Count one consumed token: `spent` in the call that handed it out, then the readings
    /// before its `consume` (`t0`), around the stack's closure (`s`, `None` if it never
    /// ran) and after it (`end`).
    fn token<P: CostProbe>(
        &self,
        way: Way,
        probe: &Probe<P>,
        spent: u64,
        (t0, s, end): (u64, Option<(u64, u64)>, u64),
    ) {
        let (driver, stack) = match s {
            Some((s0, s1)) => (
                probe.span(t0, s0).wrapping_add(probe.span(s1, end)),
                probe.span(s0, s1),
            ),
            None => (probe.span(t0, end), 0),
        };
        let driver = spent.wrapping_add(driver);
        self.update(|st| {
            let (frames, driver_units, token_units) = match way {
                Way::Rx => (
                    &mut st.rx_frames,
                    &mut st.rx_driver_units,
                    &mut st.rx_token_units,
                ),
                Way::Tx => (
                    &mut st.tx_frames,
                    &mut st.tx_driver_units,
                    &mut st.tx_token_units,
                ),
            };
            *frames = frames.wrapping_add(1);
            *driver_units = driver_units.wrapping_add(driver);
            *token_units = token_units.wrapping_add(driver.wrapping_add(stack));
        });
    }
}

impl<R: phy::RxToken, P: CostProbe> phy::RxToken for RxToken<'_, R, P> {
    fn consume<T, F>(self, f: F) -> T
    where
        F: FnOnce(&[u8]) -> T,
    {
        let Self {
            token,
            stats,
            probe,
            spent,
        } = self;
        let mut s = None;
        // The stack's closure is wrapped before the first reading and runs between the
        // second and third: building the wrapper (a copy of what `f` captured) is not the
        // device's work.
        let stack = |b: &[u8]| stack_part(probe, &mut s, f, b);
        let t0 = probe.read();
        let r = token.consume(stack);
        let end = probe.read();
        stats.token(Way::Rx, probe, spent, (t0, s, end));
        r
    }

    fn meta(&self) -> PacketMeta {
        self.token.meta()
    }
}

impl<T: phy::TxToken, P: CostProbe> phy::TxToken for TxToken<'_, T, P> {
    fn consume<R, F>(self, len: usize, f: F) -> R
    where
        F: FnOnce(&mut [u8]) -> R,
    {
        let Self {
            token,
            stats,
            probe,
            spent,
        } = self;
        let mut s = None;
        let stack = |b: &mut [u8]| stack_part(probe, &mut s, f, b);
        let t0 = probe.read();
        let r = token.consume(len, stack);
        let end = probe.read();
        stats.token(Way::Tx, probe, spent, (t0, s, end));
        r
    }

    fn set_meta(&mut self, meta: PacketMeta) {
        self.token.set_meta(meta);
    }
}
