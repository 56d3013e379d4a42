//! What the smoltcp tests over either model share: deterministic payloads and an
//! interface on a device.
#![allow(dead_code)]

use smoltcp::iface::{Config, Interface};
use smoltcp::time::Instant;
use smoltcp::wire::{EthernetAddress, HardwareAddress, IpAddress, IpCidr, Ipv4Address};

/// Deterministic bytes (xorshift32).
pub fn pattern(n: usize, mut seed: u32) -> Vec<u8> {
    (0..n)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed as u8
        })
        .collect()
}

/// An interface with MAC `mac` and the address `ip`/24.
pub fn iface(
    dev: &mut impl smoltcp::phy::Device,
    mac: [u8; 6],
    ip: [u8; 4],
    now: Instant,
) -> Interface {
    let cfg = Config::new(HardwareAddress::Ethernet(EthernetAddress(mac)));
    let mut iface = Interface::new(cfg, dev, now);
    iface.update_ip_addrs(|a| {
        a.push(IpCidr::new(
            IpAddress::Ipv4(Ipv4Address::new(ip[0], ip[1], ip[2], ip[3])),
            24,
        ))
        .unwrap();
    });
    iface
}

/// TCP from `dev_a` (10.0.2.1, `addr_a`) to `dev_b` (10.0.2.2, port 7, `addr_b`) of
/// `data`, in virtual time on `clock` (10 µs per round, at most 200 000 rounds); `between`
/// runs after both polls (move the frames, reclaim) and returns the frames it moved.
/// Returns what B received and the frames moved.
pub fn tcp_transfer<DA: smoltcp::phy::Device, DB: smoltcp::phy::Device>(
    clock: &hwtimer_core::sim::SimClock,
    a: (&mut DA, [u8; 6]),
    b: (&mut DB, [u8; 6]),
    data: &[u8],
    between: impl FnMut(&mut DA, &mut DB) -> usize,
) -> (Vec<u8>, usize) {
    tcp_transfer_idle(clock, a, b, data, 10_000, between)
}

/// [`tcp_transfer`], with rounds that move no frame `idle_ns` long (for a lossy wire, whose
/// retransmission timeouts are long against 10 µs rounds).
pub fn tcp_transfer_idle<DA: smoltcp::phy::Device, DB: smoltcp::phy::Device>(
    clock: &hwtimer_core::sim::SimClock,
    (dev_a, addr_a): (&mut DA, [u8; 6]),
    (dev_b, addr_b): (&mut DB, [u8; 6]),
    data: &[u8],
    idle_ns: u64,
    mut between: impl FnMut(&mut DA, &mut DB) -> usize,
) -> (Vec<u8>, usize) {
    use smoltcp::iface::{SocketSet, SocketStorage};
    use smoltcp::socket::tcp;
    let now = || Instant::from_micros((clock.now_ns() / 1000) as i64);
    let mut if_a = iface(dev_a, addr_a, [10, 0, 2, 1], now());
    let mut if_b = iface(dev_b, addr_b, [10, 0, 2, 2], now());
    let mut store_a = [SocketStorage::EMPTY];
    let mut store_b = [SocketStorage::EMPTY];
    let mut set_a = SocketSet::new(&mut store_a[..]);
    let mut set_b = SocketSet::new(&mut store_b[..]);
    let sock = |n: usize| {
        let buf = || tcp::SocketBuffer::new(&mut Vec::leak(vec![0u8; n])[..]);
        tcp::Socket::new(buf(), buf())
    };
    let ha = set_a.add(sock(8192));
    let hb = set_b.add(sock(8192));
    set_b.get_mut::<tcp::Socket>(hb).listen(7).unwrap();
    set_a
        .get_mut::<tcp::Socket>(ha)
        .connect(if_a.context(), (Ipv4Address::new(10, 0, 2, 2), 7), 49152)
        .unwrap();
    let (mut sent, mut got) = (0usize, Vec::new());
    let mut frames = 0;
    for _ in 0..200_000 {
        if_a.poll(now(), dev_a, &mut set_a);
        if_b.poll(now(), dev_b, &mut set_b);
        let moved = between(dev_a, dev_b);
        frames += moved;
        let s = set_a.get_mut::<tcp::Socket>(ha);
        if s.can_send() && sent < data.len() {
            sent += s.send_slice(&data[sent..]).unwrap();
        }
        let r = set_b.get_mut::<tcp::Socket>(hb);
        if r.can_recv() {
            r.recv(|buf| {
                got.extend_from_slice(buf);
                (buf.len(), ())
            })
            .unwrap();
        }
        if got.len() == data.len() {
            break;
        }
        clock.advance(if moved == 0 { idle_ns } else { 10_000 });
    }
    (got, frames)
}

