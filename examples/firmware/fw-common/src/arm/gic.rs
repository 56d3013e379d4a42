//! The ARM Generic Interrupt Controller (GICv1/GICv2 register layout), as far as the
//! firmware needs it: enable the distributor and each CPU's interface, route and enable
//! shared peripheral interrupts (SPIs) to a CPU, send software-generated interrupts (SGIs)
//! from one CPU to others, acknowledge and end interrupts.
//!
//! Offsets and fields are those of the ARM GIC Architecture Specification (v2.0, chapter 4);
//! only the security-less view is used (QEMU's Cortex-A9 boards have no EL3). Interrupt IDs
//! are GIC IDs: 0–15 SGIs, 16–31 PPIs, 32 and up SPIs (SPI `n` is ID `32 + n`).

use crate::mmio;

/// Distributor control (enable bit 0).
const GICD_CTLR: usize = 0x000;
/// Interrupt controller type: ITLinesNumber in bits 4:0, CPUNumber in bits 7:5.
const GICD_TYPER: usize = 0x004;
/// Set-enable registers, one bit per ID.
const GICD_ISENABLER: usize = 0x100;
/// Clear-enable registers, one bit per ID.
const GICD_ICENABLER: usize = 0x180;
/// Set-pending registers, one bit per ID (read: pending state).
const GICD_ISPENDR: usize = 0x200;
/// Priority registers, one byte per ID (lower value = higher priority).
const GICD_IPRIORITYR: usize = 0x400;
/// Processor target registers, one byte per ID (bit n = CPU interface n); SPIs only.
const GICD_ITARGETSR: usize = 0x800;
/// Software generated interrupt register (write only): TargetListFilter in bits 25:24,
/// CPUTargetList in bits 23:16, the SGI's ID in bits 3:0.
const GICD_SGIR: usize = 0xf00;
/// GICD_SGIR.TargetListFilter's position.
const SGIR_FILTER_SHIFT: u32 = 24;
/// GICD_SGIR.CPUTargetList's position.
const SGIR_TARGETS_SHIFT: u32 = 16;
/// The highest SGI ID.
pub const MAX_SGI_ID: u32 = 15;

/// CPU interface control (enable bit 0).
const GICC_CTLR: usize = 0x00;
/// Priority mask: only interrupts with a priority value below it are signalled.
const GICC_PMR: usize = 0x04;
/// Interrupt acknowledge: the ID (bits 9:0) of the highest-priority pending interrupt.
const GICC_IAR: usize = 0x0c;
/// End of interrupt: write the value read from IAR.
const GICC_EOIR: usize = 0x10;

/// The ID that IAR returns when no interrupt is pending.
pub const SPURIOUS_ID: u32 = 1023;
/// IDs 1020 and up are special (1023: spurious) and never interrupts, whatever GICD_TYPER
/// says (GIC Architecture Specification v2.0, 3.2.5 "Special interrupt numbers").
pub const MAX_INTERRUPT_IDS: u32 = 1020;
/// Priority mask written by [`Gic::init`]: every priority value below 0xf0 is signalled.
pub const PRIORITY_MASK: u8 = 0xf0;

/// An interrupt ID the distributor does not implement: `id` is not below `lines`
/// ([`Gic::interrupt_ids`]). Its bit or byte would lie in some other register, or past the
/// distributor, so nothing was read or written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdOutOfRange {
    /// The ID asked for.
    pub id: u32,
    /// How many IDs this distributor implements (IDs `0..lines` are valid).
    pub lines: u32,
}

impl core::fmt::Display for IdOutOfRange {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "GIC: interrupt ID {} not implemented (the distributor has IDs 0..{})",
            self.id, self.lines
        )
    }
}

impl core::error::Error for IdOutOfRange {}

/// One GIC, by the physical addresses of its distributor and of the CPU interface of the CPU
/// that runs the firmware.
#[derive(Debug, Clone, Copy)]
pub struct Gic {
    dist: usize,
    cpu: usize,
}

impl Gic {
    /// A GIC whose distributor is at `dist` and whose CPU interface is at `cpu`.
    ///
    /// # Safety
    ///
    /// Both addresses must be those of a GICv1/v2 distributor and CPU interface, mapped, and
    /// driven by nothing else than copies of this value on the CPUs that run the firmware
    /// (the CPU interface's registers are banked: each CPU reaches its own at the same
    /// address).
    pub const unsafe fn new(dist: usize, cpu: usize) -> Self {
        Self { dist, cpu }
    }

