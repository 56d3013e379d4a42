//! The chip table: which device address holds what on each family, how the family is
//! addressed, what each chip has (ports, unrouted ports, internal PHYs, how its PHYs are
//! reached), and identification from PORT_SWITCH_ID.
//!
//! Sources: the project's `docs/mv88e6xxx.md` (facts from Linux's
//! `drivers/net/dsa/mv88e6xxx/chip.c` info table and ops tables, and `phy.c`; facts only).
//! Linux's family list is split by what matters here: [`Family`] is the address map and SMI
//! mode (five of them), [`PhyAccess`] is per chip, because one address-map family holds
//! chips whose PHYs are reached in three different ways.

use crate::regs::{PRODUCT_NUM_MASK, REV_MASK};

/// How a family is reached on the MDIO bus when it is not in single-chip mode
/// (docs/mv88e6xxx.md#address-map, mode flag column).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SmiMode {
    /// Linux `multi_chip`: SMI_CMD/SMI_DATA at a non-zero `sw_addr`.
    MultiChip,
    /// Linux `dual_chip` (6250 family): 16 consecutive addresses from `sw_addr`.
    DualChip,
}

/// Device addresses of one family inside the switch (docs/mv88e6xxx.md#address-map).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AddressMap {
    /// Port *n* is device `port_base + n`.
    pub port_base: u8,
    /// Internal PHY *n* is PHY address `phy_base + n` (behind Global2 SMI_PHY_CMD).
    pub phy_base: u8,
    /// Global1 device address.
    pub global1: u8,
    /// Global2 device address.
    pub global2: u8,
    /// Multi-chip or dual-chip addressing when `sw_addr` ≠ 0 (or always, dual-chip).
    pub mode: SmiMode,
}

/// A family: chips sharing one [`AddressMap`] and addressing scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Family {
    /// 6085, 6095, 6097, 6123, 6131, 6161, 6165, 6171, 6172, 6175, 6176, 6185, 6240, 6320,
    /// 6321, 6350, 6351, 6352: ports at 0x10, PHYs at 0x00 (DT `marvell,mv88e6085`).
    Mv6085,
    /// 6141, 6341: ports at 0x10, PHYs at 0x10.
    Mv6341,
    /// 6190, 6190X, 6191, 6290, 6390, 6390X: ports and PHYs at 0x00 (DT
    /// `marvell,mv88e6190`).
    Mv6390,
    /// 6191X, 6193X, 6361, 6393X: as [`Mv6390`](Self::Mv6390), plus the indirect-mode
    /// remap of hot Global1/Global2 registers that an out-of-tree Linux patch applies to
    /// `MV88E6XXX_FAMILY_6393` (which includes the 6361); the driver uses it only with
    /// [`Config::with_remap_6393x`](crate::Config::with_remap_6393x).
    Mv6393,
    /// 6020, 6071, 6220, 6250: dual-chip, ports at 0x08, Global1 0x0F, Global2 0x07 (DT
    /// `marvell,mv88e6250`).
    Mv6250,
}

impl Family {
    /// The family's address map (docs/mv88e6xxx.md#address-map).
    pub const fn address_map(self) -> AddressMap {
        match self {
            Family::Mv6085 => AddressMap {
                port_base: 0x10,
                phy_base: 0x00,
                global1: 0x1B,
                global2: 0x1C,
                mode: SmiMode::MultiChip,
            },
            Family::Mv6341 => AddressMap {
                port_base: 0x10,
                phy_base: 0x10,
                global1: 0x1B,
                global2: 0x1C,
                mode: SmiMode::MultiChip,
            },
            Family::Mv6390 | Family::Mv6393 => AddressMap {
                port_base: 0x00,
                phy_base: 0x00,
                global1: 0x1B,
                global2: 0x1C,
                mode: SmiMode::MultiChip,
            },
            Family::Mv6250 => AddressMap {
                port_base: 0x08,
                phy_base: 0x00,
                global1: 0x0F,
                global2: 0x07,
                mode: SmiMode::DualChip,
            },
        }
    }