/// A wire that drops, corrupts and reorders frames, deterministically from a seed
/// (xorshift32): each frame is dropped with `drop_pct` % chance, else has one bit flipped
/// after its Ethernet header with `corrupt_pct` %, else is held back and delivered after the
/// next frame with `reorder_pct` %. One per direction.
pub struct LossyWire {
    seed: u32,
    drop_pct: u32,
    corrupt_pct: u32,
    reorder_pct: u32,
    held: Option<Vec<u8>>,
    /// Frames dropped, corrupted and delivered out of order so far.
    pub dropped: usize,
    pub corrupted: usize,
    pub reordered: usize,
}

impl LossyWire {
    pub fn new(seed: u32, drop_pct: u32, corrupt_pct: u32, reorder_pct: u32) -> Self {
        Self {
            seed: seed.max(1),
            drop_pct,
            corrupt_pct,
            reorder_pct,
            held: None,
            dropped: 0,
            corrupted: 0,
            reordered: 0,
        }
    }

    fn next(&mut self) -> u32 {
        self.seed ^= self.seed << 13;
        self.seed ^= self.seed >> 17;
        self.seed ^= self.seed << 5;
        self.seed
    }

    fn chance(&mut self, pct: u32) -> bool {
        self.next() % 100 < pct
    }

    /// Carry `frames` (in the order sent) to `deliver`; how many were delivered.
    pub fn carry(&mut self, frames: Vec<Vec<u8>>, mut deliver: impl FnMut(&[u8])) -> usize {
        let mut n = 0;
        for mut f in frames {
            if self.chance(self.drop_pct) {
                self.dropped += 1;
                continue;
            }
            if f.len() > 14 && self.chance(self.corrupt_pct) {
                let i = 14 + self.next() as usize % (f.len() - 14);
                f[i] ^= 1 << (self.next() % 8);
                self.corrupted += 1;
            }
            if self.held.is_none() && self.chance(self.reorder_pct) {
                self.held = Some(f);
                self.reordered += 1;
                continue;
            }
            deliver(&f);
            n += 1;
            if let Some(h) = self.held.take() {
                deliver(&h);
                n += 1;
            }
        }
        n
    }
}

impl LossyWire {
    /// Panics unless this wire dropped, corrupted and reordered at least one frame each.
    pub fn assert_every_fault(&self) {
        assert!(
            self.dropped > 0 && self.corrupted > 0 && self.reordered > 0,
            "dropped {} corrupted {} reordered {}",
            self.dropped,
            self.corrupted,
            self.reordered
        );
    }
}

/// One round of the wire between A and B: what each sent, carried to the other through
/// `lossy` (A to B, B to A) or as it is; how many frames arrived.
pub fn carry_both(
    lossy: &mut Option<(LossyWire, LossyWire)>,
    (a_sent, mut to_a): (Vec<Vec<u8>>, impl FnMut(&[u8])),
    (b_sent, mut to_b): (Vec<Vec<u8>>, impl FnMut(&[u8])),
) -> usize {
    match lossy {
        Some((ab, ba)) => ab.carry(a_sent, &mut to_b) + ba.carry(b_sent, &mut to_a),
        None => {
            let n = a_sent.len() + b_sent.len();
            a_sent.iter().for_each(|f| to_b(f));
            b_sent.iter().for_each(|f| to_a(f));
            n
        }
    }
}
