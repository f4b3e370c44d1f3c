//! The tools' integration tests, in one binary to keep link time down.

mod layout;
mod tournament_cli;
mod verify_cli;