    /// Whether indirect mode can expose hot Global1/Global2 registers at `sw_addr` (the
    /// out-of-tree remap, docs/mv88e6xxx.md#6393x-remap; opt-in).
    pub const fn has_6393x_remap(self) -> bool {
        matches!(self, Family::Mv6393)
    }

    /// The most ports any chip of the family has: the port numbers that are safe before
    /// the chip is identified. Port `n` is device `port_base + n`; every port below this
    /// limit stays clear of Global1 and Global2 (11 ports from 0x10 end at 0x1A, before
    /// Global1 at 0x1B; 7 from 0x08 end at 0x0E, before the 6250's Global1 at 0x0F).
    pub const fn max_ports(self) -> u8 {
        match self {
            Family::Mv6085 | Family::Mv6390 | Family::Mv6393 => 11,
            Family::Mv6250 => 7,
            Family::Mv6341 => 6,
        }
    }
}

/// How the host reaches a chip's PHY registers (Linux's per-chip `phy_read`/`phy_write`
/// ops). PHY `n` is PHY address `phy_base + n` in every case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PhyAccess {
    /// Through Global2 G2_SMI_PHY_CMD / G2_SMI_PHY_DATA: the switch runs the frame on its
    /// PHY bus, BUSY-bounded.
    Global2,
    /// PHY registers are switch devices (device = PHY address), read and written like any
    /// switch register, but the PHY polling unit (PPU) owns the PHY bus while it runs: it is
    /// disabled around each access (G1_CTL1 PPU_ENABLE cleared, then G1_STS PPU state
    /// "disabled" awaited; afterwards set again and "polling" awaited). 6085, 6095, 6131,
    /// 6185 (Linux `mv88e6185_phy_ppu_read`/`_write`).
    PpuGated,
    /// PHY registers are switch devices, read and written directly with no PPU to stop
    /// (6165, Linux `mv88e6165_phy_read`/`_write`).
    Direct,
}

/// What one chip has: its entry in Linux's info table, as far as this crate needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ChipInfo {
    /// Ports `0..num_ports` exist (port `n` is device `port_base + n`).
    pub num_ports: u8,
    /// Bit `n` set: port `n` exists in the register map but is not routed to pins; it is
    /// refused like a port that does not exist (6020 and 6220: ports 2–4; 6361: 1, 2, 8).
    pub invalid_port_mask: u16,
    /// Ports with an internal PHY: `internal_phys_offset..internal_phys_offset +
    /// num_internal_phys`.
    pub num_internal_phys: u8,
    /// The first port with an internal PHY (1 on the 6191X/6193X/6393X, 3 on the
    /// 6320/6321/6361, else 0).
    pub internal_phys_offset: u8,
    /// How the PHYs are reached.
    pub phy_access: PhyAccess,
}

macro_rules! chips {
    ($($variant:ident = $id:literal, $name:literal, $family:ident,
       ports $ports:literal, invalid $invalid:literal,
       phys $phys:literal from $offset:literal, $access:ident;)*) => {
        /// A switch this crate can identify (docs/mv88e6xxx.md#identification).
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[cfg_attr(feature = "defmt", derive(defmt::Format))]
        #[non_exhaustive]
        pub enum Chip {
            $(
                #[doc = concat!("88E", $name, ": PORT_SWITCH_ID & 0xFFF0 = ", stringify!($id),
                    "; ", stringify!($ports), " ports, ", stringify!($phys),
                    " internal PHYs from port ", stringify!($offset), ", PHY access ",
                    stringify!($access), ".")]
                $variant,
            )*
        }

        impl Chip {
            /// Every chip in the table.
            pub const ALL: &'static [Chip] = &[$(Chip::$variant),*];

            /// The product number as PORT_SWITCH_ID carries it (`id & 0xFFF0`, not shifted).
            pub const fn product_num(self) -> u16 {
                match self { $(Chip::$variant => $id,)* }
            }

            /// The chip's name without the "88E" prefix, as Linux prints it ("6352").
            pub const fn name(self) -> &'static str {
                match self { $(Chip::$variant => $name,)* }
            }

            /// The chip's family.
            pub const fn family(self) -> Family {
                match self { $(Chip::$variant => Family::$family,)* }
            }

            /// The chip's ports, unrouted ports, internal PHYs and PHY access.
            pub const fn info(self) -> ChipInfo {
                match self {
                    $(Chip::$variant => ChipInfo {
                        num_ports: $ports,
                        invalid_port_mask: $invalid,
                        num_internal_phys: $phys,
                        internal_phys_offset: $offset,
                        phy_access: PhyAccess::$access,
                    },)*
                }
            }

            /// The chip whose product number is `product_num` (already masked).
            pub const fn from_product_num(product_num: u16) -> Option<Chip> {
                match product_num { $($id => Some(Chip::$variant),)* _ => None }
            }
        }
    };
}

