//! What QEMU's Malta boot loader passes to a MIPS firmware's entry point: [`BootArgs`].
//!
//! Compiled on every target (it is plain Rust over [`mmio`](crate::mmio)) so that its
//! contract is checked by the host's doctests; the MIPS boards reach it as
//! `fw_common::mips::BootArgs`.
//!
//! Safe code cannot aim a `BootArgs` at an address of its choosing: the fields are private
//! and [`BootArgs::new`] is `unsafe`.
//!
//! ```compile_fail
//! let boot = fw_common::boot_args::BootArgs { argc: 2, argv: 0x8000_1000, envp: 0, memsize: 0 };
//! ```
//!
//! ```compile_fail,E0133
//! let boot = fw_common::boot_args::BootArgs::new(2, 0x8000_1000, 0, 0);
//! ```

/// What QEMU's Malta boot loader passes to the entry point in `$a0..$a3` (the
/// `fw_common::mips` module docs): the argument count, the argument and environment tables,
/// the RAM size.
///
/// [`arg`](Self::arg) reads the argument table and returns `'static` strings over it, so a
/// `BootArgs` is made only by [`new`](Self::new), whose caller vouches for the addresses:
/// `fw_common::mips_board!` makes the one a firmware gets, from the registers
/// the boot loader set.
#[derive(Clone, Copy, Debug)]
pub struct BootArgs {
    argc: u32,
    argv: u32,
    envp: u32,
    memsize: u32,
}

/// Longest string read from the boot loader's tables (QEMU's Malta loader gives each entry
/// 256 bytes).
const BOOT_STRING_MAX: usize = 256;

impl BootArgs {
    /// The boot loader's `$a0` (`argc`), `$a1` (`argv`), `$a2` (`envp`) and `$a3`
    /// (`memsize`).
    ///
    /// # Safety
    ///
    /// `argv` is 0, or the address of a table of at least `argc` 32-bit words in readable
    /// memory, each 0 or the address of a string of bytes that is readable up to its NUL or
    /// for 256 bytes, whichever comes first; the table and the strings are never written
    /// again for the rest of the program (they are handed out as `&'static str`). QEMU's
    /// Malta loader's registers, passed on unchanged before anything wrote below the
    /// image, are such values.
    pub const unsafe fn new(argc: u32, argv: u32, envp: u32, memsize: u32) -> Self {
        Self {
            argc,
            argv,
            envp,
            memsize,
        }
    }

    /// `$a0`: number of arguments (2 from QEMU: the kernel file name and the `-append`
    /// text).
    pub fn argc(&self) -> u32 {
        self.argc
    }

    /// `$a1`: KSEG0 address of the argument table (32-bit pointers to NUL-terminated
    /// strings).
    pub fn argv(&self) -> u32 {
        self.argv
    }

    /// `$a2`: KSEG0 address of the environment table (not read by anything here).
    pub fn envp(&self) -> u32 {
        self.envp
    }

    /// `$a3`: RAM size below the I/O hole, in bytes.
    pub fn memsize(&self) -> u32 {
        self.memsize
    }

    /// Argument `n` (0: the kernel file name, 1: the `-append` text), if it exists and is
    /// UTF-8.
    pub fn arg(&self, n: u32) -> Option<&'static str> {
        if n >= self.argc || self.argv == 0 || !self.argv.is_multiple_of(4) {
            return None;
        }
        let slot = usize::try_from(self.argv).ok()? + usize::try_from(n).ok()? * 4;
        // SAFETY: the boot loader's argument table (the `fw_common::mips` module docs), in RAM QEMU filled in before
        // the CPU started; the firmware never writes it (it lies below the image).
        let ptr = unsafe { crate::mmio::read32(slot) };
        if ptr == 0 {
            return None;
        }
        let start = usize::try_from(ptr).ok()?;
        let mut len = 0;
        // SAFETY: `new`'s contract: a non-zero entry points at bytes readable up to the NUL
        // or for `BOOT_STRING_MAX` bytes; the loop reads no further.
        while len < BOOT_STRING_MAX && unsafe { crate::mmio::read8(start + len) } != 0 {
            len += 1;
        }
        // SAFETY: `start..start + len` are the bytes just read, which `new`'s contract says
        // nothing writes for the rest of the program.
        let bytes = unsafe { core::slice::from_raw_parts(start as *const u8, len) };
        core::str::from_utf8(bytes).ok()
    }

    /// The `-append` text (argument 1), empty if there is none.
    pub fn command_line(&self) -> &'static str {
        self.arg(1).unwrap_or("")
    }
}
