//! The host side of network boards (`[package.metadata.qemu] net = "tcp-echo"`).
//!
//! Everything stays on this machine. QEMU's user-mode network (slirp) runs inside the QEMU
//! process: `hostfwd=tcp:127.0.0.1:P-:7` makes slirp listen on 127.0.0.1:P and forward to
//! the guest's port 7, and a guest connection to 10.0.2.2:S becomes a host connection to
//! 127.0.0.1:S. This module
//!
//! 1. picks two free ports on 127.0.0.1 for `{port7}` and `{port9}` in the board's command
//!    (bind to port 0, read the port, close: a small race with other programs, reported as
//!    QEMU failing to bind);
//! 2. opens a **sink** on 127.0.0.1 (any port) that counts and checks what the guest streams
//!    to it;
//! 3. while QEMU runs, drives the guest's **TCP echo** with a client: [`ECHO_TOTAL`] bytes or
//!    more of deterministic pseudo-random data (xorshift64*) over several connections of 1
//!    byte to 64 KiB, every byte read back and compared; then connects to guest port 9 and
//!    writes `sink <port> <bytes>`, which ends the echo phase and starts the guest's stream.
//!
//! Every loop is bounded in count and time (connect attempts, read timeouts, an overall
//! deadline), and every socket is on 127.0.0.1.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::mpsc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// Bytes the echo client sends in total, at least (1 MiB).
pub const ECHO_TOTAL: usize = 1 << 20;
/// Largest connection.
const MAX_CONN: usize = 64 * 1024;
/// Bytes the guest streams to the sink per strategy (it runs four streams).
pub const STREAM_BYTES: u32 = 256 * 1024;
/// Streams the guest runs (jiffies, re-arm, arm once, per-frame IC).
const STREAMS: usize = 4;
/// Attempts at the first (1-byte) connection while the guest boots, half a second apart.
const PROBE_ATTEMPTS: u32 = 240;
/// Read timeout of one `read` call.
const READ_TIMEOUT: Duration = Duration::from_secs(30);
/// The whole client's deadline.
const CLIENT_DEADLINE: Duration = Duration::from_secs(200);

/// The loopback address every socket here uses.
const LOOPBACK: [u8; 4] = [127, 0, 0, 1];

/// A running host side.
pub struct NetRig {
    /// The ports substituted for `{port7}` and `{port9}`.
    pub port7: u16,
    /// See `port7`.
    pub port9: u16,
    client: JoinHandle<Result<EchoTotals, String>>,
    sink: JoinHandle<Result<Vec<u64>, String>>,
}

/// What the echo client did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EchoTotals {
    /// Bytes echoed and checked.
    pub bytes: u64,
    /// Connections that carried them.
    pub connections: u32,
}

/// A free TCP port on 127.0.0.1.
fn free_port() -> Result<u16, String> {
    let l = TcpListener::bind(SocketAddr::from((LOOPBACK, 0)))
        .map_err(|e| format!("cannot bind 127.0.0.1:0: {e}"))?;
    l.local_addr().map(|a| a.port()).map_err(|e| e.to_string())
}

/// xorshift64*: the client's deterministic data and sizes.
pub struct Prng(u64);

impl Prng {
    /// A generator from a non-zero seed.
    pub fn new(seed: u64) -> Self {
        Self(seed.max(1))
    }

    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// `n` bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut v = Vec::with_capacity(n + 8);
        while v.len() < n {
            v.extend_from_slice(&self.next_u64().to_le_bytes());
        }
        v.truncate(n);
        v
    }
}

/// The connection sizes: edge cases around one segment and the 64 KiB maximum first, then
/// pseudo-random sizes of 1 byte to 64 KiB until the total reaches [`ECHO_TOTAL`].
pub fn echo_sizes(rng: &mut Prng) -> Vec<usize> {
    let mut sizes = vec![1, 2, 3, 64, 511, 512, 513, 1459, 1460, 1461, 4096, MAX_CONN];
    while sizes.iter().sum::<usize>() < ECHO_TOTAL {
        sizes.push(1 + (rng.next_u64() % MAX_CONN as u64) as usize);
    }
    sizes
}

impl NetRig {
    /// Picks the ports, opens the sink and starts the client (which waits for the guest).
    pub fn start() -> Result<NetRig, String> {
        let port7 = free_port()?;
        let mut port9 = free_port()?;
        while port9 == port7 {
            port9 = free_port()?;
        }
        let sink = TcpListener::bind(SocketAddr::from((LOOPBACK, 0)))
            .map_err(|e| format!("cannot bind the sink on 127.0.0.1: {e}"))?;
        let sink_port = sink.local_addr().map_err(|e| e.to_string())?.port();
        let (done_tx, done_rx) = mpsc::channel();
        let client = thread::spawn(move || {
            let r = client(port7, port9, sink_port);
            let _ = done_tx.send(());
            r
        });
        let sink = thread::spawn(move || run_sink(sink, done_rx));
        Ok(NetRig {
            port7,
            port9,
            client,
            sink,
        })
    }

