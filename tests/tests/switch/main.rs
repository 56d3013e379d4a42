//! A Marvell switch behind a DWMAC, on the two crates' models: the switch driven over the
//! MAC's MDIO master (`behind_dwmac`), and a managed switch end to end, with DSA tags
//! through the MAC's rings to smoltcp (`managed`).

mod behind_dwmac;
mod managed;
