//! The puzzles crate's tests, in one binary.

mod brute;
mod hint;
mod mined;
