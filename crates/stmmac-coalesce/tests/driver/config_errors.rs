//! One test per [`ConfigError`] cause, each through the public call that returns it and
//! asserting the exact variant (inside [`Error::Config`] where the call returns [`Error`]).

use crate::harness::*;

use stmmac_coalesce::Dwmac as _;
use stmmac_coalesce::{
    CoalesceConfig, Coherent, ConfigError, DescLayout, DmaConfig, Error, NoTimer, RxConfig, RxRing,
    TimerStrategy, TxConfig, TxRing, ring_bytes,
};

/// `TxRing::new` on a fresh board with `cfg` and no timer.
fn tx_new<G: Generation>(cfg: TxConfig) -> Result<(), Error> {
    let b = Board::<G>::new();
    let mem = b.arena.region(ring_bytes(16, 8192, 16)).unwrap();
    TxRing::new(mem, &b.arena, &b.setup, cfg, NoTimer, Coherent).map(|_| ())
}

/// `RxRing::new` on a fresh board set up with `dma`.
fn rx_new<G: Generation>(dma: DmaConfig, cfg: RxConfig) -> Result<(), Error> {
    let b = Board::<G>::with(stmmac_coalesce::sim::AnPhy::gigabit(), arena(), dma, |m| m);
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

fn no_tx_completion<G: Generation>() {
    assert_eq!(
        tx_new::<G>(tx_cfg(8, coal(0, 0, 0, 0))),
        config(ConfigError::NoTxCompletion)
    );
}

fn tx_usecs_too_large<G: Generation>() {
    let c = coal(
        1,
        stmmac_coalesce::ring::coalesce::MAX_COAL_TX_TICK + 1,
        0,
        0,
    );
    assert_eq!(c.validate(0), Err(ConfigError::TxUsecsTooLarge));
    assert_eq!(
        tx_new::<G>(tx_cfg(8, c)),
        config(ConfigError::TxUsecsTooLarge)
    );
}

fn tx_frames_too_large<G: Generation>() {
    let n = stmmac_coalesce::ring::coalesce::TX_MAX_FRAMES + 1;
    assert_eq!(
        tx_new::<G>(tx_cfg(512, coal(n, 0, 0, 0))),
        config(ConfigError::TxFramesTooLarge)
    );
}

fn tx_frames_exceed_ring<G: Generation>() {
    assert_eq!(
        tx_new::<G>(tx_cfg(8, coal(G::ring_capacity(8) as u32 + 1, 0, 0, 0))),
        config(ConfigError::TxFramesExceedRing)
    );
}

fn no_timer_for_tx_usecs<G: Generation>() {
    // tx_usecs asks for a cleanup timer; `NoTimer` is none.
    assert_eq!(
        tx_new::<G>(tx_cfg(8, coal(4, 100, 0, 0))),
        config(ConfigError::NoTimer)
    );
}

fn buf_size<G: Generation>() {
    let tx = |buf_size| {
        tx_new::<G>(TxConfig {
            buf_size,
            ..tx_cfg(8, no_timer(1))
        })
    };
    assert_eq!(tx(0), config(ConfigError::BufSize));
    assert_eq!(tx(2048), config(ConfigError::BufSize), "TBS1 is 11 bits");
    // RX: a multiple of the bus width as well.
    assert_eq!(
        rx_new::<G>(G::dma(), rx_cfg(8, 510)),
        config(ConfigError::BufSize)
    );
}

fn max_frame<G: Generation>() {
    let rx = |max_frame| {
        rx_new::<G>(
            G::dma(),
            RxConfig {
                max_frame,
                ..rx_cfg(2, 512)
            },
        )
    };
    assert_eq!(rx(13), config(ConfigError::MaxFrame), "below a header");
    // The frame and its FCS fit the buffers the DMA may own: 2 x 512 on GMAC 3.x, one
    // fewer descriptor on QoS.
    let usable = G::ring_capacity(2) * 512 - 4;
    assert_eq!(
        rx(usable + 1),
        config(ConfigError::MaxFrame),
        "{usable} + 1 + FCS > the ring"
    );
    assert_eq!(rx(usable), Ok(()));
}

fn no_csr_clock<G: Generation>() {
    let unknown = DmaConfig {
        csr_hz: 0,
        ..G::dma()
    };
    let cfg = RxConfig {
        coalesce: coal(25, 1000, 100, 0),
        ..rx_cfg(8, 512)
    };
    assert_eq!(rx_new::<G>(unknown, cfg), config(ConfigError::NoCsrClock));
}

fn riwt_out_of_range<G: Generation>() {
    // At 125 MHz one RIWT unit is 2.048 µs: 1 µs gives 0, 1000 µs gives 488.
    for rx_usecs in [1, 1000] {
        let cfg = RxConfig {
            coalesce: coal(25, 1000, rx_usecs, 0),
            ..rx_cfg(8, 512)
        };
        assert_eq!(
            rx_new::<G>(G::dma(), cfg),
            config(ConfigError::RiwtOutOfRange),
            "{rx_usecs}"
        );
    }
}

fn rx_frames_without_watchdog<G: Generation>() {
    let cfg = RxConfig {
        coalesce: coal(25, 1000, 0, 4),
        ..rx_cfg(8, 512)
    };
    assert_eq!(
        rx_new::<G>(G::dma(), cfg),
        config(ConfigError::RxFramesWithoutWatchdog)
    );
}

fn rx_frames_exceed_ring<G: Generation>() {
    let cfg = RxConfig {
        coalesce: coal(25, 1000, 100, 9),
        ..rx_cfg(8, 512)
    };
    assert_eq!(
        rx_new::<G>(G::dma(), cfg),
        config(ConfigError::RxFramesExceedRing)
    );
}

/// `configure_dma` with the generation's `G::dma()` changed by `f`: the cause it refused with, if any.
fn configure<G: Generation>(f: impl FnOnce(&mut DmaConfig)) -> Result<(), ConfigError> {
    let mut cfg = G::dma();
    f(&mut cfg);
    match Board::<G>::new().mac.configure_dma(&cfg) {
        Ok(_) => Ok(()),
        Err(Error::Config(e)) => Err(e),
        Err(other) => panic!("{other}"),
    }
}

fn cache_line<G: Generation>() {
    for line in [0, 8, 48, 512] {
        let r = configure::<G>(|c| c.cache_line = line);
        assert_eq!(r, Err(ConfigError::CacheLine), "{line}");
    }
}

fn bus_width<G: Generation>() {
    assert_eq!(
        configure::<G>(|c| c.bus_width = 2),
        Err(ConfigError::BusWidth)
    );
}

fn pbl<G: Generation>() {
    assert_eq!(configure::<G>(|c| c.pbl = 0), Err(ConfigError::Pbl));
    assert_eq!(configure::<G>(|c| c.pbl = 33), Err(ConfigError::Pbl));
}

fn descriptor_skip<G: Generation>() {
    // 256-byte lines on a 32-bit bus: (256 - 16) / 4 = 60 words of padding, DSL has 5 bits.
    let r = configure::<G>(|c| c.cache_line = 256);
    assert_eq!(r, Err(ConfigError::DescriptorSkip));
    // On a 64-bit bus the same line fits (30 words).
    let wide = configure::<G>(|c| {
        c.cache_line = 256;
        c.bus_width = 8;
    });
    assert_eq!(wide, Ok(()));
}

fn run_time_reconfiguration_refuses_with_the_same_causes<G: Generation>() {
    let b = Board::<G>::new();
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

on_both!(
    no_tx_completion,
    tx_usecs_too_large,
    tx_frames_too_large,
    tx_frames_exceed_ring,
    no_timer_for_tx_usecs,
    max_frame,
    no_csr_clock,
    riwt_out_of_range,
    rx_frames_without_watchdog,
    rx_frames_exceed_ring,
    cache_line,
    bus_width,
    pbl,
    run_time_reconfiguration_refuses_with_the_same_causes,
);

mod gmac3_only {
    /// TBS1 is 11 bits on GMAC 3.x (QoS's buffer length field is wider).
    #[test]
    fn buf_size() {
        super::buf_size::<crate::harness::OnGmac3>()
    }

    #[test]
    fn descriptor_skip() {
        super::descriptor_skip::<crate::harness::OnGmac3>()
    }
}
