//! Clause 45 access to the internal PHYs and SERDES through Global2 SMI_PHY.
