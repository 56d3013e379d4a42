//! Property tests of the DSA/EDSA tag codec.

mod codec;