// Ports, unrouted ports, internal PHYs and PHY access per chip: Linux `chip.c` info table
// (`num_ports`, `invalid_port_mask`, `num_internal_phys`, `internal_phys_offset`) and ops
// tables (`phy_read`), as summarised in docs/mv88e6xxx.md. Linux moved the 6361 into the
// 6393 family (the opt-in remap included). The 6320/6321 rows ("phys 2 from 3") follow
// Linux v6.15 ("net: dsa: mv88e6xxx: fix internal PHYs for 6320 family", commit
// 52fdc41c3278).
chips! {
    Mv6020 = 0x0200, "6020", Mv6250, ports 7, invalid 0x001C, phys 2 from 0, Global2;
    Mv6071 = 0x0710, "6071", Mv6250, ports 7, invalid 0x0000, phys 5 from 0, Global2;
    Mv6085 = 0x04A0, "6085", Mv6085, ports 10, invalid 0x0000, phys 5 from 0, PpuGated;
    Mv6095 = 0x0950, "6095", Mv6085, ports 11, invalid 0x0000, phys 0 from 0, PpuGated;
    Mv6097 = 0x0990, "6097", Mv6085, ports 11, invalid 0x0000, phys 8 from 0, Global2;
    Mv6190X = 0x0A00, "6190X", Mv6390, ports 11, invalid 0x0000, phys 9 from 0, Global2;
    Mv6390X = 0x0A10, "6390X", Mv6390, ports 11, invalid 0x0000, phys 9 from 0, Global2;
    Mv6131 = 0x1060, "6131", Mv6085, ports 8, invalid 0x0000, phys 0 from 0, PpuGated;
    Mv6320 = 0x1150, "6320", Mv6085, ports 7, invalid 0x0000, phys 2 from 3, Global2;
    Mv6123 = 0x1210, "6123", Mv6085, ports 3, invalid 0x0000, phys 5 from 0, Global2;
    Mv6161 = 0x1610, "6161", Mv6085, ports 6, invalid 0x0000, phys 5 from 0, Global2;
    Mv6165 = 0x1650, "6165", Mv6085, ports 6, invalid 0x0000, phys 0 from 0, Direct;
    Mv6171 = 0x1710, "6171", Mv6085, ports 7, invalid 0x0000, phys 5 from 0, Global2;
    Mv6172 = 0x1720, "6172", Mv6085, ports 7, invalid 0x0000, phys 5 from 0, Global2;
    Mv6175 = 0x1750, "6175", Mv6085, ports 7, invalid 0x0000, phys 5 from 0, Global2;
    Mv6176 = 0x1760, "6176", Mv6085, ports 7, invalid 0x0000, phys 5 from 0, Global2;
    Mv6190 = 0x1900, "6190", Mv6390, ports 11, invalid 0x0000, phys 9 from 0, Global2;
    Mv6191 = 0x1910, "6191", Mv6390, ports 11, invalid 0x0000, phys 9 from 0, Global2;
    Mv6191X = 0x1920, "6191X", Mv6393, ports 11, invalid 0x0000, phys 8 from 1, Global2;
    Mv6193X = 0x1930, "6193X", Mv6393, ports 11, invalid 0x0000, phys 8 from 1, Global2;
    Mv6185 = 0x1A70, "6185", Mv6085, ports 10, invalid 0x0000, phys 0 from 0, PpuGated;
    Mv6220 = 0x2200, "6220", Mv6250, ports 7, invalid 0x001C, phys 2 from 0, Global2;
    Mv6240 = 0x2400, "6240", Mv6085, ports 7, invalid 0x0000, phys 5 from 0, Global2;
    Mv6250 = 0x2500, "6250", Mv6250, ports 7, invalid 0x0000, phys 5 from 0, Global2;
    Mv6361 = 0x2610, "6361", Mv6393, ports 11, invalid 0x0106, phys 5 from 3, Global2;
    Mv6290 = 0x2900, "6290", Mv6390, ports 11, invalid 0x0000, phys 9 from 0, Global2;
    Mv6321 = 0x3100, "6321", Mv6085, ports 7, invalid 0x0000, phys 2 from 3, Global2;
    Mv6141 = 0x3400, "6141", Mv6341, ports 6, invalid 0x0000, phys 5 from 0, Global2;
    Mv6341 = 0x3410, "6341", Mv6341, ports 6, invalid 0x0000, phys 5 from 0, Global2;
    Mv6352 = 0x3520, "6352", Mv6085, ports 7, invalid 0x0000, phys 5 from 0, Global2;
    Mv6350 = 0x3710, "6350", Mv6085, ports 7, invalid 0x0000, phys 5 from 0, Global2;
    Mv6351 = 0x3750, "6351", Mv6085, ports 7, invalid 0x0000, phys 5 from 0, Global2;
    Mv6390 = 0x3900, "6390", Mv6390, ports 11, invalid 0x0000, phys 9 from 0, Global2;
    Mv6393X = 0x3930, "6393X", Mv6393, ports 11, invalid 0x0000, phys 8 from 1, Global2;
}

