//! `euchre-tui`: a terminal client for the Euchre server.
//!
//! A pure state and reducer ([`app`]), the table as events update it
//! ([`table`]), drawing as pure functions of that state ([`ui`]), and a thin
//! I/O loop in `main.rs` that feeds the reducer the server's updates, the
//! keys pressed and the outcomes of the requests it makes. [`social`]
//! reads the chat line's `/mute`, `/block` and `/report`; [`puzzle`] is the
//! puzzle trainer's state, [`tournament`] reads a tournament's standings.

pub mod app;
pub mod form;
pub mod history;
pub mod identity;
pub mod invite;
pub mod puzzle;
pub mod quick;
pub mod seal;
pub mod social;
pub mod table;
pub mod tournament;
pub mod ui;
