//! The `csrrd` and `rdtime.d` blocks of `NativeCsr` must not claim `nomem`, or
//! the compiler may move them across the memory accesses they are ordered with (a flag
//! stored before an ESTAT read, the published time after a `rdtime.d`). The native backend
//! only builds for loongarch64, so this reads its source: every `asm!` block that names
//! `csrrd`, `csrwr` or `rdtime.d` is checked for the option.

const CSR_RS: &str = include_str!("../../src/csr.rs");

/// The text of each `asm!( ... )` invocation in `src`.
fn asm_blocks(src: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = src;
    while let Some(start) = rest.find("asm!(") {
        let body = &rest[start..];
        let mut depth = 0usize;
        let mut end = body.len();
        for (i, c) in body.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.push(&body[..end]);
        rest = &body[end..];
    }
    out
}

#[test]
fn csr_and_time_reads_stay_ordered_with_memory() {
    let blocks = asm_blocks(CSR_RS);
    let ordered: Vec<_> = blocks
        .iter()
        .filter(|b| b.contains("csrrd") || b.contains("csrwr") || b.contains("rdtime.d"))
        .collect();
    assert!(
        ordered.len() >= 5,
        "csrrd, rdtime.d and the csrwr blocks: {ordered:?}"
    );
    for b in ordered {
        assert!(!b.contains("nomem"), "claims nomem: {b}");
        assert!(b.contains("nostack"), "nostack kept: {b}");
    }
}