    /// The distributor's address.
    pub fn dist_base(&self) -> usize {
        self.dist
    }

    /// The CPU interface's address.
    pub fn cpu_base(&self) -> usize {
        self.cpu
    }

    fn dist_read(&self, offset: usize) -> u32 {
        // SAFETY: `new`'s contract: a GIC distributor register, ours to use.
        unsafe { mmio::read32(self.dist + offset) }
    }

    fn dist_write(&self, offset: usize, value: u32) {
        // SAFETY: `new`'s contract: a GIC distributor register, ours to use.
        unsafe { mmio::write32(self.dist + offset, value) }
    }

    fn cpu_read(&self, offset: usize) -> u32 {
        // SAFETY: `new`'s contract: a GIC CPU interface register, ours to use.
        unsafe { mmio::read32(self.cpu + offset) }
    }

    fn cpu_write(&self, offset: usize, value: u32) {
        // SAFETY: `new`'s contract: a GIC CPU interface register, ours to use.
        unsafe { mmio::write32(self.cpu + offset, value) }
    }

    /// Number of interrupt IDs the distributor implements, `32 × (ITLinesNumber + 1)`
    /// (GICD_TYPER); also a check that the address is right.
    pub fn lines(&self) -> u32 {
        32 * ((self.dist_read(GICD_TYPER) & 0x1f) + 1)
    }

    /// The interrupt IDs that [`enable`](Self::enable), [`disable`](Self::disable) and
    /// [`is_pending`](Self::is_pending) accept: `0..n` with `n` = [`lines`](Self::lines)
    /// capped at [`MAX_INTERRUPT_IDS`] (1020).
    pub fn interrupt_ids(&self) -> u32 {
        self.lines().min(MAX_INTERRUPT_IDS)
    }

    /// `Ok` if `id` is an ID of this distributor ([`interrupt_ids`](Self::interrupt_ids)).
    fn check(&self, id: u32) -> Result<(), IdOutOfRange> {
        let lines = self.interrupt_ids();
        if id < lines {
            Ok(())
        } else {
            Err(IdOutOfRange { id, lines })
        }
    }

    /// Number of CPU interfaces, `CPUNumber + 1` (GICD_TYPER bits 7:5).
    pub fn cpus(&self) -> u32 {
        ((self.dist_read(GICD_TYPER) >> 5) & 0x7) + 1
    }

    /// Enables the distributor and this CPU's interface with priority mask
    /// [`PRIORITY_MASK`]. Every interrupt stays disabled until [`enable`](Self::enable).
    pub fn init(&self) {
        self.cpu_write(GICC_PMR, u32::from(PRIORITY_MASK));
        self.cpu_write(GICC_CTLR, 1);
        self.dist_write(GICD_CTLR, 1);
    }

    /// Enables only the calling CPU's banked interface (priority mask [`PRIORITY_MASK`]), for
    /// a secondary CPU once CPU0 has run [`init`](Self::init). The banked distributor
    /// registers of IDs 0..31 (SGI/PPI enables and priorities) are this CPU's too:
    /// [`enable`](Self::enable) of a PPI from this CPU enables it for this CPU only.
    pub fn init_cpu_interface(&self) {
        self.cpu_write(GICC_PMR, u32::from(PRIORITY_MASK));
        self.cpu_write(GICC_CTLR, 1);
    }

    /// Sets one byte of a byte-per-ID register bank by read-modify-write of its word (word
    /// accesses work on every GIC implementation).
    fn write_byte_field(&self, bank: usize, id: u32, value: u8) {
        let offset = bank + (id as usize & !3);
        let shift = (id % 4) * 8;
        let word = self.dist_read(offset) & !(0xff << shift);
        self.dist_write(offset, word | (u32::from(value) << shift));
    }

