//! Volatile access to memory-mapped registers by physical address.
//!
//! The boards run with the MMU off (ARM) or in direct-address mode (LoongArch), so a device's
//! physical address is used as a pointer as-is.

/// Reads a 32-bit register.
///
/// # Safety
///
/// `addr` must be the 4-byte aligned address of a readable 32-bit device register (or of
/// memory valid for reads), and reading it must have no side effect the caller is not prepared
/// for.
#[inline(always)]
pub unsafe fn read32(addr: usize) -> u32 {
    // SAFETY: the caller guarantees `addr` is a valid, aligned, readable register.
    unsafe { core::ptr::read_volatile(addr as *const u32) }
}

/// Writes a 32-bit register.
///
/// # Safety
///
/// `addr` must be the 4-byte aligned address of a writable 32-bit device register, and the
/// write must not break an invariant of code that owns the device (or memory) there.
#[inline(always)]
pub unsafe fn write32(addr: usize, value: u32) {
    // SAFETY: the caller guarantees `addr` is a valid, aligned, writable register.
    unsafe { core::ptr::write_volatile(addr as *mut u32, value) }
}

/// Reads an 8-bit register.
///
/// # Safety
///
/// As [`read32`], for a byte-wide register.
#[inline(always)]
pub unsafe fn read8(addr: usize) -> u8 {
    // SAFETY: the caller guarantees `addr` is a valid, readable byte register.
    unsafe { core::ptr::read_volatile(addr as *const u8) }
}

/// Writes an 8-bit register.
///
/// # Safety
///
/// As [`write32`], for a byte-wide register.
#[inline(always)]
pub unsafe fn write8(addr: usize, value: u8) {
    // SAFETY: the caller guarantees `addr` is a valid, writable byte register.
    unsafe { core::ptr::write_volatile(addr as *mut u8, value) }
}

/// Writes a 16-bit register.
///
/// # Safety
///
/// As [`write32`], for a 2-byte aligned halfword register.
#[inline(always)]
pub unsafe fn write16(addr: usize, value: u16) {
    // SAFETY: the caller guarantees `addr` is a valid, aligned, writable halfword register.
    unsafe { core::ptr::write_volatile(addr as *mut u16, value) }
}
