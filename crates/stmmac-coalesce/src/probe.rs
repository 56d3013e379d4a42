//! [`probe`]: which DWMAC generation sits behind a register bus, told from the version
//! registers before anything is written.

use hwtimer_core::RegisterBus;

use crate::common::Error;
use crate::gmac3::Gmac3;
use crate::qos::Qos;

/// What [`probe`] found.
#[derive(Debug)]
pub enum Probed<B: RegisterBus<Word = u32>> {
    /// A GMAC 3.x (GMAC_VERSION at 0x20, SNPSVER 0x30..=0x3F).
    Gmac3(Gmac3<B>),
    /// A QoS 4.x/5.x core (MAC_VERSION at 0x110, SNPSVER
    /// [`SNPSVER_MIN`](crate::qos::SNPSVER_MIN) or later: from 0x51 on every version is
    /// driven as 5.x, as Linux's `stmmac_hwif_init` does).
    Qos(Qos<B>),
}

/// Tell a GMAC 3.x from a QoS 4.x/5.x core by their version registers, reading only:
/// MAC_VERSION (0x110) first, GMAC_VERSION (0x20) when that is not a QoS version.
///
/// Errors: [`Error::UnknownVersion`] when neither register holds a version this crate
/// drives; nothing was written.
pub fn probe<B: RegisterBus<Word = u32>>(bus: B) -> Result<Probed<B>, Error> {
    let (bus, qos) = match Qos::detect(bus) {
        Ok(mac) => return Ok(Probed::Qos(mac)),
        Err(back) => back,
    };
    let gmac = Gmac3::<B>::read_version(&bus);
    if (0x30..=0x3F).contains(&(gmac & 0xFF)) {
        return Ok(Probed::Gmac3(Gmac3::new(bus)));
    }
    Err(Error::UnknownVersion {
        mac_version: qos,
        gmac_version: gmac,
    })
}

impl<B: RegisterBus<Word = u32>> Qos<B> {
    /// Read MAC_VERSION (0x110) and wrap the block if it is a QoS core this crate drives
    /// (SNPSVER [`SNPSVER_MIN`](crate::qos::SNPSVER_MIN) or later; MAC_VERSION all ones,
    /// no block, is refused). Nothing is written.
    ///
    /// Errors: [`Error::UnknownVersion`] otherwise (also reporting what 0x20, the 3.x
    /// GMAC_VERSION, reads; use [`probe`] to accept either layout).
    pub fn probe(bus: B) -> Result<Self, Error> {
        Self::detect(bus).map_err(|(bus, v)| Error::UnknownVersion {
            mac_version: v,
            gmac_version: Gmac3::<B>::read_version(&bus),
        })
    }
}