impl Chip {
    /// Whether `port` exists and is routed: below [`ChipInfo::num_ports`] and not in
    /// [`ChipInfo::invalid_port_mask`]. Defined for every `u8`.
    ///
    /// ```
    /// use mv88e6xxx_smi::chip::Chip;
    /// assert!(Chip::Mv6352.is_valid_port(6));
    /// assert!(!Chip::Mv6352.is_valid_port(7));
    /// assert!(!Chip::Mv6220.is_valid_port(3)); // not routed to pins
    /// assert!(!Chip::Mv6352.is_valid_port(u8::MAX));
    /// ```
    pub const fn is_valid_port(self, port: u8) -> bool {
        let info = self.info();
        port < info.num_ports
            && match 1u16.checked_shl(port as u32) {
                Some(bit) => info.invalid_port_mask & bit == 0,
                None => false,
            }
    }

    /// Whether port `port` has an internal PHY. Defined for every `u8`.
    ///
    /// ```
    /// use mv88e6xxx_smi::chip::Chip;
    /// assert!(Chip::Mv6393X.has_internal_phy(1) && !Chip::Mv6393X.has_internal_phy(0));
    /// assert!(!Chip::Mv6185.has_internal_phy(0));
    /// ```
    pub const fn has_internal_phy(self, port: u8) -> bool {
        let info = self.info();
        port >= info.internal_phys_offset
            // Two u8 in a u16: the sum cannot wrap.
            && (port as u16)
                < (info.internal_phys_offset as u16).wrapping_add(info.num_internal_phys as u16)
    }
}

/// A switch's chip identity, read from PORT_SWITCH_ID: which chip, which silicon revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ChipId {
    /// The chip.
    pub chip: Chip,
    /// Silicon revision (`id & 0xF`).
    pub revision: u8,
    /// The raw PORT_SWITCH_ID value.
    pub raw: u16,
}

