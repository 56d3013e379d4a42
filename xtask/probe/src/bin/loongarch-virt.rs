//! Boot probe for QEMU `-M virt` on LoongArch: UART0 output, power-off through the GED.
#![no_std]
#![no_main]

#[path = "../uart16550.rs"]
mod uart16550;

// Entry in direct-address mode (physical addresses as-is): enable the FPU (EUEN.FPE; the
// target is hard-float), take the stack from the linker script, run `probe_main`.
core::arch::global_asm!(
    r#"
    .section .text.start, "ax"
    .global _start
    .type _start, @function
_start:
    li.w        $t0, 1
    csrwr       $t0, 0x2
    la.pcrel    $sp, __stack_top
    bl          probe_main
1:  idle        0
    b           1b
"#
);

/// UART0 (ns16550a, byte registers): transmit holding register.
const THR: usize = 0x1fe0_01e0;
/// Line status register: bit 5 = transmit holding register empty.
const LSR: usize = 0x1fe0_01e5;
/// GED sleep control register; writing [`POWEROFF`] ends QEMU with status 0.
const GED_SLEEP_CTL: usize = 0x100e_001c;
/// The power-off command.
const POWEROFF: u8 = 0x34;

/// Called by the entry code.
#[unsafe(no_mangle)]
extern "C" fn probe_main() -> ! {
    uart16550::send(THR, LSR, b"setup-probe: loongarch-virt booted\r\n");
    uart16550::write8(GED_SLEEP_CTL, POWEROFF);
    loop {
        core::hint::spin_loop();
    }
}

#[panic_handler]
fn panic(_info: &core::panic::PanicInfo<'_>) -> ! {
    uart16550::write8(GED_SLEEP_CTL, POWEROFF);
    loop {
        core::hint::spin_loop();
    }
}
