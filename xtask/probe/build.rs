//! Link arguments for the probe binaries.
//!
//! `probe-link` uses rust-lld's default layout with an explicit entry (a missing entry is only a
//! warning, after which `--gc-sections` would discard everything; `--fatal-warnings` makes
//! it an error). Each board binary gets a linker script placing it where QEMU's `-kernel`
//! loads it on that board, generated here from [`BOARDS`].

use std::fmt::Write as _;
use std::path::PathBuf;

/// `(binary, RAM base the ELF is linked and loaded at)`.
const BOARDS: [(&str, u64); 4] = [
    // Exynos4210 DRAM0.
    ("probe-smdkc210", 0x4000_0000),
    // NPCM750 DRAM starts at 0; leave the first MiB alone.
    ("probe-npcm750", 0x0010_0000),
    // LoongArch virt: where Linux is loaded too, in direct-address mode.
    ("probe-loongarch-virt", 0x0020_0000),
    // Malta: KSEG0, 1 MiB into RAM (QEMU loads at the physical address, 0x0010_0000).
    ("probe-otto-malta", 0x8010_0000),
];

fn main() {
    println!("cargo:rustc-link-arg-bin=probe-link=--entry=_start");
    println!("cargo:rustc-link-arg-bin=probe-link=--fatal-warnings");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    for (bin, base) in BOARDS {
        let mut script = String::new();
        let _ = write!(
            script,
            "ENTRY(_start)\n\
             MEMORY {{ RAM : ORIGIN = {base:#x}, LENGTH = 1M }}\n\
             SECTIONS {{\n\
             \x20   .text : {{ KEEP(*(.text.start)) *(.text .text.*) }} > RAM\n\
             \x20   .rodata : ALIGN(8) {{ *(.rodata .rodata.*) }} > RAM\n\
             \x20   .data : ALIGN(8) {{ *(.data .data.* .sdata .sdata.*) }} > RAM\n\
             \x20   .bss (NOLOAD) : ALIGN(8) {{ *(.bss .bss.* .sbss .sbss.* COMMON) }} > RAM\n\
             \x20   .stack (NOLOAD) : ALIGN(16) {{ . += 16K; __stack_top = .; }} > RAM\n\
             }}\n"
        );
        let path = out.join(format!("{bin}.x"));
        std::fs::write(&path, script).expect("OUT_DIR is writable");
        println!("cargo:rustc-link-arg-bin={bin}=-T{}", path.display());
        println!("cargo:rustc-link-arg-bin={bin}=--fatal-warnings");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
