//! The lean simulation path.
