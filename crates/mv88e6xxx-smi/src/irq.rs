//! Interrupts: the Global1 interrupt status and mask, and PHY interrupts through Global2.
