//! One test per [`ConfigError`] cause, each through the public call that returns it and
//! asserting the exact variant (inside [`Error::Config`] where the call returns [`Error`]).

use crate::harness::*;

type Board = crate::harness::Board<OnGmac3>;

fn dma() -> stmmac_coalesce::DmaConfig {
    OnGmac3::dma()
}
use stmmac_coalesce::Dwmac as _;
use stmmac_coalesce::{
    CoalesceConfig, Coherent, ConfigError, DescLayout, DmaConfig, Error, NoTimer, RxConfig, RxRing,
    TimerStrategy, TxConfig, TxRing, ring_bytes,
};

/// `TxRing::new` on a fresh board with `cfg` and no timer.
fn tx_new(cfg: TxConfig) -> Result<(), Error> {
    let b = Board::new();
    let mem = b.arena.region(ring_bytes(16, 8192, 16)).unwrap();
    TxRing::new(mem, &b.arena, &b.setup, cfg, NoTimer, Coherent).map(|_| ())
}

/// `RxRing::new` on a fresh board set up with `dma`.
fn rx_new(dma: DmaConfig, cfg: RxConfig) -> Result<(), Error> {
    let b = Board::with(stmmac_coalesce::sim::AnPhy::gigabit(), arena(), dma, |m| m);
    let mem = b.arena.region(ring_bytes(64, 2048, 16)).unwrap();
    RxRing::new(mem, &b.arena, &b.setup, cfg, Coherent).map(|_| ())
}

fn coal(tx_frames: u32, tx_usecs: u32, rx_usecs: u32, rx_frames: u32) -> CoalesceConfig {
    CoalesceConfig {
        tx_frames,
        tx_usecs,
        rx_usecs,
        rx_frames,
    }
}

fn config(e: ConfigError) -> Result<(), Error> {
    Err(Error::Config(e))
}

#[test]
fn no_tx_completion() {
    assert_eq!(
        tx_new(tx_cfg(8, coal(0, 0, 0, 0))),
        config(ConfigError::NoTxCompletion)
    );
}

#[test]
fn tx_usecs_too_large() {
    let c = coal(
        1,
        stmmac_coalesce::ring::coalesce::MAX_COAL_TX_TICK + 1,
        0,
        0,
    );
    assert_eq!(c.validate(0), Err(ConfigError::TxUsecsTooLarge));
    assert_eq!(tx_new(tx_cfg(8, c)), config(ConfigError::TxUsecsTooLarge));
}

#[test]
fn tx_frames_too_large() {
    let n = stmmac_coalesce::ring::coalesce::TX_MAX_FRAMES + 1;
    assert_eq!(
        tx_new(tx_cfg(512, coal(n, 0, 0, 0))),
        config(ConfigError::TxFramesTooLarge)
    );
}

#[test]
fn tx_frames_exceed_ring() {
    assert_eq!(
        tx_new(tx_cfg(8, coal(9, 0, 0, 0))),
        config(ConfigError::TxFramesExceedRing)
    );
}

#[test]
fn no_timer_for_tx_usecs() {
    // tx_usecs asks for a cleanup timer; `NoTimer` is none.
    assert_eq!(
        tx_new(tx_cfg(8, coal(4, 100, 0, 0))),
        config(ConfigError::NoTimer)
    );
}

#[test]
fn buf_size() {
    let tx = |buf_size| {
        tx_new(TxConfig {
            buf_size,
            ..tx_cfg(8, no_timer(1))
        })
    };
    assert_eq!(tx(0), config(ConfigError::BufSize));
    assert_eq!(tx(2048), config(ConfigError::BufSize), "TBS1 is 11 bits");
    // RX: a multiple of the bus width as well.
    assert_eq!(rx_new(dma(), rx_cfg(8, 510)), config(ConfigError::BufSize));
}