    /// Waits for the client and the sink (QEMU has exited), and checks the firmware's
    /// `tcp-echo:` line and the streams against them.
    pub fn finish(self, stdout: &str) -> Result<String, String> {
        let totals = self
            .client
            .join()
            .map_err(|_| "the echo client panicked".to_owned())??;
        let streams = self
            .sink
            .join()
            .map_err(|_| "the sink panicked".to_owned())??;
        let want = format!(
            "tcp-echo: bytes={} connections={}",
            totals.bytes, totals.connections
        );
        if !stdout.lines().any(|l| l.trim_end() == want) {
            return Err(format!(
                "the host client echoed {} bytes over {} connections, but the firmware did not print `{want}`",
                totals.bytes, totals.connections
            ));
        }
        if streams.len() != STREAMS || streams.iter().any(|&n| n != u64::from(STREAM_BYTES)) {
            return Err(format!(
                "the sink expected {STREAMS} streams of {STREAM_BYTES} bytes, got {streams:?}"
            ));
        }
        Ok(format!(
            "host client: {} bytes echoed and checked over {} connections; sink: {} streams of {} bytes checked",
            totals.bytes,
            totals.connections,
            streams.len(),
            STREAM_BYTES
        ))
    }
}

/// One echo connection: write `data` (on a thread), shut down the write side, read the
/// echo until EOF, compare. `Ok(false)`: the guest refused or reset it before any byte came
/// back (not up yet).
fn echo_once(port: u16, data: &[u8]) -> Result<bool, String> {
    let addr = SocketAddr::from((LOOPBACK, port));
    let Ok(stream) = TcpStream::connect_timeout(&addr, Duration::from_secs(2)) else {
        return Ok(false);
    };
    stream
        .set_read_timeout(Some(READ_TIMEOUT))
        .map_err(|e| e.to_string())?;
    let _ = stream.set_nodelay(true);
    let mut writer = stream.try_clone().map_err(|e| e.to_string())?;
    let out = data.to_vec();
    let w = thread::spawn(move || {
        let r = writer.write_all(&out);
        let _ = writer.shutdown(Shutdown::Write);
        r
    });
    let mut got = Vec::with_capacity(data.len());
    let mut reader = stream;
    let mut buf = vec![0u8; 16 * 1024];
    let read_err = loop {
        match reader.read(&mut buf) {
            Ok(0) => break None,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) => break Some(e),
        }
        if got.len() > data.len() {
            break None;
        }
    };
    let wrote = w.join().map_err(|_| "writer panicked".to_owned())?;
    if got.is_empty() {
        // Reset or closed before any echo: the guest was not listening yet.
        return Ok(false);
    }
    if let Some(e) = read_err {
        return Err(format!(
            "echo of {} bytes: read failed after {} bytes: {e}",
            data.len(),
            got.len()
        ));
    }
    wrote.map_err(|e| format!("echo of {} bytes: write failed: {e}", data.len()))?;
    if got != data {
        let at = got
            .iter()
            .zip(data)
            .position(|(a, b)| a != b)
            .unwrap_or(got.len().min(data.len()));
        return Err(format!(
            "echo of {} bytes came back as {} bytes, first difference at byte {at}",
            data.len(),
            got.len()
        ));
    }
    Ok(true)
}

/// The client: the echo connections, then `sink <port> <bytes>` on port 9.
fn client(port7: u16, port9: u16, sink_port: u16) -> Result<EchoTotals, String> {
    let start = Instant::now();
    let mut rng = Prng::new(0x5eed_0002_7e57_0001);
    let sizes = echo_sizes(&mut rng);
    let mut totals = EchoTotals {
        bytes: 0,
        connections: 0,
    };
    for (i, &size) in sizes.iter().enumerate() {
        let data = rng.bytes(size);
        let attempts = if i == 0 { PROBE_ATTEMPTS } else { 3 };
        let mut ok = false;
        for _ in 0..attempts {
            if start.elapsed() > CLIENT_DEADLINE {
                return Err(format!(
                    "echo client: deadline of {} s passed",
                    CLIENT_DEADLINE.as_secs()
                ));
            }
            if echo_once(port7, &data)? {
                ok = true;
                break;
            }
            thread::sleep(Duration::from_millis(500));
        }
        if !ok {
            return Err(format!(
                "echo client: connection {i} ({size} bytes) refused {attempts} times"
            ));
        }
        totals.bytes += size as u64;
        totals.connections += 1;
    }
    // Finish: the port-9 connection, with the stream request.
    let addr = SocketAddr::from((LOOPBACK, port9));
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(5))
        .map_err(|e| format!("port 9: {e}"))?;
    s.write_all(format!("sink {sink_port} {STREAM_BYTES}\n").as_bytes())
        .map_err(|e| format!("port 9: {e}"))?;
    let _ = s.shutdown(Shutdown::Write);
    let _ = s.set_read_timeout(Some(Duration::from_secs(10)));
    let mut rest = Vec::new();
    let _ = s.read_to_end(&mut rest);
    Ok(totals)
}

