//! The lobby at 10,000 public tables: what one `list_tables` costs the
//! server now (a page picked from the registry and encoded) beside what it
//! cost before the lobby was paged (every table, encoded in one message),
//! measured in the same run. `cargo bench -p euchre-server --bench lobby`.

use criterion::{Criterion, criterion_group, criterion_main};
use euchre_engine::{Preset, Rules};
use euchre_protocol::{LobbyFilter, LobbyQuery, ServerMessage, TableStatus, TableSummary};
use euchre_server::frame::Frame;
use euchre_server::registry::Registry;

const TABLES: u32 = 10_000;

/// Tables as a busy server lists them: ids of 32 hex digits, as the server
/// makes them; one in ten waiting for players, the rest in play.
fn busy_registry() -> Registry {
    let registry = Registry::default();
    for n in 0..TABLES {
        let status = if n % 10 == 0 { TableStatus::Open } else { TableStatus::Playing };
        let summary = TableSummary {
            table: format!("{n:032x}"),
            host: format!("Player {n}"),
            preset: Preset::Standard,
            rules: Rules::default(),
            private: false,
            seated: if status == TableStatus::Open { 2 } else { 4 },
            status,
            turn_seconds: None,
            chat: true,
        };
        registry.insert_remote(summary, "host", Vec::new());
    }
    registry
}

/// The page for `query` at `limit`, encoded as a connection sends it.
fn listed(registry: &Registry, query: &LobbyQuery, limit: usize) -> usize {
    let frame = Frame::new(ServerMessage::Lobby(registry.page(query, limit, None)));
    frame.json().map_or(0, |json| json.len())
}

fn lobby(c: &mut Criterion) {
    let registry = busy_registry();
    let every = LobbyQuery::default();
    let open = LobbyQuery {
        filter: LobbyFilter { status: Some(TableStatus::Open), ..LobbyFilter::default() },
        ..LobbyQuery::default()
    };
    let mut group = c.benchmark_group("lobby_10000_tables");
    group.bench_function("first_page_50", |b| b.iter(|| listed(&registry, &every, 50)));
    group.bench_function("open_first_page_50", |b| b.iter(|| listed(&registry, &open, 50)));
    // The yardstick: the message every `list_tables` got before paging
    // (the old server kept one copy until the next change to any table).
    group.sample_size(20);
    group.bench_function("every_table_unpaged", |b| {
        b.iter(|| listed(&registry, &every, usize::MAX))
    });
    group.finish();
}

criterion_group!(benches, lobby);
criterion_main!(benches);