    /// Routes interrupt `id` to the CPU interfaces in `targets` (bit n = CPU n; SPIs only,
    /// the field is read-only for SGIs and PPIs), gives it `priority` (below
    /// [`PRIORITY_MASK`] to be signalled) and enables it. The trigger type is left at its
    /// reset value (level-sensitive for SPIs on QEMU's GIC).
    ///
    /// Errors: [`IdOutOfRange`] when `id` is not below [`interrupt_ids`](Self::interrupt_ids)
    /// (one read of GICD_TYPER decides); nothing is written then.
    pub fn enable(&self, id: u32, priority: u8, targets: u8) -> Result<(), IdOutOfRange> {
        self.check(id)?;
        self.write_byte_field(GICD_IPRIORITYR, id, priority);
        if id >= 32 {
            self.write_byte_field(GICD_ITARGETSR, id, targets);
        }
        self.dist_write(GICD_ISENABLER + 4 * (id as usize / 32), 1 << (id % 32));
        Ok(())
    }

    /// Disables interrupt `id` (it may still show as pending).
    ///
    /// Errors: [`IdOutOfRange`], as [`enable`](Self::enable); nothing is written then.
    pub fn disable(&self, id: u32) -> Result<(), IdOutOfRange> {
        self.check(id)?;
        self.dist_write(GICD_ICENABLER + 4 * (id as usize / 32), 1 << (id % 32));
        Ok(())
    }

    /// Whether interrupt `id` is pending at the distributor.
    ///
    /// Errors: [`IdOutOfRange`], as [`enable`](Self::enable); nothing but GICD_TYPER is read
    /// then.
    pub fn is_pending(&self, id: u32) -> Result<bool, IdOutOfRange> {
        self.check(id)?;
        Ok(self.dist_read(GICD_ISPENDR + 4 * (id as usize / 32)) & (1 << (id % 32)) != 0)
    }

    /// Acknowledges the highest-priority pending interrupt: returns the raw IAR value, to be
    /// passed to [`end_of_interrupt`](Self::end_of_interrupt). Its ID is `iar & 0x3ff`
    /// ([`SPURIOUS_ID`] when nothing was pending; that one needs no end of interrupt).
    pub fn acknowledge(&self) -> u32 {
        self.cpu_read(GICC_IAR)
    }

    /// Ends the interrupt acknowledged as `iar`. For a level-sensitive source, clear the
    /// source first, or the interrupt is pending again at once.
    pub fn end_of_interrupt(&self, iar: u32) {
        self.cpu_write(GICC_EOIR, iar);
    }

    /// Serves one interrupt, all of an IRQ handler but the sources' own work: acknowledges
    /// it, runs the function `handlers` gives for its ID (which must clear its source),
    /// disables an ID without one (a level-sensitive line would bring it straight back) and
    /// ends the interrupt. Returns the ID and whether it had a handler, or `None` when the
    /// acknowledge found nothing pending ([`SPURIOUS_ID`]: nothing is run or ended).
    ///
    /// ```ignore
    /// fn on_irq() {
    ///     GIC.serve(&[(IRQ_TIMER, || DRIVER.on_interrupt())]);
    /// }
    /// ```
    pub fn serve(&self, handlers: &[(u32, fn())]) -> Option<(u32, bool)> {
        let iar = self.acknowledge();
        let id = iar_id(iar);
        if id == SPURIOUS_ID {
            return None;
        }
        let handler = handlers.iter().find(|(h, _)| *h == id).map(|(_, f)| *f);
        match handler {
            Some(f) => f(),
            // An IAR ID other than 1023 is one the distributor signalled, so it is in
            // range; were it not, there would be no enable bit to clear.
            None => {
                let _ = self.disable(id);
            }
        }
        self.end_of_interrupt(iar);
        Some((id, handler.is_some()))
    }
}

/// Which CPU interfaces an SGI goes to (GICD_SGIR.TargetListFilter).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SgiTarget {
    /// The CPU interfaces in the list (bit n = CPU interface n); an empty list sends
    /// nothing.
    List(u8),
    /// Every CPU interface but the sender's.
    Others,
    /// The sender's CPU interface only.
    Myself,
}

impl SgiTarget {
    /// The TargetListFilter and CPUTargetList fields of GICD_SGIR.
    const fn sgir_bits(self) -> u32 {
        match self {
            Self::List(list) => (list as u32) << SGIR_TARGETS_SHIFT,
            Self::Others => 1 << SGIR_FILTER_SHIFT,
            Self::Myself => 2 << SGIR_FILTER_SHIFT,
        }
    }
}

