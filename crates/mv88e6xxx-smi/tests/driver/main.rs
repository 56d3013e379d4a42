//! The register layer against the behavioural model: every addressing mode, identification,
//! the bounded waits, internal PHY access, configuration errors, dead blocks, a second bus
//! master, silence after reset, the PPU hold and the PPU stop wait, the 6250 EEPROM wait.

#[macro_use]
#[path = "../common/mod.rs"]
mod common;

mod access;
mod config_errors;
mod dead_block;
mod eeprom_6250;
mod ppu_hold;
mod ppu_states;
mod reset_silence;
mod second_master;
