//! Ring configurations both test boards (`common`, 3.x; `common4`, 4.x) build from.

use stmmac_coalesce::{CoalesceConfig, RxConfig, TimerStrategy, TxConfig};

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
