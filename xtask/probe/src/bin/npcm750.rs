//! Boot probe for QEMU `-M npcm750-evb` (NPCM750): UART0 output, semihosting exit.
#![no_std]
#![no_main]

#[path = "../arm.rs"]
mod arm;

/// UART0 (16550, registers 4 bytes apart): transmit holding register.
const THR: usize = 0xf000_1000;
/// UART0 line status register: bit 5 = transmit holding register empty.
const LSR: usize = 0xf000_1014;

/// Sends a byte, waiting a bounded number of polls for room.
fn put(byte: u8) {
    for _ in 0..100_000 {
        if arm::read32(LSR) & (1 << 5) != 0 {
            break;
        }
    }
    arm::write32(THR, u32::from(byte));
}

/// Called by the entry code on CPU0.
#[unsafe(no_mangle)]
extern "C" fn probe_main() -> ! {
    arm::report("npcm750", put)
}
