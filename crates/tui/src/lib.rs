//! `euchre-tui`: a terminal client for the Euchre server.
//!
//! A pure state and reducer ([`app`]), the table as events update it
//! ([`table`]), drawing as pure functions of that state ([`ui`]), and a thin
//! I/O loop in `main.rs` that feeds the reducer the server's updates, the
//! keys pressed and the outcomes of the requests it makes.

pub mod app;
pub mod form;
pub mod history;
pub mod identity;
pub mod invite;
pub mod quick;
pub mod seal;
pub mod table;
pub mod ui;
