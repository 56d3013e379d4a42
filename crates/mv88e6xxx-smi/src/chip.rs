//! The chip table: which device address holds what on each family, how the family is
//! addressed, and identification from PORT_SWITCH_ID.
//!
//! Source: hardware.md §5.5 (address map, from Linux's `chip.c` info table) and §5.6
//! (product numbers). hardware.md's third row (6190 … 6361) is split here into
//! [`Family::Mv6390`] and [`Family::Mv6393`] because only the 6393 family has the
//! indirect-mode register remap (§5.2, §5.4); the address map of both is the same.

use crate::regs::{PRODUCT_NUM_MASK, REV_MASK};

/// How a family is reached on the MDIO bus when it is not in single-chip mode
/// (hardware.md §5.5 "SMI mode flag").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SmiMode {
    /// Linux `multi_chip`: SMI_CMD/SMI_DATA at a non-zero `sw_addr`.
    MultiChip,
    /// Linux `dual_chip` (6250 family): 16 consecutive addresses from `sw_addr`.
    DualChip,
}

/// Device addresses of one family inside the switch (hardware.md §5.5).
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
    /// 6190, 6190X, 6191, 6290, 6390, 6390X, 6361: ports and PHYs at 0x00 (DT
    /// `marvell,mv88e6190`).
    Mv6390,
    /// 6191X, 6193X, 6393X: as [`Mv6390`](Self::Mv6390), plus the indirect-mode remap of hot
    /// Global1/Global2 registers (hardware.md §5.4). Linux may also count the 6361 here;
    /// our sources do not say, so it stays in `Mv6390` (without the remap, which is always
    /// correct, only slower).
    Mv6393,
    /// 6020, 6071, 6220, 6250: dual-chip, ports at 0x08, Global1 0x0F, Global2 0x07 (DT
    /// `marvell,mv88e6250`).
    Mv6250,
}

impl Family {
    /// The family's address map (hardware.md §5.5).
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

    /// Whether indirect mode exposes hot Global1/Global2 registers at `sw_addr`.
    pub const fn has_6393x_remap(self) -> bool {
        matches!(self, Family::Mv6393)
    }
}

macro_rules! chips {
    ($($variant:ident = $id:literal, $name:literal, $family:ident;)*) => {
        /// A switch this crate can identify (hardware.md §5.6).
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[cfg_attr(feature = "defmt", derive(defmt::Format))]
        #[non_exhaustive]
        pub enum Chip {
            $(
                #[doc = concat!("88E", $name, ": PORT_SWITCH_ID & 0xFFF0 = ", stringify!($id), ".")]
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

            /// The chip whose product number is `product_num` (already masked).
            pub const fn from_product_num(product_num: u16) -> Option<Chip> {
                match product_num { $($id => Some(Chip::$variant),)* _ => None }
            }
        }
    };
}

chips! {
    Mv6020 = 0x0200, "6020", Mv6250;
    Mv6071 = 0x0710, "6071", Mv6250;
    Mv6085 = 0x04A0, "6085", Mv6085;
    Mv6095 = 0x0950, "6095", Mv6085;
    Mv6097 = 0x0990, "6097", Mv6085;
    Mv6190X = 0x0A00, "6190X", Mv6390;
    Mv6390X = 0x0A10, "6390X", Mv6390;
    Mv6131 = 0x1060, "6131", Mv6085;
    Mv6320 = 0x1150, "6320", Mv6085;
    Mv6123 = 0x1210, "6123", Mv6085;
    Mv6161 = 0x1610, "6161", Mv6085;
    Mv6165 = 0x1650, "6165", Mv6085;
    Mv6171 = 0x1710, "6171", Mv6085;
    Mv6172 = 0x1720, "6172", Mv6085;
    Mv6175 = 0x1750, "6175", Mv6085;
    Mv6176 = 0x1760, "6176", Mv6085;
    Mv6190 = 0x1900, "6190", Mv6390;
    Mv6191 = 0x1910, "6191", Mv6390;
    Mv6191X = 0x1920, "6191X", Mv6393;
    Mv6193X = 0x1930, "6193X", Mv6393;
    Mv6185 = 0x1A70, "6185", Mv6085;
    Mv6220 = 0x2200, "6220", Mv6250;
    Mv6240 = 0x2400, "6240", Mv6085;
    Mv6250 = 0x2500, "6250", Mv6250;
    Mv6361 = 0x2610, "6361", Mv6390;
    Mv6290 = 0x2900, "6290", Mv6390;
    Mv6321 = 0x3100, "6321", Mv6085;
    Mv6141 = 0x3400, "6141", Mv6341;
    Mv6341 = 0x3410, "6341", Mv6341;
    Mv6352 = 0x3520, "6352", Mv6085;
    Mv6350 = 0x3710, "6350", Mv6085;
    Mv6351 = 0x3750, "6351", Mv6085;
    Mv6390 = 0x3900, "6390", Mv6390;
    Mv6393X = 0x3930, "6393X", Mv6393;
}

/// A switch identified from PORT_SWITCH_ID.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Identity {
    /// The chip.
    pub chip: Chip,
    /// Silicon revision (`id & 0xF`).
    pub revision: u8,
    /// The raw PORT_SWITCH_ID value.
    pub raw: u16,
}

/// Identify a switch from its PORT_SWITCH_ID value: `Some` if `id & 0xFFF0` is in the
/// table of hardware.md §5.6, `None` otherwise (including 0xFFFF, an empty bus, and 0x0000).
///
/// ```
/// use mv88e6xxx_smi::chip::{identify, Chip, Family};
/// let id = identify(0x3521).unwrap();
/// assert_eq!((id.chip, id.revision), (Chip::Mv6352, 1));
/// assert_eq!(id.chip.family(), Family::Mv6085);
/// assert!(identify(0xFFFF).is_none());
/// ```
pub const fn identify(raw: u16) -> Option<Identity> {
    match Chip::from_product_num(raw & PRODUCT_NUM_MASK) {
        Some(chip) => Some(Identity {
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
    fn dual_chip_family_has_its_own_globals() {
        let m = Family::Mv6250.address_map();
        assert_eq!((m.port_base, m.global1, m.global2), (0x08, 0x0F, 0x07));
        assert_eq!(m.mode, SmiMode::DualChip);
        assert_eq!(Family::Mv6341.address_map().phy_base, 0x10);
        assert_eq!(Family::Mv6393.address_map(), Family::Mv6390.address_map());
    }
}
