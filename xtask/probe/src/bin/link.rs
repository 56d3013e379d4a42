//! Link check: `core` built for the target and a binary linked with rust-lld. Never run.
#![no_std]
#![no_main]

/// The entry point named in build.rs; referencing `core::fmt` pulls real code into the link.
#[unsafe(no_mangle)]
pub extern "C" fn _start() -> ! {
    let mut text = Buffer([0; 32], 0);
    let _ = core::fmt::write(&mut text, format_args!("{}", core::hint::black_box(42u64)));
    core::hint::black_box(&text);
    loop {
        core::hint::spin_loop();
    }
}

/// A fixed-size `fmt::Write` sink.
struct Buffer([u8; 32], usize);

impl core::fmt::Write for Buffer {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        for &byte in s.as_bytes() {
            let slot = self.0.get_mut(self.1).ok_or(core::fmt::Error)?;
            *slot = byte;
            self.1 += 1;
        }
        Ok(())
    }
}

#[panic_handler]
fn panic(_info: &core::panic::PanicInfo<'_>) -> ! {
    loop {
        core::hint::spin_loop();
    }
}
