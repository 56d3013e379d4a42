//! Property tests: any requested delta yields an InitVal in range, a multiple of 4, never
//! shorter than asked.

mod properties;
