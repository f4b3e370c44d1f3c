//! The authoritative Euchre table server.
//!
//! - [`app::run`] serves HTTP and WebSockets on a listener until a shutdown
//!   future completes, then shuts down gracefully.
//! - [`connection`]: one task per WebSocket connection; [`admission`]: who
//!   may connect (per address, in all, the penalty box) and register guests.
//! - [`table`]: one actor task per table, owning its game alone.
//! - [`registry`]: the lobby of tables; [`identity`]: who a token belongs to;
//!   [`accounts`]: claimed names, passwords and log-in sessions, with
//!   [`login_limiter`] (wrong passwords counted per address) and
//!   [`passwords`] (argon2id on a capped pool of its own);
//!   [`revocation`]: sessions that end everywhere, their connections cut;
//!   [`housekeeping`]: ended sessions and forgotten guests purged;
//!   [`ratings`]: Glicko-2 ratings of finished games between people;
//!   [`text`]: what a name or a chat line may hold, and which names are one;
//!   [`sanctions`]: moderators' bans and chat mutes in force, on every node;
//!   [`word_list`]: the operator's words no name or chat line may hold.
//! - [`quick_play`]: the pools that match strangers into tables, in waves,
//!   by rating (the pure `euchre-matcher` crate).
//! - [`api`]: the HTTP API under `/api` (match history, players), with its OpenAPI document.
//! - [`web`]: the browser client at `/`, embedded at compile time.
//! - [`node`]: cluster mode, this node's part in a cluster of servers on NATS JetStream and PostgreSQL (off by default);
//!   [`placement`]: where tables live, the seam between the state and the cluster.
//! - `testing` (the `testing` feature): the server in a test's own process,
//!   on port 0 with its own data folder.

pub mod accounts;
pub mod admin;
pub mod admission;
pub mod analysis_queue;
pub mod api;
pub mod app;
pub mod client_address;
pub mod clock;
pub mod config;
pub mod connection;
pub mod door;
pub mod frame;
pub mod housekeeping;
pub mod http_server;
pub mod identity;
pub mod login_limiter;
pub mod metrics;
pub mod node;
pub mod passwords;
pub mod placement;
pub mod private_files;
pub mod puzzles;
pub mod quick_play;
pub mod ratings;
pub mod registry;
pub mod revocation;
pub mod sanctions;
pub mod social;
pub mod state;
pub mod table;
#[cfg(feature = "testing")]
pub mod testing;
pub mod text;
pub mod tournaments;
pub mod wake_gate;
pub mod web;
pub mod word_list;

pub use app::{router, run};
pub use config::Settings;
