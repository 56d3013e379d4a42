//! Ring configurations the test boards build from.

use stmmac_coalesce::sim::SimArena;
use stmmac_coalesce::{
    CacheOps, CleanupTimer, CoalesceConfig, DmaSetup, RxConfig, RxRing, TimerStrategy, TxConfig,
    TxRing, ring_bytes,
};

/// Coalescing with IC every `tx_frames` and no cleanup timer.
pub fn no_timer(tx_frames: u32) -> CoalesceConfig {
    CoalesceConfig {
        tx_frames,
        tx_usecs: 0,
        ..CoalesceConfig::default()
    }
}

/// `descriptors` TX descriptors of 1536 bytes, armed once.
pub fn tx_cfg(descriptors: usize, coalesce: CoalesceConfig) -> TxConfig {
    TxConfig {
        descriptors,
        buf_size: 1536,
        coalesce,
        strategy: TimerStrategy::ArmOnce,
    }
}

/// `descriptors` RX descriptors of `buf_size` bytes, default coalescing.
pub fn rx_cfg(descriptors: usize, buf_size: usize) -> RxConfig {
    RxConfig {
        descriptors,
        buf_size,
        ..RxConfig::default()
    }
}

/// A TX ring for `setup` carved from a fresh region of `arena` (not started).
pub fn new_tx<T: CleanupTimer, C: CacheOps>(
    arena: &SimArena,
    setup: &DmaSetup,
    cfg: TxConfig,
    timer: T,
    cache: C,
) -> TxRing<T, C> {
    let bytes = ring_bytes(cfg.descriptors, cfg.buf_size, setup.cache_line());
    let mem = arena.region(bytes).unwrap();
    TxRing::new(mem, arena, setup, cfg, timer, cache).unwrap()
}

/// An RX ring for `setup` carved from a fresh region of `arena` (not started).
pub fn new_rx<C: CacheOps>(
    arena: &SimArena,
    setup: &DmaSetup,
    cfg: RxConfig,
    cache: C,
) -> RxRing<C> {
    let bytes = ring_bytes(cfg.descriptors, cfg.buf_size, setup.cache_line());
    let mem = arena.region(bytes).unwrap();
    RxRing::new(mem, arena, setup, cfg, cache).unwrap()
}
