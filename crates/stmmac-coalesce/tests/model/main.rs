//! The models themselves: what each DWMAC model does with its registers and descriptors,
//! and their register maps against the vendors' descriptions.

mod gmac3;
mod pac;
mod qos;
