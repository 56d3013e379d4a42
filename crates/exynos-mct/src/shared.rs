//! The registers the FRC and the comparators share (`G_TCON`, `G_INT_ENB`) and which parts
//! are handed out: the [`Mct`]'s mirrors (under the shared-register lock), the `taken`
//! bits (in a short critical section) and the shared-register lock (the rules: [Shared registers](Mct#shared-registers)).

use core::sync::atomic::Ordering;

use critical_section::CriticalSection;
use hwtimer_core::{Claim, RegisterBusExt};

use crate::lock::{Guard, Owner};
use crate::wstat::{Bound, HwError};
use crate::{Mct, drop_count, regs};

/// Lock flag (kept in the shared-register lock's free word, see `lock`): the last `G_TCON`
/// write's wait timed out, so its acknowledgement is still owed (see
/// [`write_buffered`](Mct::write_buffered)): the next `G_TCON` section waits for it first.
pub(crate) const TCON_OWED: u32 = 1;
/// Lock flag: the `G_TCON` mirror may not be what the register holds (a write whose
/// acknowledgement never came may or may not have landed), so the next write goes out even
/// if it would not change the mirror.
pub(crate) const TCON_UNKNOWN: u32 = 2;

/// `repr(C)` with the padding named: the struct is copied in and out of its cell at every
/// change, and with no padding bytes that copy is three word moves, not a `memcpy` call.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C)]
pub(crate) struct Shadow {
    /// Bit `n` (0..4): comparator `n` handed out; bit `4 + i`: local timer `i`.
    pub(crate) taken: u32,
}

