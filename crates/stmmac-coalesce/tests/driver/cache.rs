//! Cache maintenance on non-coherent memory (GMAC 3.x).

use crate::harness::*;

use stmmac_coalesce::Dwmac as _;
use stmmac_coalesce::sim::{AnPhy, SimArena, eth_frame};
use stmmac_coalesce::{Coherent, ConfigError, DmaConfig, Error, NoTimer, RxRing, ring_bytes};

type Board = crate::harness::Board<OnGmac3>;

fn dma() -> DmaConfig {
    OnGmac3::dma()
}

// ---- Cache maintenance ---------------------------------------------------------------

pub(crate) fn cached_board(line: usize, cache_line_cfg: usize) -> (Board, SimArena) {
    let arena = SimArena::non_coherent(0x1000_0000, 4 << 20, line);
    let b = Board::with(
        AnPhy::gigabit(),
        arena.clone(),
        DmaConfig {
            cache_line: cache_line_cfg,
            ..dma()
        },
        |m| m,
    );
    b.link_up();
    (b, arena)
}

#[test]
fn cache_hook_makes_tx_and_rx_work_on_non_coherent_memory() {
    let (b, arena) = cached_board(64, 64);
    assert_eq!(b.setup.desc_stride(), 64);
    assert_eq!(b.setup.dsl(), 12, "(64 - 16) / 4");
    let mut tx = b.tx(tx_cfg(8, no_timer(1)), NoTimer, arena.cache());
    let mut rx = b.rx(rx_cfg(8, 512), arena.cache());
    let mut sent = Vec::new();
    for k in 0..12u8 {
        let f = eth_frame([0xFF; 6], 100 + usize::from(k), k);
        tx.send(&b.mac, &f).unwrap();
        tx.service(&b.mac, b.mac.take_events());
        sent.push(f);
    }
    assert_eq!(b.sent(), sent, "the DMA read what the CPU wrote");
    let mut scratch = [0u8; 1518];
    for k in 0..12u8 {
        let f = eth_frame(US, 300 + 97 * usize::from(k), k);
        b.inject(&f);
        let mut fr = rx.receive(&b.mac).unwrap();
        assert_eq!(fr.bytes(&mut scratch).unwrap(), &f[..], "frame {k}");
    }
    let (cleans, invalidates) = arena.cache_ops();
    assert!(cleans > 0 && invalidates > 0);
}

#[test]
fn cache_no_op_on_non_coherent_memory_loses_frames() {
    // What `Coherent` requires: uncached or coherent memory. On a cached arena the DMA never
    // sees OWN, so nothing is sent.
    let (b, _arena) = cached_board(64, 64);
    let mut tx = b.tx(tx_cfg(8, no_timer(1)), NoTimer, Coherent);
    tx.send(&b.mac, &eth_frame([0xFF; 6], 60, 0)).unwrap();
    assert!(b.sent().is_empty());
}

#[test]
fn cache_line_shorter_than_the_real_one_is_refused() {
    // Descriptors packed at 16 bytes would share 64-byte lines: giving one back (clean)
    // would write the CPU's stale copy of its neighbours over what the DMA wrote there, and
    // an invalidation would discard neighbouring data. The ring takes the line from its
    // cache hook's promise (`CacheOps::line`) and refuses a shorter configured line; with
    // the right one, two frames received back to back both arrive.
    let (b, arena) = cached_board(64, 16);
    let mem = arena.region(ring_bytes(8, 512, 64)).unwrap();
    assert_eq!(
        RxRing::new(mem, &arena, &b.setup, rx_cfg(8, 512), arena.cache()).map(|_| ()),
        Err(Error::Config(ConfigError::CacheLineTooShort))
    );
    let mem = arena.region(ring_bytes(8, 1536, 64)).unwrap();
    assert_eq!(
        stmmac_coalesce::TxRing::new(
            mem,
            &arena,
            &b.setup,
            tx_cfg(8, no_timer(1)),
            NoTimer,
            arena.cache()
        )
        .map(|_| ()),
        Err(Error::Config(ConfigError::CacheLineTooShort))
    );
    let (b, arena) = cached_board(64, 64);
    let mut rx = b.rx(rx_cfg(8, 512), arena.cache());
    b.inject(&eth_frame(US, 100, 1));
    let first = rx.receive(&b.mac).unwrap();
    // The second frame arrives while the CPU holds the first one's descriptor.
    b.inject(&eth_frame(US, 100, 2));
    drop(first);
    let mut got = 1;
    for _ in 0..4 {
        if rx.receive(&b.mac).is_ok() {
            got += 1;
        }
    }
    assert_eq!(got, 2);
}

/// Cache maintenance that records every range it is given that does not start on a line
/// or does not cover whole lines (the `CacheOps` contract), and passes it on.
/// (operation, offset in the line, length) of each range off the lines.
type OffLine = std::rc::Rc<std::cell::RefCell<Vec<(&'static str, usize, usize)>>>;

#[derive(Clone)]
struct LineCheck {
    inner: stmmac_coalesce::sim::SimCache,
    line: usize,
    bad: OffLine,
}

impl LineCheck {
    fn check(&self, op: &'static str, ptr: *const u8, len: usize) {
        if !(ptr as usize).is_multiple_of(self.line) || !len.is_multiple_of(self.line) {
            self.bad
                .borrow_mut()
                .push((op, ptr as usize % self.line, len));
        }
    }
}

// SAFETY: forwards to the arena's own cache, whose line it reports.
unsafe impl stmmac_coalesce::CacheOps for LineCheck {
    fn line(&self) -> usize {
        self.inner.line()
    }
    fn clean(&self, ptr: *const u8, len: usize) {
        self.check("clean", ptr, len);
        self.inner.clean(ptr, len);
    }
    fn invalidate(&self, ptr: *const u8, len: usize) {
        self.check("invalidate", ptr, len);
        self.inner.invalidate(ptr, len);
    }
}

/// Both rings share one geometry: every descriptor and buffer range either ring hands to
/// the cache hook covers whole lines. (The two rings' copies of the geometry differed: TX
/// cleaned a descriptor by its stride at set-up but by 16 bytes when sending, RX always by
/// 16 bytes, and TX cleaned a buffer by the frame's length: with 64-byte lines, parts of
/// lines.)
#[test]
fn cache_ranges_from_both_rings_cover_whole_lines() {
    let (b, arena) = cached_board(64, 64);
    let check = LineCheck {
        inner: arena.cache(),
        line: 64,
        bad: Default::default(),
    };
    let mut tx = b.tx(tx_cfg(4, no_timer(2)), NoTimer, check.clone());
    let mut rx = b.rx(rx_cfg(4, 512), check.clone());
    for len in [60, 100, 1000, 1514, 61] {
        tx.send(&b.mac, &eth_frame([0xFF; 6], len, 1)).unwrap();
        tx.reclaim();
    }
    let _ = tx.desc_words(1);
    for len in [60, 700, 1514] {
        b.inject(&eth_frame(US, len, 2));
        let mut scratch = [0u8; 1518];
        rx.receive(&b.mac).unwrap().bytes(&mut scratch).unwrap();
    }
    let _ = rx.receive(&b.mac);
    let _ = rx.desc_words(2);
    let _ = rx.has_data();
    tx.recover(&b.mac);
    rx.recover(&b.mac);
    assert_eq!(b.sent().len(), 5);
    assert_eq!(*check.bad.borrow(), [], "(op, offset in the line, length)");
}
