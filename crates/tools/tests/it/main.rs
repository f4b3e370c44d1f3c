//! The tools' integration tests, in one binary to keep link time down.

mod readme_layout;
mod verify_cli;
