//! The fuzzers' integration tests, in one binary to keep link time down.

mod fuzz;