#[test]
fn max_frame() {
    let rx = |max_frame| {
        rx_new(
            dma(),
            RxConfig {
                max_frame,
                ..rx_cfg(2, 512)
            },
        )
    };
    assert_eq!(rx(13), config(ConfigError::MaxFrame), "below a header");
    assert_eq!(
        rx(1021),
        config(ConfigError::MaxFrame),
        "1021 + FCS > 2 x 512"
    );
    assert_eq!(rx(1020), Ok(()));
}

#[test]
fn no_csr_clock() {
    let unknown = DmaConfig { csr_hz: 0, ..dma() };
    let cfg = RxConfig {
        coalesce: coal(25, 1000, 100, 0),
        ..rx_cfg(8, 512)
    };
    assert_eq!(rx_new(unknown, cfg), config(ConfigError::NoCsrClock));
}

#[test]
fn riwt_out_of_range() {
    // At 125 MHz one RIWT unit is 2.048 µs: 1 µs gives 0, 1000 µs gives 488.
    for rx_usecs in [1, 1000] {
        let cfg = RxConfig {
            coalesce: coal(25, 1000, rx_usecs, 0),
            ..rx_cfg(8, 512)
        };
        assert_eq!(
            rx_new(dma(), cfg),
            config(ConfigError::RiwtOutOfRange),
            "{rx_usecs}"
        );
    }
}

#[test]
fn rx_frames_without_watchdog() {
    let cfg = RxConfig {
        coalesce: coal(25, 1000, 0, 4),
        ..rx_cfg(8, 512)
    };
    assert_eq!(
        rx_new(dma(), cfg),
        config(ConfigError::RxFramesWithoutWatchdog)
    );
}

#[test]
fn rx_frames_exceed_ring() {
    let cfg = RxConfig {
        coalesce: coal(25, 1000, 100, 9),
        ..rx_cfg(8, 512)
    };
    assert_eq!(rx_new(dma(), cfg), config(ConfigError::RxFramesExceedRing));
}

/// `Gmac3::configure_dma` with `dma()` changed by `f`: the cause it refused with, if any.
fn configure(f: impl FnOnce(&mut DmaConfig)) -> Result<(), ConfigError> {
    let mut cfg = dma();
    f(&mut cfg);
    match Board::new().mac.configure_dma(&cfg) {
        Ok(_) => Ok(()),
        Err(Error::Config(e)) => Err(e),
        Err(other) => panic!("{other}"),
    }
}

#[test]
fn cache_line() {
    for line in [0, 8, 48, 512] {
        let r = configure(|c| c.cache_line = line);
        assert_eq!(r, Err(ConfigError::CacheLine), "{line}");
    }
}

#[test]
fn bus_width() {
    assert_eq!(configure(|c| c.bus_width = 2), Err(ConfigError::BusWidth));
}

#[test]
fn pbl() {
    assert_eq!(configure(|c| c.pbl = 0), Err(ConfigError::Pbl));
    assert_eq!(configure(|c| c.pbl = 33), Err(ConfigError::Pbl));
}

#[test]
fn descriptor_skip() {
    // 256-byte lines on a 32-bit bus: (256 - 16) / 4 = 60 words of padding, DSL has 5 bits.
    let r = configure(|c| c.cache_line = 256);
    assert_eq!(r, Err(ConfigError::DescriptorSkip));
    // On a 64-bit bus the same line fits (30 words).
    let wide = configure(|c| {
        c.cache_line = 256;
        c.bus_width = 8;
    });
    assert_eq!(wide, Ok(()));
}

#[test]
fn run_time_reconfiguration_refuses_with_the_same_causes() {
    let b = Board::new();
    let mut tx = b.tx(tx_cfg(8, no_timer(1)), NoTimer, Coherent);
    assert_eq!(
        tx.set_coalesce(coal(9, 0, 0, 0), TimerStrategy::ArmOnce),
        config(ConfigError::TxFramesExceedRing)
    );
    let mut rx = b.rx(rx_cfg(8, 512), Coherent);
    assert_eq!(
        rx.set_coalesce(&b.mac, coal(25, 1000, 0, 2)),
        config(ConfigError::RxFramesWithoutWatchdog)
    );
    let _ = DescLayout::Normal;
}
