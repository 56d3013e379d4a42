//! The sim arena on non-coherent memory never writes under a slice an RX ring lent out.
//!
//! `RxFrame::as_slice` invalidates the frame's buffer each time it is called; a second call
//! while the first slice is alive must not write the bytes the first slice covers (the
//! DMA does not write a CPU-owned buffer, so the cache and memory agree there). Under Miri
//! (`MIRIFLAGS=-Zmiri-ignore-leaks cargo +nightly miri test -p stmmac-coalesce --test
//! model arena_soundness`; the arena is leaked on purpose) an invalidation that copies whole
//! lines into the CPU's view regardless is undefined behaviour: the first slice's borrow is
//! invalidated by the write, and reading it is reported. Natively the test checks that both
//! slices see the frame.

use crate::harness::*;
use stmmac_coalesce::DmaConfig;
use stmmac_coalesce::sim::{AnPhy, SimArena, eth_frame};

#[test]
fn a_second_as_slice_does_not_write_under_the_first() {
    let arena = SimArena::non_coherent(0x1000_0000, 256 * 1024, 64);
    let b = Board::<OnGmac3>::with(
        AnPhy::gigabit(),
        arena.clone(),
        DmaConfig {
            cache_line: 64,
            ..OnGmac3::dma()
        },
        |m| m,
    );
    b.link_up();
    let mut rx = b.rx(rx_cfg(4, 512), arena.cache());
    let f = eth_frame(US, 300, 7);
    b.inject(&f);
    let fr = rx.receive(&b.mac).unwrap();
    let first = fr.as_slice().unwrap();
    let before = arena.cache_ops().1;
    let second = fr.as_slice().unwrap();
    assert!(
        arena.cache_ops().1 > before,
        "the second call invalidated the buffer again"
    );
    // Read the first slice after the second invalidation.
    assert_eq!(first, &f[..]);
    assert_eq!(second, &f[..]);
}
