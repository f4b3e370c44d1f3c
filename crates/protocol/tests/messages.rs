//! The wire format: examples of each message parse as documented, every
//! message round-trips, and the checked-in JSON Schema is current.

use euchre_engine::{Action, Card, Event, Preset, Seat};
use euchre_protocol::*;
use serde_json::json;

fn parse(value: serde_json::Value) -> Result<ClientMessage, BadFrame> {
    parse_client_message(&value.to_string())
}

fn card(code: &str) -> Card {
    code.parse().expect("a card")
}

#[test]
fn client_messages_read_as_documented() {
    let cases = [
        (
            json!({"type": "hello", "id": 1, "protocol_version": 1, "name": "Ann"}),
            ClientMessage::Hello {
                id: 1,
                protocol_version: 1,
                token: None,
                name: Some("Ann".into()),
            },
        ),
        (json!({"type": "ping", "id": 2}), ClientMessage::Ping { id: 2 }),
        (
            json!({"type": "act", "id": 3, "table": "t1", "action": "play", "card": "Jc"}),
            ClientMessage::Act {
                id: 3,
                table: "t1".into(),
                action: Action::Play { card: card("Jc") },
            },
        ),
        (
            json!({"type": "act", "id": 4, "table": "t1", "action": "order_up", "alone": true}),
            ClientMessage::Act {
                id: 4,
                table: "t1".into(),
                action: Action::OrderUp { alone: true },
            },
        ),
        (
            json!({"type": "sit", "id": 5, "table": "t1"}),
            ClientMessage::Sit { id: 5, table: "t1".into(), seat: None, invite: None },
        ),
        (
            json!({"type": "resume", "id": 6, "table": "t1", "last_seq": 41}),
            ClientMessage::Resume { id: 6, table: "t1".into(), last_seq: 41 },
        ),
    ];
    for (wire, expected) in cases {
        assert_eq!(parse(wire.clone()).as_ref(), Ok(&expected), "{wire}");
        let back = serde_json::to_value(&expected).expect("serializes");
        assert_eq!(back, wire);
    }
}

#[test]
fn create_table_defaults_and_overrides() {
    let message = parse(json!({"type": "create_table", "id": 9, "preset": "online",
        "rules": {"points_to_win": 5}, "bot_seats": [1, 3]}))
    .expect("valid");
    let ClientMessage::CreateTable { settings, .. } = message else { panic!("create_table") };
    assert_eq!(settings.preset, Preset::Online);
    assert_eq!(settings.bot_seats, vec![1, 3]);
    assert!(settings.chat && !settings.private);
    let rules = settings.resolve_rules().expect("valid rules");
    assert_eq!(rules.points_to_win, 5);
    assert_eq!(rules.loner_lead, Preset::Online.rules().loner_lead);

    let bad = TableSettings {
        rules: Some(json!({"points_to_win": 0}).as_object().cloned().expect("object")),
        ..TableSettings::default()
    };
    assert!(bad.resolve_rules().is_err());
    let unknown = TableSettings {
        rules: Some(json!({"jokers": true}).as_object().cloned().expect("object")),
        ..TableSettings::default()
    };
    assert!(unknown.resolve_rules().expect_err("unknown option").contains("jokers"));
    // Every preset is offered, with the options the engine can play in it;
    // an option that needs partners is refused by name in the others.
    for preset in Preset::ALL {
        let settings = TableSettings { preset, ..TableSettings::default() };
        assert_eq!(settings.resolve_rules(), Ok(preset.rules()));
    }
    let lone_defence = TableSettings {
        preset: Preset::Cutthroat,
        rules: Some(json!({"defend_alone": true}).as_object().cloned().expect("object")),
        ..TableSettings::default()
    };
    assert!(lone_defence.resolve_rules().expect_err("needs partners").contains("defend alone"));
    let option = |rules: serde_json::Value| TableSettings {
        rules: Some(rules.as_object().cloned().expect("object")),
        ..TableSettings::default()
    };
    assert!(
        option(json!({"allow_no_trump": true})).resolve_rules().expect("offered").allow_no_trump
    );
    assert!(option(json!({"joker": true})).resolve_rules().expect("offered").joker);
    assert!(option(json!({"rubber": true})).resolve_rules().expect("offered").rubber);
}