/// Run `f` in a critical section: every critical section of the driver goes through here.
#[inline]
pub(crate) fn with_cs<R>(f: impl FnOnce(CriticalSection<'_>) -> R) -> R {
    critical_section::with(f)
}

impl<B: Claim<Word = u32>> Mct<B> {
    pub(crate) fn update_shadow(&self, f: impl FnOnce(&mut Shadow)) {
        with_cs(|cs| {
            let cell = self.shadow.borrow(cs);
            let mut s = cell.get();
            f(&mut s);
            cell.set(s);
        })
    }

    /// Mark `bit` of `taken` (a comparator's or a local timer's) handed out; `false` when it
    /// already was.
    pub(crate) fn take(&self, bit: u32) -> bool {
        with_cs(|cs| {
            let cell = self.shadow.borrow(cs);
            let mut s = cell.get();
            if s.taken & bit != 0 {
                return false;
            }
            s.taken |= bit;
            cell.set(s);
            true
        })
    }

    /// Hand `bit` of `taken` back (the part was dropped, or its take-over failed).
    pub(crate) fn give_back(&self, bit: u32) {
        self.update_shadow(|s| s.taken &= !bit);
    }

    /// The owner value of the CPU this runs on ([`Config::cores`](crate::Config::cores)),
    /// for the shared-register lock: read once per driver call, however many sections the
    /// call takes the lock for (a comparator's arm takes it twice). A context does not
    /// change CPU within one call; where it could (a host thread the OS moves), a stale
    /// number only turns an "at once" refusal into the bounded spin or the other way round,
    /// never two holders.
    #[inline(always)]
    pub(crate) fn me(&self) -> Owner {
        Owner::of((self.cpu)())
    }

    /// Take the shared-register lock ([Shared registers](Self#shared-registers)) for CPU
    /// `me` ([`me`](Self::me)). Held by this CPU (the context this one interrupted):
    /// [`HwError::Busy`] at once, no register access. Held by another CPU: a bounded spin,
    /// each step one read of `G_WSTAT` (no side effect), long enough to outlast another
    /// core's whole write-and-wait section (up to two waits of `max_reads` status reads
    /// each), then [`HwError::Busy`] when it stays held.
    /// ([`Error::Busy`](hwtimer_core::Error::Busy) at the API.)
    ///
    /// Never called inside a section of the lock, and no critical section is ever entered
    /// while it is held: the order is "critical section (the caller's, if any), then this
    /// lock", never the other way round.
    ///
    /// `FIRST`: the call's first attempt at the lock (see
    /// [`SpinLock::try_lock`](crate::lock::SpinLock::try_lock)): only there is a word held
    /// by `me` refused at once, so a call refused at once has written nothing.
    #[inline(always)]
    pub(crate) fn lock_shared<const FIRST: bool>(&self, me: Owner) -> Result<Guard<'_>, HwError> {
        // The common case, inline: the lock is free with no flag set, one exclusive
        // load/store pair and its barrier. The spin, with its bound, only otherwise.
        match self.lock.try_acquire(me) {
            Ok(guard) => Ok(guard),
            Err(seen) => self.lock_shared_spin::<FIRST>(me, seen),
        }
    }

    /// [`lock_shared`](Self::lock_shared) once its first attempt found `seen` (held, or
    /// free with flags).
    #[cold]
    #[inline(never)]
    fn lock_shared_spin<const FIRST: bool>(
        &self,
        me: Owner,
        seen: u32,
    ) -> Result<Guard<'_>, HwError> {
        let polls = self.config.wstat.max_polls;
        let spins = polls.saturating_mul(4).saturating_add(16);
        self.lock
            .try_lock(me, seen, spins, FIRST, || {
                let _ = self.global.read_raw(regs::G_WSTAT_REG);
            })
            .map_err(|_| HwError::Busy)
    }

    /// [`write_g_tcon_as`](Self::write_g_tcon_as) for the CPU this runs on.
    #[inline]
    pub(crate) fn write_g_tcon(
        &self,
        f: impl FnOnce(u32) -> u32,
        frc_may_bound: bool,
    ) -> Result<u32, HwError> {
        self.write_g_tcon_as::<true>(self.me(), f, frc_may_bound)
    }

    /// Read-modify-write of `G_TCON` through its mirror, its WSTAT wait and the W1C, as one
    /// exclusive section under the shared-register lock, for CPU `me` (see
    /// [Shared registers](Self#shared-registers)); interrupts are not masked and no
    /// critical section is entered. The FRC bounds the wait (besides the poll
    /// count) when `frc_may_bound` and it is believed to run; writes that start or stop it
    /// pass `false`. The mirror changes only after the acknowledgement; the write is
    /// skipped (returns `Ok(0)`) when the value would not change and the register is known
    /// to hold it.
    ///
    /// Whether the last write still owes its acknowledgement ([`TCON_OWED`]) and whether
    /// the mirror may differ from the register ([`TCON_UNKNOWN`]) are flags of the lock
    /// word: the common section takes a word with neither set, so it tests neither; a
    /// word with one set is taken on the slow path, whose section handles them.
    ///
    /// Errors: [`HwError::Busy`] ([`Error::Busy`](hwtimer_core::Error::Busy) at the API) when the lock stayed held (nothing written),
    /// [`HwError::Timeout`] for a missing acknowledgement.
    #[inline(always)]
    pub(crate) fn write_g_tcon_as<const FIRST: bool>(
        &self,
        me: Owner,
        f: impl FnOnce(u32) -> u32,
        frc_may_bound: bool,
    ) -> Result<u32, HwError> {
        match self.lock.try_acquire(me) {
            // Flags 0, known here: the section below folds their tests away.
            Ok(guard) => self.g_tcon_section(guard, f, frc_may_bound),
            Err(seen) => self.write_g_tcon_slow::<FIRST>(me, seen, f, frc_may_bound),
        }
    }

    /// [`write_g_tcon_as`](Self::write_g_tcon_as) without the poll count, for a
    /// comparator: the slow path's result then comes back in a register (one byte), and the
    /// common path merges with it without going through memory.
    #[inline(always)]
    pub(crate) fn update_g_tcon_as<const FIRST: bool>(
        &self,
        me: Owner,
        f: impl FnOnce(u32) -> u32,
    ) -> Result<(), HwError> {
        match self.lock.try_acquire(me) {
            Ok(guard) => self.g_tcon_section(guard, f, true).map(drop_count),
            Err(seen) => self.update_g_tcon_slow::<FIRST>(me, seen, f),
        }
    }

    /// [`write_g_tcon_as`](Self::write_g_tcon_as) once the lock's first attempt found
    /// `seen`: held (the bounded spin) or free with flags.
    #[cold]
    #[inline(never)]
    fn write_g_tcon_slow<const FIRST: bool>(
        &self,
        me: Owner,
        seen: u32,
        f: impl FnOnce(u32) -> u32,
        frc_may_bound: bool,
    ) -> Result<u32, HwError> {
        let guard = self.lock_shared_spin::<FIRST>(me, seen)?;
        self.g_tcon_section(guard, f, frc_may_bound)
    }

    /// [`update_g_tcon_as`](Self::update_g_tcon_as) once the lock's first attempt found
    /// `seen`.
    #[cold]
    #[inline(never)]
    fn update_g_tcon_slow<const FIRST: bool>(
        &self,
        me: Owner,
        seen: u32,
        f: impl FnOnce(u32) -> u32,
    ) -> Result<(), HwError> {
        self.write_g_tcon_slow::<FIRST>(me, seen, f, true)
            .map(drop_count)
    }

    /// The `G_TCON` section, with the lock held (`guard`, with its flags).
    #[inline(always)]
    fn g_tcon_section(
        &self,
        mut guard: Guard<'_>,
        f: impl FnOnce(u32) -> u32,
        frc_may_bound: bool,
    ) -> Result<u32, HwError> {
        // The `G_TCON` mirror is read and written under the lock only, whose acquire and
        // release order these relaxed accesses: no critical section on this path.
        let old = self.g_tcon.load(Ordering::Relaxed);
        let new = f(old);
        if new == old && guard.flags() & TCON_UNKNOWN == 0 {
            return Ok(0);
        }
        // The FRC may bound the wait when the caller allows it and it is believed to run.
        let bound = if frc_may_bound {
            Bound::Frc
        } else {
            Bound::Polls
        };
        // Under the lock: an owed `G_TCON` acknowledgement is waited for here too, and
        // recorded in the guard's flags, without a critical section.
        let result = self.write_buffered_locked(&mut guard, new, bound);
        match result {
            Ok(_) => {
                self.g_tcon.store(new, Ordering::Relaxed);
                guard.set_flags(TCON_UNKNOWN, false);
            }
            Err(_) => guard.set_flags(TCON_UNKNOWN, true),
        }
        Ok(result?)
    }

    /// Set (`on`) or clear the caller's own `bits` of `G_INT_ENB` (not a buffered register:
    /// no WSTAT), a comparator's, which no other context changes: when the mirror already
    /// has them as asked there is nothing to write and no lock is taken (the common
    /// re-arm, inline); otherwise a read-modify-write of the mirror and one write, under
    /// the shared-register lock.
    ///
    /// Errors: [`HwError::Busy`] ([`Error::Busy`](hwtimer_core::Error::Busy) at the API) when the lock stayed held (nothing written).
    ///
    /// `FIRST` as for [`lock_shared`](Self::lock_shared); whether it takes the lock is
    /// [`g_int_enb_differs`](Self::g_int_enb_differs).
    #[inline(always)]
    pub(crate) fn set_g_int_enb<const FIRST: bool>(
        &self,
        bits: u32,
        on: bool,
        me: Owner,
    ) -> Result<(), HwError> {
        if self.g_int_enb_differs(bits, on) {
            self.update_g_int_enb::<FIRST>(bits, on, me)?;
        }
        Ok(())
    }

    /// Whether [`set_g_int_enb`](Self::set_g_int_enb) would write (and take the lock): the
    /// caller's `bits` are not as asked in the mirror (which only their owner changes).
    #[inline(always)]
    pub(crate) fn g_int_enb_differs(&self, bits: u32, on: bool) -> bool {
        let seen = self.g_int_enb.load(Ordering::Relaxed);
        let want = if on { seen | bits } else { seen & !bits };
        want != seen
    }

    #[inline(never)]
    fn update_g_int_enb<const FIRST: bool>(
        &self,
        bits: u32,
        on: bool,
        me: Owner,
    ) -> Result<(), HwError> {
        // Its flags are `G_TCON`'s: the guard frees the lock with them as it found them.
        let _guard = self.lock_shared::<FIRST>(me)?;
        let old = self.g_int_enb.load(Ordering::Relaxed);
        let new = if on { old | bits } else { old & !bits };
        if new != old {
            self.g_int_enb.store(new, Ordering::Relaxed);
            self.global.write_raw(regs::G_INT_ENB, new);
        }
        Ok(())
    }
}

/// The `taken` bit of local timer `i` (0 for `i >= 16`).
pub(crate) const fn local_bit(i: usize) -> u32 {
    if i < regs::MAX_LOCAL_TIMERS {
        // i < 16: a shift of at most 19.
        1u32.wrapping_shl((i as u32).wrapping_add(4))
    } else {
        0
    }
}
