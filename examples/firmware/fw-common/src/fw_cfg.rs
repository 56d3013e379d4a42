//! QEMU's firmware configuration device (`fw_cfg`), memory-mapped interface, read by bytes.
//!
//! `qemu-system-* -fw_cfg name=opt/<name>,string=<text>` puts a named item into this device;
//! `cargo xtask qemu` uses it to tell the LoongArch board the `-icount` shift it runs QEMU
//! with (that board has no instruction counter of its own, see its module docs).
//!
//! Register layout of the MMIO variant (QEMU's `docs/specs/fw_cfg.rst`): data at base + 0
//! (any access width up to 8 bytes; byte reads return consecutive bytes of the selected item),
//! selector at base + 8 (16 bits, big-endian; writing it rewinds the item to its first byte).
//! Items used here: the signature (key 0x0000, the bytes `QEMU`) and the file directory (key
//! 0x0019: a big-endian 32-bit count, then per file a big-endian 32-bit size, 16-bit key,
//! 16 reserved bits and a NUL-padded 56-byte name).

use crate::mmio;

/// Key of the signature item.
const KEY_SIGNATURE: u16 = 0x0000;
/// Key of the file directory.
const KEY_FILE_DIR: u16 = 0x0019;
/// Length of a file name in a directory entry.
const NAME_LEN: usize = 56;
/// Most directory entries looked at (QEMU's own list is a few dozen; a bound, not a limit
/// anyone should reach).
const MAX_FILES: u32 = 256;

/// A `fw_cfg` device at a fixed MMIO base.
#[derive(Clone, Copy, Debug)]
pub struct FwCfg {
    base: usize,
}

impl FwCfg {
    /// The device at `base`, if its signature reads `QEMU`.
    ///
    /// # Safety
    ///
    /// `base` must be the base of a QEMU `fw_cfg` MMIO device (data at +0, selector at +8)
    /// that nothing else uses while this value exists.
    pub unsafe fn probe(base: usize) -> Option<Self> {
        let dev = Self { base };
        dev.select(KEY_SIGNATURE);
        let mut sig = [0u8; 4];
        dev.read(&mut sig);
        (&sig == b"QEMU").then_some(dev)
    }

    /// Selects item `key` and rewinds it.
    fn select(&self, key: u16) {
        // SAFETY: the selector register of the device `probe` was given (its contract).
        unsafe { mmio::write16(self.base + 8, key.to_be()) };
    }

    /// Reads the next `buf.len()` bytes of the selected item (zeros past its end).
    fn read(&self, buf: &mut [u8]) {
        for byte in buf {
            // SAFETY: the data register of the device `probe` was given; a byte read only
            // advances the item's offset.
            *byte = unsafe { mmio::read8(self.base) };
        }
    }

    /// Reads a big-endian 32-bit value of the selected item.
    fn read_be32(&self) -> u32 {
        let mut b = [0u8; 4];
        self.read(&mut b);
        u32::from_be_bytes(b)
    }

    /// Copies the file `name` (e.g. `opt/timer-family/icount-shift`) into `buf` and returns
    /// its contents (at most `buf.len()` bytes); `None` if the device has no such file.
    pub fn read_file<'b>(&self, name: &str, buf: &'b mut [u8]) -> Option<&'b [u8]> {
        let want = name.as_bytes();
        if want.len() >= NAME_LEN {
            return None;
        }
        self.select(KEY_FILE_DIR);
        let count = self.read_be32().min(MAX_FILES);
        let mut found = None;
        for _ in 0..count {
            let size = self.read_be32();
            let mut key = [0u8; 2];
            self.read(&mut key);
            let mut reserved = [0u8; 2];
            self.read(&mut reserved);
            let mut entry = [0u8; NAME_LEN];
            self.read(&mut entry);
            let len = entry.iter().position(|&b| b == 0).unwrap_or(NAME_LEN);
            if found.is_none() && &entry[..len] == want {
                found = Some((u16::from_be_bytes(key), size));
            }
        }
        let (key, size) = found?;
        let len = usize::try_from(size).map_or(buf.len(), |s| s.min(buf.len()));
        self.select(key);
        let out = buf.get_mut(..len)?;
        self.read(out);
        Some(out)
    }
}
