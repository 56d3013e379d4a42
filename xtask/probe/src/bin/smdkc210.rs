//! Boot probe for QEMU `-M smdkc210` (Exynos4210): UART0 output, semihosting exit.
#![no_std]
#![no_main]

#[path = "../arm.rs"]
mod arm;

/// UART0 UTRSTAT: bit 1 = transmit buffer empty.
const UTRSTAT: usize = 0x1380_0010;
/// UART0 UTXH: transmit holding register.
const UTXH: usize = 0x1380_0020;

/// Sends a byte, waiting a bounded number of polls for room.
fn put(byte: u8) {
    for _ in 0..100_000 {
        if arm::read32(UTRSTAT) & (1 << 1) != 0 {
            break;
        }
    }
    arm::write32(UTXH, u32::from(byte));
}

/// Called by the entry code on CPU0.
#[unsafe(no_mangle)]
extern "C" fn probe_main() -> ! {
    arm::report("smdkc210", put)
}
