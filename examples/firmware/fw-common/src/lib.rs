#![doc = include_str!("../README.md")]
//!
//! ## For the boards of this repository
//!
//! The firmware output is checked line by line by `cargo xtask qemu` against the board's
//! `expected.txt`, so print one fact per line, ending a check with [`verdict`]. Lines that
//! start with `bench: ` are collected by `cargo xtask bench` (format:
//! `bench: <crate>/<metric> = <value> <unit>`).
#![cfg_attr(not(test), no_std)]
// Inline assembly on MIPS is still unstable (the firmware is built with RUSTC_BOOTSTRAP=1).
#![cfg_attr(target_arch = "mips", feature(asm_experimental_arch))]

pub mod boot_args;
pub mod cell;
pub mod counted;
pub mod fw_cfg;
pub mod icount;
pub mod mmio;
pub mod pender;
pub mod smp_lock;
pub mod wakes;

#[cfg(target_has_atomic = "64")]
pub mod ledger;

#[cfg(target_arch = "arm")]
pub mod arm;
/// The GIC driver on the host, for its unit tests: it reaches its registers through
/// [`mmio`] only, so a buffer in RAM can stand in for a distributor.
#[cfg(all(test, not(target_arch = "arm")))]
#[path = "arm/gic.rs"]
#[allow(dead_code)]
mod gic_host;
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
    /// Sends one byte, waiting (bounded: [`wait_for_room`]) until the hardware has room.
    fn write_byte(&mut self, byte: u8);
}

/// The most status reads a console makes waiting for room for one byte: 2^20, far more than
/// a UART needs to send a byte (a few hundred reads at 115200 baud on these boards), so a
/// transmitter that never drains (its clock gated, a model stuck) costs that many reads per
/// byte and the byte may be lost, instead of the firmware hanging.
pub const CONSOLE_MAX_POLLS: u32 = 1 << 20;

/// Poll `ready` until it says the transmitter has room, at most [`CONSOLE_MAX_POLLS`]
/// times; whether it did. The consoles write the byte either way.
#[inline]
pub fn wait_for_room(mut ready: impl FnMut() -> bool) -> bool {
    for _ in 0..CONSOLE_MAX_POLLS {
        if ready() {
            return true;
        }
        core::hint::spin_loop();
    }
    false
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

/// A future that is pending once, waking its task first: awaited in a loop, it lets an
/// executor poll every other task between two rounds of the loop (as the Malta template's
/// task that plays the Otto timer in RAM does).
pub fn yield_now() -> YieldNow {
    YieldNow(false)
}

/// The future of [`yield_now`].
#[derive(Debug)]
#[must_use = "a future does nothing unless awaited"]
pub struct YieldNow(bool);

impl core::future::Future for YieldNow {
    type Output = ();

    fn poll(
        mut self: core::pin::Pin<&mut Self>,
        cx: &mut core::task::Context<'_>,
    ) -> core::task::Poll<()> {
        if self.0 {
            return core::task::Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        core::task::Poll::Pending
    }
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

#[cfg(test)]
mod console_tests {
    use super::{CONSOLE_MAX_POLLS, wait_for_room};

    /// A transmitter that never has room ends the wait after the bound (the byte is then
    /// written anyway, and may be lost), instead of hanging the firmware.
    #[test]
    fn a_transmitter_that_never_drains_ends_the_wait_after_the_bound() {
        let mut reads = 0u32;
        assert!(!wait_for_room(|| {
            reads += 1;
            false
        }));
        assert_eq!(reads, CONSOLE_MAX_POLLS);
        let mut reads = 0u32;
        assert!(wait_for_room(|| {
            reads += 1;
            reads == 3
        }));
        assert_eq!(reads, 3);
    }
}
