//! What the two 16550 probes (LoongArch virt, MIPS Malta) share: byte-register access and
//! a bounded transmit.

/// Writes a byte register.
pub fn write8(addr: usize, value: u8) {
    // SAFETY: every caller passes a register of the board's 16550 UART or power controller,
    // mapped by the board at that address (LoongArch direct-address mode; MIPS KSEG1).
    unsafe { core::ptr::write_volatile(addr as *mut u8, value) }
}

/// Reads a byte register.
pub fn read8(addr: usize) -> u8 {
    // SAFETY: as for `write8`.
    unsafe { core::ptr::read_volatile(addr as *const u8) }
}

/// Sends `line` through the UART whose transmit holding register is `thr` and line status
/// register `lsr`, waiting a bounded number of polls for room before each byte.
pub fn send(thr: usize, lsr: usize, line: &[u8]) {
    for &byte in line {
        for _ in 0..100_000 {
            // LSR bit 5: transmit holding register empty.
            if read8(lsr) & (1 << 5) != 0 {
                break;
            }
        }
        write8(thr, byte);
    }
}
