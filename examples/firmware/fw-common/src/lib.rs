//! Helpers shared by the QEMU board firmwares.
//!
//! Everything here is board-agnostic; a board supplies the one thing that differs, how to put a
//! byte on its UART, by implementing [`Console`]. On top of that this crate offers
//!
//! * [`Writer`] and the [`println!`] macro: `core::fmt` output with `\n` turned into `\r\n`;
//! * [`mmio`]: volatile register access by physical address;
//! * [`cell`]: [`StaticCell`] and [`CsCell`], statics shared with interrupt handlers (no
//!   `unsafe` needed to declare or use them);
//! * [`icount`]: timing bounds made of instructions and timer ticks, and the emulation speed
//!   that turns them into ticks under any `-icount` shift;
//! * [`fw_cfg`]: QEMU's firmware configuration device (MMIO), through which `cargo xtask qemu`
//!   tells a board without an instruction counter the `-icount` shift;
//! * [`arm`] (32-bit ARM only): the boards' entry code, exception vectors and panic handler
//!   ([`arm_board!`]), the GIC, the PMU counters, semihosting exit, CP15 registers,
//!   CPSR.I, and the flat translation table that turns on the MMU and caches for firmware
//!   that runs an executor;
//! * `loongarch` (LoongArch64 only): paged mode with direct-mapped windows, the entry code,
//!   exception entry and panic handler (`loongarch_board!`), CSR helpers and CRMD.IE;
//! * `mips` (32-bit MIPS only): the entry code, exception vectors and panic handler of a
//!   QEMU Malta firmware (`mips_board!`), CP0 helpers, UHI semihosting exit, the Malta
//!   console and Status.IE;
//! * `cs` (those three architectures): the `critical-section` implementation every board
//!   installs with [`critical_section_impl!`]: interrupts off, the restore state a `bool`
//!   (whether they were on), so nested sections need no counter;
//! * [`counted`]: [`Counted`](counted::Counted), a clockevent wrapper that counts its
//!   programmings (the "armed once" figures of the npcm750 boards);
//! * [`wakes`]: the wake-up statistics the async firmware prints (never early, how late).
//!
//! The arithmetic of [`icount`] has host unit tests: `cargo test -p fw-common` in
//! `examples/firmware`, with the host toolchain.
//!
//! The firmware output is checked line by line by `cargo xtask qemu` against the board's
//! `expected.txt`, so print one fact per line. Lines that start with `bench: ` are collected by
//! `cargo xtask bench` (format: `bench: <crate>/<metric> = <value> <unit>`).
#![cfg_attr(not(test), no_std)]
// Inline assembly on MIPS is still unstable (the firmware is built with RUSTC_BOOTSTRAP=1).
#![cfg_attr(target_arch = "mips", feature(asm_experimental_arch))]

pub mod cell;
pub mod counted;
pub mod fw_cfg;
pub mod icount;
pub mod mmio;
pub mod wakes;

#[cfg(target_arch = "arm")]
pub mod arm;
#[cfg(target_arch = "loongarch64")]
pub mod loongarch;
#[cfg(target_arch = "mips")]
pub mod mips;

#[cfg(any(target_arch = "arm", target_arch = "loongarch64", target_arch = "mips"))]
pub mod cs;

pub use cell::{CsCell, StaticCell};

/// `critical-section`, for the expansion of [`critical_section_impl!`] in board crates.
#[doc(hidden)]
pub use critical_section as __critical_section;

use core::fmt;

/// A byte sink, usually a polled UART transmitter.
pub trait Console {
    /// Sends one byte, blocking until the hardware accepted it.
    fn write_byte(&mut self, byte: u8);
}

/// Adapts a [`Console`] to [`core::fmt::Write`], translating `\n` into `\r\n` for terminals.
pub struct Writer<C: Console>(pub C);

impl<C: Console> fmt::Write for Writer<C> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for byte in s.bytes() {
            if byte == b'\n' {
                self.0.write_byte(b'\r');
            }
            self.0.write_byte(byte);
        }
        Ok(())
    }
}

/// Writes formatted text followed by a newline to `console`.
///
/// This is the function behind [`println!`]; output to a [`Console`] cannot fail, so it returns
/// nothing.
pub fn write_line<C: Console>(console: C, args: fmt::Arguments<'_>) {
    use fmt::Write as _;
    let mut writer = Writer(console);
    // `Writer::write_str` never fails; an error could only come from a `Display` impl, and
    // there is nothing better to do with it on a bare-metal console than to move on.
    let _ = writer.write_fmt(args);
    let _ = writer.write_str("\n");
}

/// `println!` for firmware: `println!(console, "format {}", args)`.
///
/// `console` is any value implementing [`Console`] (typically a zero-sized UART handle).
///
/// ```ignore
/// fw_common::println!(Uart0, "MIDR = {:#010x}", midr);
/// ```
#[macro_export]
macro_rules! println {
    ($console:expr) => {
        $crate::write_line($console, format_args!(""))
    };
    ($console:expr, $($arg:tt)*) => {
        $crate::write_line($console, format_args!($($arg)*))
    };
}

/// The word that ends a check line: `ok` when the check passed, `FAIL` when it did not.
///
/// The boards print one check per line, `<what was measured>: <verdict>`; their
/// `expected.txt` asserts the `ok`s, so a `FAIL` fails the run even where the firmware goes
/// on to its end.
pub const fn verdict(ok: bool) -> &'static str {
    if ok { "ok" } else { "FAIL" }
}

/// Prints the standard panic line, `PANIC: <message and location>`.
///
/// `cargo xtask qemu` fails a run whose output contains a line starting with `PANIC`, even if
/// the expected lines were all seen. Board panic handlers call this, then stop the machine with
/// a failure status (or spin, where the board has no way to report one).
pub fn print_panic<C: Console>(console: C, info: &core::panic::PanicInfo<'_>) {
    write_line(console, format_args!("PANIC: {info}"));
}
