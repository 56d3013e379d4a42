//! Global1 operations ([`G1Op`]: ATU, VTU, STATS) with their bounded BUSY waits, the
//! INIT_READY wait, and the shadow of the unit data registers (Linux's `global1.c`).

use hwtimer_core::Continuous;
use mdio_bus::Mdio;

use crate::error::{BusyWait, Error};
use crate::regs::{BUSY, INIT_READY, g1};
use crate::switch::{READY_ATU, READY_STATS, READY_VTU, Switch, finish};

/// A Global1 operation register with a BUSY bit (docs/mv88e6xxx.md#global1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum G1Op {
    /// G1_ATU_OP (0x0B).
    Atu,
    /// G1_VTU_OP (0x05).
    Vtu,
    /// G1_STATS_OP (0x1D).
    Stats,
}

impl G1Op {
    /// The Global1 register.
    pub const fn reg(self) -> u8 {
        match self {
            G1Op::Atu => g1::ATU_OP,
            G1Op::Vtu => g1::VTU_OP,
            G1Op::Stats => g1::STATS_OP,
        }
    }

    pub(crate) const fn wait(self) -> BusyWait {
        match self {
            G1Op::Atu => BusyWait::AtuOp,
            G1Op::Vtu => BusyWait::VtuOp,
            G1Op::Stats => BusyWait::StatsOp,
        }
    }

    pub(crate) const fn ready_bit(self) -> u8 {
        match self {
            G1Op::Atu => READY_ATU,
            G1Op::Vtu => READY_VTU,
            G1Op::Stats => READY_STATS,
        }
    }
}

/// Values this driver last wrote to unit data registers that only an operation or a write
/// can change (docs/mv88e6xxx.md#atu-vtu-and-stu): G1_ATU_FID, G1_VTU_FID, G1_VTU_SID.
/// `None`: unknown. Any raw Global1 write ([`Switch::write`], [`Switch::g1_write`]) and any
/// [`Switch::g1_op`] clear all of them; the units set one only after its write succeeded and
/// after an operation that leaves it alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct UnitShadow {
    pub(crate) atu_fid: Option<u16>,
    pub(crate) vtu_fid: Option<u16>,
    pub(crate) vtu_sid: Option<u16>,
}

impl UnitShadow {
    pub(crate) const EMPTY: Self = Self {
        atu_fid: None,
        vtu_fid: None,
        vtu_sid: None,
    };
}

impl<M: Mdio, C: Continuous + Copy> Switch<M, C> {
    /// Wait for Global1 G1_STS INIT_READY to be set (after power-up or a software reset).
    pub fn wait_init_ready(&mut self) -> Result<u16, Error<M::Error>> {
        let g1 = self.map.global1;
        self.wait_on(g1, g1::STS, INIT_READY, INIT_READY, BusyWait::InitReady)
    }

    /// Wait for a Global1 operation register's BUSY bit to be clear.
    pub fn wait_g1_op(&mut self, op: G1Op) -> Result<u16, Error<M::Error>> {
        let g1 = self.map.global1;
        self.ready &= !op.ready_bit();
        let v = self.wait_on(g1, op.reg(), BUSY, 0, op.wait())?;
        self.ready |= op.ready_bit();
        Ok(v)
    }

    /// Run a Global1 ATU / VTU / STATS operation: write `word | BUSY` to its register and
    /// wait for BUSY to clear; returns the register's final value (for the ATU: the
    /// violation flags). BUSY is polled first unless a wait has just seen it clear (for
    /// example [`wait_g1_op`](Self::wait_g1_op) before setting up the data registers) or,
    /// with [`Config::with_sole_bus_master`](crate::Config::with_sole_bus_master),
    /// this driver saw it clear at the end of its own last operation. Set up the
    /// operation's data registers before calling (after a wait, as Linux does).
    pub fn g1_op(&mut self, op: G1Op, word: u16) -> Result<u16, Error<M::Error>> {
        self.shadow = UnitShadow::EMPTY;
        if op == G1Op::Stats {
            self.stats_capture_open = false;
        }
        if !self.known_idle(op.ready_bit()) {
            self.wait_g1_op(op)?;
        }
        self.ready &= !op.ready_bit();
        self.dev_write(self.map.global1, op.reg(), word | BUSY)?;
        let v = self.wait_g1_op(op)?;
        self.op_done(op.ready_bit());
        Ok(v)
    }

