//! The tools' integration tests, in one binary to keep link time down.

mod layout;
mod verify_cli;