#[test]
fn bad_frames_get_the_right_codes_and_keep_the_id() {
    let bad = parse_client_message("{not json").expect_err("bad");
    assert_eq!((bad.code, bad.id), (ErrorCode::BadJson, None));
    let bad = parse(json!({"type": "dance", "id": 7})).expect_err("bad");
    assert_eq!((bad.code, bad.id), (ErrorCode::UnknownType, Some(7)));
    let bad = parse(json!({"type": "act", "id": 8, "table": "t1", "action": "play", "card": "Zz"}))
        .expect_err("bad");
    assert_eq!((bad.code, bad.id), (ErrorCode::BadJson, Some(8)));
    assert!(bad.message.contains("Zz"), "{}", bad.message);
    let bad = parse(json!([1, 2])).expect_err("bad");
    assert_eq!(bad.code, ErrorCode::BadJson);
    let error = bad.to_message();
    let wire = serde_json::to_value(&error).expect("serializes");
    assert_eq!(wire["type"], "error");
    assert_eq!(wire["code"], "bad_json");
}

#[test]
fn every_client_type_is_known() {
    let samples = [
        ClientMessage::Hello { id: 1, protocol_version: 1, token: None, name: None },
        ClientMessage::Ping { id: 1 },
        ClientMessage::ListTables { id: 1 },
        ClientMessage::CreateTable { id: 1, settings: TableSettings::default() },
        ClientMessage::Sit { id: 1, table: "t".into(), seat: None, invite: None },
        ClientMessage::Leave { id: 1, table: "t".into() },
        ClientMessage::Watch { id: 1, table: "t".into(), invite: None },
        ClientMessage::Resume { id: 1, table: "t".into(), last_seq: 0 },
        ClientMessage::Start { id: 1, table: "t".into() },
        ClientMessage::Rematch { id: 1, table: "t".into() },
        ClientMessage::Act { id: 1, table: "t".into(), action: Action::Pass },
        ClientMessage::Chat { id: 1, table: "t".into(), text: "hi".into() },
    ];
    assert_eq!(samples.len(), CLIENT_TYPES.len());
    for sample in samples {
        let text = serde_json::to_string(&sample).expect("serializes");
        assert_eq!(parse_client_message(&text), Ok(sample));
    }
}

#[test]
fn server_messages_round_trip() {
    let samples = [
        ServerMessage::Ack { id: 3, reply: Reply::Seated { table: "t1".into(), seat: 2 } },
        ServerMessage::Event {
            table: "t1".into(),
            seq: 12,
            event: Some(TableEvent::Game(Event::CardPlayed { seat: Seat(1), card: card("Jc") })),
        },
        ServerMessage::Event { table: "t1".into(), seq: 13, event: None },
        ServerMessage::Event {
            table: "t1".into(),
            seq: 14,
            event: Some(TableEvent::Table(TableNotice::Presence {
                seat: 1,
                connected: false,
                grace_ms: Some(30_000),
            })),
        },
        ErrorCode::NotSeated.to_message(Some(4)),
    ];
    for sample in samples {
        let text = serde_json::to_string(&sample).expect("serializes");
        let back: ServerMessage = serde_json::from_str(&text).expect("parses");
        assert_eq!(back, sample, "{text}");
    }
    let placeholder =
        serde_json::to_value(ServerMessage::Event { table: "t1".into(), seq: 13, event: None })
            .expect("serializes");
    assert_eq!(placeholder, json!({"type": "event", "table": "t1", "seq": 13}));
}

/// The schema in `docs/` must match the types. Regenerate it with
/// `UPDATE_SCHEMA=1 cargo test -p euchre-protocol --test messages`.
#[test]
fn checked_in_schema_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/protocol.schema.json");
    let generated = serde_json::to_string_pretty(&schema()).expect("serializes") + "\n";
    if std::env::var_os("UPDATE_SCHEMA").is_some() {
        std::fs::write(path, &generated).expect("write the schema");
    }
    let checked_in = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "docs/protocol.schema.json is stale: run UPDATE_SCHEMA=1 cargo test -p euchre-protocol --test messages"
    );
}