/// Identify a switch from its PORT_SWITCH_ID value: `Some` if `id & 0xFFF0` is in the
/// table of docs/mv88e6xxx.md#identification, `None` otherwise (including 0xFFFF, an empty bus, and 0x0000).
///
/// ```
/// use mv88e6xxx_smi::chip::{identify, Chip, Family};
/// let id = identify(0x3521).unwrap();
/// assert_eq!((id.chip, id.revision), (Chip::Mv6352, 1));
/// assert_eq!(id.chip.family(), Family::Mv6085);
/// assert!(identify(0xFFFF).is_none());
/// ```
pub const fn identify(raw: u16) -> Option<ChipId> {
    match Chip::from_product_num(raw & PRODUCT_NUM_MASK) {
        Some(chip) => Some(ChipId {
            chip,
            revision: (raw & REV_MASK) as u8,
            raw,
        }),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn product_numbers_are_unique_and_round_trip() {
        for (i, a) in Chip::ALL.iter().enumerate() {
            assert_eq!(Chip::from_product_num(a.product_num()), Some(*a));
            assert_eq!(a.product_num() & !PRODUCT_NUM_MASK, 0);
            for b in &Chip::ALL[i + 1..] {
                assert_ne!(a.product_num(), b.product_num());
            }
        }
        assert_eq!(Chip::ALL.len(), 34);
    }

    #[test]
    fn no_valid_port_aliases_a_global_or_leaves_the_bus() {
        for &chip in Chip::ALL {
            let map = chip.family().address_map();
            let info = chip.info();
            assert!(info.num_ports <= chip.family().max_ports(), "{chip:?}");
            // (Internal PHYs may outnumber ports: the 6123 has 3 ports and 5 PHYs.)
            for port in 0..=u8::MAX {
                if !chip.is_valid_port(port) {
                    continue;
                }
                let dev = u16::from(map.port_base) + u16::from(port);
                assert!(dev < 32, "{chip:?} port {port}");
                assert!(
                    dev != u16::from(map.global1) && dev != u16::from(map.global2),
                    "{chip:?} port {port} aliases a global block"
                );
            }
        }
        // The family limit itself never reaches a global either.
        for family in [
            Family::Mv6085,
            Family::Mv6341,
            Family::Mv6390,
            Family::Mv6393,
            Family::Mv6250,
        ] {
            let map = family.address_map();
            for port in 0..family.max_ports() {
                let dev = map.port_base + port;
                assert!(dev != map.global1 && dev != map.global2 && dev < 32);
            }
            let most = Chip::ALL
                .iter()
                .filter(|c| c.family() == family)
                .map(|c| c.info().num_ports)
                .max();
            assert_eq!(most, Some(family.max_ports()), "{family:?}");
        }
    }

    #[test]
    fn phy_access_follows_linux_ops_per_chip() {
        let ppu: Vec<_> = Chip::ALL
            .iter()
            .filter(|c| c.info().phy_access == PhyAccess::PpuGated)
            .collect();
        assert_eq!(
            ppu,
            [&Chip::Mv6085, &Chip::Mv6095, &Chip::Mv6131, &Chip::Mv6185]
        );
        let direct: Vec<_> = Chip::ALL
            .iter()
            .filter(|c| c.info().phy_access == PhyAccess::Direct)
            .collect();
        assert_eq!(direct, [&Chip::Mv6165]);
        assert!(!Chip::Mv6220.is_valid_port(2) && Chip::Mv6220.is_valid_port(5));
        assert!(!Chip::Mv6361.is_valid_port(8) && Chip::Mv6361.is_valid_port(10));
        assert_eq!(Chip::Mv6361.family(), Family::Mv6393);
    }

    #[test]
    fn dual_chip_family_has_its_own_globals() {
        let m = Family::Mv6250.address_map();
        assert_eq!((m.port_base, m.global1, m.global2), (0x08, 0x0F, 0x07));
        assert_eq!(m.mode, SmiMode::DualChip);
        assert_eq!(Family::Mv6341.address_map().phy_base, 0x10);
        assert_eq!(Family::Mv6393.address_map(), Family::Mv6390.address_map());
    }
}