/// The sink: up to [`STREAMS`] connections from the guest, one after the other, each
/// checked against the guest's pattern (byte `i` is `i mod 256`). Ends when the client is
/// done and no stream came for a while, or after the overall deadline.
fn run_sink(listener: TcpListener, client_done: mpsc::Receiver<()>) -> Result<Vec<u64>, String> {
    listener.set_nonblocking(true).map_err(|e| e.to_string())?;
    let start = Instant::now();
    let mut counts = Vec::new();
    let mut done_at: Option<Instant> = None;
    while counts.len() < STREAMS && start.elapsed() < CLIENT_DEADLINE + Duration::from_secs(30) {
        if done_at.is_none() && client_done.try_recv().is_ok() {
            done_at = Some(Instant::now());
        }
        if done_at.is_some_and(|t| t.elapsed() > Duration::from_secs(120)) {
            break;
        }
        match listener.accept() {
            Ok((mut s, peer)) => {
                if !peer.ip().is_loopback() {
                    return Err(format!("sink: connection from {peer}, not loopback"));
                }
                s.set_nonblocking(false).map_err(|e| e.to_string())?;
                s.set_read_timeout(Some(READ_TIMEOUT))
                    .map_err(|e| e.to_string())?;
                let mut n = 0u64;
                let mut buf = vec![0u8; 64 * 1024];
                loop {
                    match s.read(&mut buf) {
                        Ok(0) => break,
                        Ok(k) => {
                            for (i, &b) in buf[..k].iter().enumerate() {
                                if b != ((n + i as u64) % 256) as u8 {
                                    return Err(format!(
                                        "sink: stream {} byte {} is {b:#04x}",
                                        counts.len(),
                                        n + i as u64
                                    ));
                                }
                            }
                            n += k as u64;
                        }
                        Err(e) => {
                            return Err(format!(
                                "sink: stream {} read failed after {n} bytes: {e}",
                                counts.len()
                            ));
                        }
                    }
                }
                counts.push(n);
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(format!("sink: accept failed: {e}")),
        }
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_cover_the_range_and_the_total() {
        let sizes = echo_sizes(&mut Prng::new(7));
        assert!(sizes.iter().sum::<usize>() >= ECHO_TOTAL);
        assert_eq!(sizes.iter().min(), Some(&1));
        assert_eq!(sizes.iter().max(), Some(&MAX_CONN));
        assert!(sizes.len() > 12, "several connections");
        assert_eq!(echo_sizes(&mut Prng::new(7)), sizes, "deterministic");
    }

    #[test]
    fn prng_bytes_are_deterministic_and_not_constant() {
        let a = Prng::new(1).bytes(1000);
        assert_eq!(a, Prng::new(1).bytes(1000));
        assert_ne!(a, Prng::new(2).bytes(1000));
        assert!(a.iter().any(|&b| b != a[0]));
    }

    /// The client and sink against a loopback echo server standing in for the guest.
    #[test]
    fn echo_once_checks_every_byte() {
        let l = TcpListener::bind(SocketAddr::from((LOOPBACK, 0))).unwrap();
        let port = l.local_addr().unwrap().port();
        let server = thread::spawn(move || {
            for corrupt in [false, true] {
                let (mut s, _) = l.accept().unwrap();
                let mut all = Vec::new();
                s.read_to_end(&mut all).unwrap();
                if corrupt {
                    all[10] ^= 1;
                }
                s.write_all(&all).unwrap();
            }
        });
        let data = Prng::new(3).bytes(5000);
        assert_eq!(echo_once(port, &data), Ok(true));
        let err = echo_once(port, &data).unwrap_err();
        assert!(err.contains("first difference at byte 10"), "{err}");
        server.join().unwrap();
    }
}
