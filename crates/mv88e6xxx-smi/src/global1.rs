//! Global1 operations (docs/mv88e6xxx.md): the priority maps.

mod priority;

pub use priority::{IEEE_PRI_DEFAULT, IEEE_PRI_DEFAULT_6250};