    /// A STATS CAPTURE_PORT (`continues == false`) or READ_CAPTURED (`continues ==
    /// true`) operation. A capture waits for BUSY first like every operation; a read that
    /// follows this driver's own completed capture or read skips that wait: it continues
    /// the capture sequence, as Linux's `mv88e6xxx_g1_stats_read` does (no pre-check;
    /// Linux v6.12 drivers/net/dsa/mv88e6xxx/global1.c). Another master that runs a STATS
    /// operation in between also overwrites the capture buffer, which no wait can undo.
    pub(crate) fn stats_capture_op(
        &mut self,
        word: u16,
        continues: bool,
    ) -> Result<u16, Error<M::Error>> {
        if continues && self.stats_capture_open {
            self.ready |= G1Op::Stats.ready_bit();
        }
        let v = self.g1_op(G1Op::Stats, word)?;
        self.stats_capture_open = true;
        Ok(v)
    }

    /// Bounded wait on G1_STS (for [`crate::port`]).
    pub(crate) fn wait_g1_sts(
        &mut self,
        mask: u16,
        val: u16,
        wait: BusyWait,
    ) -> Result<u16, Error<M::Error>> {
        let g1 = self.map.global1;
        self.wait_on(g1, g1::STS, mask, val, wait)
    }

    /// Bounded wait for G1_STS INIT_READY, a read of 0xFFFF (nothing answering) not
    /// counting (for [`crate::port`]).
    pub(crate) fn wait_g1_sts_ready(&mut self) -> Result<u16, Error<M::Error>> {
        let g1 = self.map.global1;
        let poller = self.poller;
        let r = poller.try_poll(
            || self.dev_read(g1, g1::STS),
            |v| *v != crate::regs::NOT_ANSWERING && v & INIT_READY != 0,
        );
        finish(r, BusyWait::InitReady)
    }

    /// Make sure the Global1 unit `op` is idle before its data registers are written: a
    /// bounded BUSY wait, as Linux's sequences start, unless the unit is known idle (the
    /// rule of [`g1_op`](Self::g1_op), which then skips its own wait). Without
    /// [`Config::with_sole_bus_master`](crate::Config::with_sole_bus_master) this also
    /// forgets the unit data registers this driver wrote last, so the sequence writes them
    /// again (another master may have changed them).
    pub(crate) fn g1_unit_idle(&mut self, op: G1Op) -> Result<(), Error<M::Error>> {
        if !self.sole_master {
            self.shadow = UnitShadow::EMPTY;
        }
        if !self.known_idle(op.ready_bit()) {
            self.wait_g1_op(op)?;
        }
        Ok(())
    }

    /// A unit's own Global1 write ([`g1_write`](Self::g1_write)) that keeps the
    /// [`UnitShadow`] (a failed write leaves it unknown).
    pub(crate) fn unit_write(&mut self, reg: u8, value: u16) -> Result<(), Error<M::Error>> {
        let keep = self.shadow;
        let r = self.g1_write(reg, value);
        self.shadow = if r.is_ok() { keep } else { UnitShadow::EMPTY };
        r
    }

    /// A unit's own operation ([`g1_op`](Self::g1_op)) that keeps the [`UnitShadow`] for
    /// a sole bus master (the caller clears what the operation itself may change); without
    /// [`Config::with_sole_bus_master`](crate::Config::with_sole_bus_master) the shadow
    /// ends with the operation.
    pub(crate) fn unit_op(&mut self, op: G1Op, word: u16) -> Result<u16, Error<M::Error>> {
        let keep = self.shadow;
        let r = self.g1_op(op, word);
        self.shadow = if r.is_ok() && self.sole_master {
            keep
        } else {
            UnitShadow::EMPTY
        };
        r
    }
}

mod priority;
pub use priority::{IEEE_PRI_DEFAULT, IEEE_PRI_DEFAULT_6250};