impl Gic {
    /// Sends software-generated interrupt `id` (0..=[`MAX_SGI_ID`], taken modulo 16) to the
    /// CPU interfaces `target` selects, through GICD_SGIR. The receiving CPU sees it as ID
    /// `id`, with the sender's CPU number in IAR bits 12:10 (end it with that whole IAR
    /// value). An SGI still pending from the same sender at a target is not counted twice:
    /// the GIC keeps one pending bit per SGI and sender. Each CPU enables the SGI and gives it
    /// a priority for itself ([`enable`](Self::enable); those registers are banked per CPU).
    pub fn send_sgi(&self, id: u32, target: SgiTarget) {
        self.dist_write(GICD_SGIR, target.sgir_bits() | (id & MAX_SGI_ID));
    }
}

/// The CPU number of the sender of an SGI, in an IAR value of that SGI (bits 12:10; 0 for
/// other interrupts).
pub const fn iar_source_cpu(iar: u32) -> u32 {
    (iar >> 10) & 0x7
}

/// The interrupt ID in an IAR value.
pub const fn iar_id(iar: u32) -> u32 {
    iar & 0x3ff
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A distributor in RAM: 4 KiB of registers, GICD_TYPER.ITLinesNumber as given, every
    /// other register 0; a CPU interface block beside it.
    struct FakeGic {
        dist: Vec<u32>,
        cpu: Vec<u32>,
    }

    impl FakeGic {
        fn new(it_lines: u32) -> Self {
            let mut dist = vec![0u32; 0x1000 / 4];
            dist[GICD_TYPER / 4] = it_lines & 0x1f;
            Self {
                dist,
                cpu: vec![0u32; 0x100 / 4],
            }
        }

        fn gic(&mut self) -> Gic {
            // SAFETY: both buffers outlive the `Gic` (used only inside each test, while
            // `self` is borrowed) and stand in for the register blocks.
            unsafe {
                Gic::new(
                    self.dist.as_mut_ptr() as usize,
                    self.cpu.as_mut_ptr() as usize,
                )
            }
        }

        fn word(&self, offset: usize) -> u32 {
            self.dist[offset / 4]
        }
    }

    #[test]
    fn ids_below_the_implemented_lines_are_enabled_disabled_and_read() {
        let mut fake = FakeGic::new(2);
        let gic = fake.gic();
        assert_eq!(gic.lines(), 96);
        assert_eq!(gic.enable(95, 0xa0, 1), Ok(()));
        assert_eq!(gic.disable(95), Ok(()));
        assert_eq!(gic.is_pending(95), Ok(false));
        assert_eq!(fake.word(GICD_ISENABLER + 8), 1 << 31);
        assert_eq!(fake.word(GICD_ICENABLER + 8), 1 << 31);
        assert_eq!(fake.word(GICD_IPRIORITYR + 92), 0xa0 << 24);
        assert_eq!(fake.word(GICD_ITARGETSR + 92), 1 << 24);
    }

    /// An ID the distributor does not implement (96 here, and anything up to `u32::MAX`,
    /// whose register word would lie 512 MiB past the distributor) is refused: nothing is
    /// written, nothing read.
    #[test]
    fn ids_past_the_implemented_lines_touch_no_register() {
        let mut fake = FakeGic::new(2);
        let before = fake.dist.clone();
        let gic = fake.gic();
        for id in [96, 127, 1019] {
            let err = Err(IdOutOfRange { id, lines: 96 });
            assert_eq!(gic.enable(id, 0xa0, 1), err);
            assert_eq!(gic.disable(id), err);
            assert_eq!(gic.is_pending(id), Err(IdOutOfRange { id, lines: 96 }));
        }
        assert!(
            fake.dist == before,
            "a register was written for an unimplemented ID"
        );
        let gic = fake.gic();
        for id in [1020, SPURIOUS_ID, u32::MAX] {
            assert!(gic.enable(id, 0xa0, 1).is_err());
            assert!(gic.disable(id).is_err());
            assert!(gic.is_pending(id).is_err());
        }
    }

    /// A distributor with the largest ITLinesNumber (31: 1024 lines) still stops at 1019:
    /// 1020-1023 are special IDs, not interrupts (GIC v2.0, 3.2.5).
    #[test]
    fn the_special_ids_are_refused_even_with_1024_lines() {
        let mut fake = FakeGic::new(31);
        let gic = fake.gic();
        assert_eq!(gic.enable(1019, 0xa0, 1), Ok(()));
        assert_eq!(
            gic.enable(1020, 0xa0, 1),
            Err(IdOutOfRange {
                id: 1020,
                lines: 1020
            })
        );
    }
}
