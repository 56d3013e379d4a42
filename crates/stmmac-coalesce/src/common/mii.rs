//! Clause 22 PHY registers and bits used for autonegotiation (IEEE 802.3 clause 22 and
//! 40.5; Linux `include/uapi/linux/mii.h` names).

/// Basic mode control register.
pub const BMCR: u8 = 0x00;
/// Basic mode status register.
pub const BMSR: u8 = 0x01;
/// PHY identifier, high word.
pub const PHYSID1: u8 = 0x02;
/// PHY identifier, low word.
pub const PHYSID2: u8 = 0x03;
/// Autonegotiation advertisement.
pub const ADVERTISE: u8 = 0x04;
/// Link partner ability.
pub const LPA: u8 = 0x05;
/// 1000BASE-T control (our 1000 Mbit/s advertisement).
pub const CTRL1000: u8 = 0x09;
/// 1000BASE-T status (the link partner's 1000 Mbit/s ability).
pub const STAT1000: u8 = 0x0A;
/// Extended status (1000BASE-T abilities).
pub const ESTATUS: u8 = 0x0F;

/// BMCR: speed select, LSB (100 Mbit/s when forced).
pub const BMCR_SPEED100: u16 = 1 << 13;
/// BMCR: autonegotiation enable.
pub const BMCR_ANENABLE: u16 = 1 << 12;
/// BMCR: power down.
pub const BMCR_PDOWN: u16 = 1 << 11;
/// BMCR: isolate.
pub const BMCR_ISOLATE: u16 = 1 << 10;
/// BMCR: restart autonegotiation (self-clearing).
pub const BMCR_ANRESTART: u16 = 1 << 9;
/// BMCR: full duplex (when forced).
pub const BMCR_FULLDPLX: u16 = 1 << 8;
/// BMCR: speed select, MSB (1000 Mbit/s when forced).
pub const BMCR_SPEED1000: u16 = 1 << 6;

/// BMSR: 100BASE-TX full duplex capable.
pub const BMSR_100FULL: u16 = 1 << 14;
/// BMSR: 100BASE-TX half duplex capable.
pub const BMSR_100HALF: u16 = 1 << 13;
/// BMSR: 10BASE-T full duplex capable.
pub const BMSR_10FULL: u16 = 1 << 12;
/// BMSR: 10BASE-T half duplex capable.
pub const BMSR_10HALF: u16 = 1 << 11;
/// BMSR: extended status in register 15.
pub const BMSR_ESTATEN: u16 = 1 << 8;
/// BMSR: autonegotiation complete.
pub const BMSR_ANEGCOMPLETE: u16 = 1 << 5;
/// BMSR: able to autonegotiate.
pub const BMSR_ANEGCAPABLE: u16 = 1 << 3;
/// BMSR: link status (latched low: read twice for the current state).
pub const BMSR_LSTATUS: u16 = 1 << 2;

/// ADVERTISE / LPA: selector field IEEE 802.3.
pub const ADVERTISE_CSMA: u16 = 0x0001;
/// ADVERTISE / LPA: 10BASE-T half duplex.
pub const ADVERTISE_10HALF: u16 = 1 << 5;
/// ADVERTISE / LPA: 10BASE-T full duplex.
pub const ADVERTISE_10FULL: u16 = 1 << 6;
/// ADVERTISE / LPA: 100BASE-TX half duplex.
pub const ADVERTISE_100HALF: u16 = 1 << 7;
/// ADVERTISE / LPA: 100BASE-TX full duplex.
pub const ADVERTISE_100FULL: u16 = 1 << 8;

/// CTRL1000: advertise 1000BASE-T half duplex.
pub const ADVERTISE_1000HALF: u16 = 1 << 8;
/// CTRL1000: advertise 1000BASE-T full duplex.
pub const ADVERTISE_1000FULL: u16 = 1 << 9;
/// STAT1000: link partner 1000BASE-T half duplex (CTRL1000 bit 8, two places up).
pub const LPA_1000HALF: u16 = 1 << 10;
/// STAT1000: link partner 1000BASE-T full duplex (CTRL1000 bit 9, two places up).
pub const LPA_1000FULL: u16 = 1 << 11;
/// STAT1000 bit 15: master/slave configuration fault (Linux `LPA_1000MSFAIL`).
pub const LPA_1000MSFAIL: u16 = 1 << 15;
/// BMCR bit 14: loopback.
pub const BMCR_LOOPBACK: u16 = 1 << 14;
/// BMCR bit 15: software reset, self-clearing when done.
pub const BMCR_RESET: u16 = 1 << 15;
/// ADVERTISE / LPA bit 10: symmetric pause.
pub const ADVERTISE_PAUSE_CAP: u16 = 1 << 10;
/// ADVERTISE / LPA bit 11: asymmetric pause.
pub const ADVERTISE_PAUSE_ASYM: u16 = 1 << 11;
/// ESTATUS: 1000BASE-T full duplex capable.
pub const ESTATUS_1000_TFULL: u16 = 1 << 13;
/// ESTATUS: 1000BASE-T half duplex capable.
pub const ESTATUS_1000_THALF: u16 = 1 << 12;
