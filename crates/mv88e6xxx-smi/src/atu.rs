//! The address translation unit (ATU): static and learned MAC addresses per FID.
