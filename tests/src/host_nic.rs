//! A link partner's network interface for smoltcp: frames queued in and out, handed to and
//! taken from a [`SwitchBoard`](crate::switch_board::SwitchBoard) port by the test.

use std::collections::VecDeque;

use smoltcp::phy::{self, DeviceCapabilities, Medium};
use smoltcp::time::Instant;

use crate::switch_board::ETH_ZLEN;

/// A host's NIC: what it received (to give smoltcp) and what smoltcp sent (padded to the
/// Ethernet minimum, as its MAC would put it on the wire).
#[derive(Debug, Default)]
pub struct HostNic {
    /// Frames received, not yet taken by smoltcp.
    pub rx: VecDeque<Vec<u8>>,
    /// Frames sent, not yet carried to the switch.
    pub tx: Vec<Vec<u8>>,
}

impl phy::Device for HostNic {
    type RxToken<'a> = HostRx;
    type TxToken<'a> = HostTx<'a>;

    fn receive(&mut self, _now: Instant) -> Option<(HostRx, HostTx<'_>)> {
        let f = self.rx.pop_front()?;
        Some((HostRx(f), HostTx(&mut self.tx)))
    }

    fn transmit(&mut self, _now: Instant) -> Option<HostTx<'_>> {
        Some(HostTx(&mut self.tx))
    }

    fn capabilities(&self) -> DeviceCapabilities {
        let mut caps = DeviceCapabilities::default();
        caps.medium = Medium::Ethernet;
        caps.max_transmission_unit = 1514;
        caps
    }
}

/// A received frame.
pub struct HostRx(Vec<u8>);

impl phy::RxToken for HostRx {
    fn consume<R, F: FnOnce(&[u8]) -> R>(self, f: F) -> R {
        f(&self.0)
    }
}

/// A frame to send.
pub struct HostTx<'a>(&'a mut Vec<Vec<u8>>);

impl phy::TxToken for HostTx<'_> {
    fn consume<R, F: FnOnce(&mut [u8]) -> R>(self, len: usize, f: F) -> R {
        let mut frame = vec![0u8; len];
        let r = f(&mut frame);
        if frame.len() < ETH_ZLEN {
            frame.resize(ETH_ZLEN, 0);
        }
        self.0.push(frame);
        r
    }
}
