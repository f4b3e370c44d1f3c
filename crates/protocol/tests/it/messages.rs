//! The wire format: examples of each message parse as documented, every
//! message round-trips, and the checked-in JSON Schema is current.

use euchre_engine::{Action, Card, Event, Game, Preset, Seat, Viewer};
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
    let unknown = unknown.resolve_rules().expect_err("unknown option");
    assert!(matches!(unknown, SettingsError::Options(_)), "{unknown:?}");
    assert!(unknown.to_string().contains("jokers"), "{unknown}");
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
    let lone_defence = lone_defence.resolve_rules().expect_err("needs partners");
    assert!(matches!(lone_defence, SettingsError::Rules(_)), "{lone_defence:?}");
    assert!(lone_defence.to_string().contains("defend alone"), "{lone_defence}");
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

/// `act` frames take a path of their own, for speed: whatever it reads,
/// it reads as the derived `ClientMessage` does, and what it cannot read
/// gets the general path's answer.
#[test]
fn act_frames_read_as_the_derived_message_does() {
    let frames = [
        r#"{"type":"act","id":1,"table":"t1","action":"pass"}"#,
        r#"{"type":"act","id":2,"table":"t1","action":"order_up","alone":true}"#,
        r#"{"type":"act","id":3,"table":"t1","action":"call","suit":"hearts"}"#,
        r#"{"type":"act","id":4,"table":"t1","action":"call_no_trump"}"#,
        r#"{"type":"act","id":5,"table":"t1","action":"discard","card":"9h"}"#,
        r#"{"id":6,"card":"Jd","action":"play","table":"t\u0031","type":"act"}"#,
        r#"{"type":"act","id":7,"table":"t1","action":"farmers_hand","extra":[1,{"a":2}]}"#,
        r#"{"type":"act","id":8,"table":"t1","action":"claim"}"#,
        r#"{"type":"act","id":9,"table":"t1","action":"concede"}"#,
        r#"{"type":"act","id":10,"table":"t1","action":"defend_alone"}"#,
        r#"{"type":"act","id":11,"table":"t1","action":"pass_card","card":"As"}"#,
        r#"{"type":"act","id":12,"table":"t1","action":"name_suit","suit":"clubs"}"#,
        // Not read by the fast path: the general one answers.
        r#"{"type":"chat","id":13,"table":"t1","action":"pass","text":"hi"}"#,
        r#"{"type":"act","id":14,"table":"t1","action":"play"}"#,
        r#"{"type":"act","id":15,"table":"t1","action":"shout"}"#,
        r#"{"type":"act","id":17,"action":"pass"}"#,
    ];
    for frame in frames {
        let derived = serde_json::from_str::<ClientMessage>(frame).map_err(|_| ());
        let read = parse_client_message(frame);
        assert_eq!(read.clone().map_err(|_| ()), derived, "{frame}");
        if let Err(bad) = read {
            assert_eq!(bad.code, ErrorCode::BadJson, "{frame}");
        }
    }
    let read = parse_client_message(frames[5]).expect("reads");
    let play = Action::Play { card: card("Jd") };
    assert_eq!(read, ClientMessage::Act { id: 6, table: "t1".into(), action: play });
}

#[test]
fn every_client_type_is_known() {
    let samples = [
        ClientMessage::Hello { id: 1, protocol_version: 1, token: None, name: None },
        ClientMessage::Ping { id: 1 },
        ClientMessage::ListTables { id: 1, query: LobbyQuery::default() },
        ClientMessage::CreateTable { id: 1, settings: TableSettings::default() },
        ClientMessage::Sit { id: 1, table: "t".into(), seat: None, invite: None },
        ClientMessage::Leave { id: 1, table: "t".into() },
        ClientMessage::Watch { id: 1, table: "t".into(), invite: None },
        ClientMessage::Resume { id: 1, table: "t".into(), last_seq: 0 },
        ClientMessage::Start { id: 1, table: "t".into() },
        ClientMessage::Rematch { id: 1, table: "t".into() },
        ClientMessage::Act { id: 1, table: "t".into(), action: Action::Pass },
        ClientMessage::Chat { id: 1, table: "t".into(), text: "hi".into() },
        ClientMessage::Hint { id: 1, table: "t".into() },
        ClientMessage::QuickPlay { id: 1, request: QuickPlayRequest::new(Preset::Standard, true) },
        ClientMessage::CancelQuickPlay { id: 1 },
        ClientMessage::Mute { id: 1, player: "p".into() },
        ClientMessage::Unmute { id: 1, player: "p".into() },
        ClientMessage::Block { id: 1, player: "p".into() },
        ClientMessage::Unblock { id: 1, player: "p".into() },
        ClientMessage::Social { id: 1 },
        ClientMessage::Report {
            id: 1,
            player: "p".into(),
            reason: ReportReason::CheatingOrCollusion,
            details: "passing signals".into(),
            table: Some("t".into()),
            match_id: None,
        },
        ClientMessage::AcknowledgeWarning { id: 1, warning: 7 },
    ];
    assert_eq!(samples.len(), CLIENT_TYPES.len());
    for sample in samples {
        let text = serde_json::to_string(&sample).expect("serializes");
        assert_eq!(parse_client_message(&text), Ok(sample));
    }
}

#[test]
fn quick_play_messages_read_as_documented() {
    let asked = parse(json!({"type": "quick_play", "id": 9, "preset": "standard", "rated": false,
        "bots_after_seconds": 30}))
    .expect("parses");
    let request = QuickPlayRequest {
        bots_after_seconds: Some(30),
        ..QuickPlayRequest::new(Preset::Standard, false)
    };
    assert_eq!(asked, ClientMessage::QuickPlay { id: 9, request: request.clone() });
    assert_eq!(request.check(), Ok(()));
    let joining =
        parse(json!({"type": "quick_play", "id": 10, "preset": "standard", "rated": true,
        "team": "k3b9x2"}))
        .expect("parses");
    let ClientMessage::QuickPlay { request, .. } = joining else { panic!("a quick_play") };
    assert_eq!(request.team.as_deref(), Some("k3b9x2"));
    assert_eq!(
        parse(json!({"type": "cancel_quick_play", "id": 11})),
        Ok(ClientMessage::CancelQuickPlay { id: 11 })
    );
    let missing =
        parse(json!({"type": "quick_play", "id": 12, "rated": true})).expect_err("no preset");
    assert_eq!((missing.code, missing.id), (ErrorCode::BadJson, Some(12)));
    let wrong_type =
        parse(json!({"type": "quick_play", "id": 13, "preset": "standard", "rated": "yes"}))
            .expect_err("rated is a boolean");
    assert_eq!((wrong_type.code, wrong_type.id), (ErrorCode::BadJson, Some(13)));

    let ack = ServerMessage::Ack {
        id: 9,
        reply: Reply::Queued {
            preset: Preset::Standard,
            rated: true,
            team: Some("k3b9x2".into()),
            request: 41,
        },
    };
    assert_eq!(
        serde_json::to_value(&ack).expect("serializes"),
        json!({"type": "ack", "id": 9, "reply": "queued", "preset": "standard", "rated": true,
            "team": "k3b9x2", "request": 41})
    );
    let samples = [
        ack,
        ServerMessage::QuickPlayWaiting {
            preset: Preset::Cutthroat,
            rated: false,
            waiting: 7,
            partner: Some(PlayerInfo { id: "p".into(), name: "Ann".into() }),
        },
        ServerMessage::QuickPlayMatched { table: "t1".into(), seat: 2, request: 7 },
        ServerMessage::QuickPlayEnded {
            reason: QuickPlayEndReason::PartnerCancelled,
            message: "your partner cancelled".into(),
            request: 41,
        },
        ErrorCode::AlreadyQueued.to_message(Some(3)),
    ];
    for sample in samples {
        let text = serde_json::to_string(&sample).expect("serializes");
        let back: ServerMessage = serde_json::from_str(&text).expect("parses");
        assert_eq!(back, sample, "{text}");
    }
    let ended = serde_json::to_value(ServerMessage::QuickPlayEnded {
        reason: QuickPlayEndReason::OwnerLost,
        message: "ask again".into(),
        request: 41,
    })
    .expect("serializes");
    assert_eq!((&ended["reason"], &ended["request"]), (&json!("owner_lost"), &json!(41)));
}

#[test]
fn a_quick_play_request_is_checked_field_by_field() {
    let casual = QuickPlayRequest::new(Preset::Standard, false);
    let code = |request: QuickPlayRequest| request.check().map_err(|refusal| refusal.code);
    let rated_bots = QuickPlayRequest {
        bots_after_seconds: Some(30),
        ..QuickPlayRequest::new(Preset::Standard, true)
    };
    assert_eq!(code(rated_bots), Err("bad_request"));
    for seconds in [0, 4, 301, u32::MAX] {
        let request = QuickPlayRequest { bots_after_seconds: Some(seconds), ..casual.clone() };
        assert_eq!(code(request), Err("bad_request"), "{seconds}");
    }
    for seconds in [5, 300] {
        let request = QuickPlayRequest { bots_after_seconds: Some(seconds), ..casual.clone() };
        assert_eq!(code(request), Ok(()), "{seconds}");
    }
    let team_of_three =
        QuickPlayRequest { invite_partner: true, ..QuickPlayRequest::new(Preset::Cutthroat, true) };
    assert_eq!(code(team_of_three), Err("bad_request"));
    let drawn_partners =
        QuickPlayRequest { invite_partner: true, ..QuickPlayRequest::new(Preset::Classic, true) };
    assert_eq!(code(drawn_partners), Err("bad_request"));
    let both =
        QuickPlayRequest { invite_partner: true, team: Some("abc".into()), ..casual.clone() };
    assert_eq!(code(both), Err("bad_request"));
    let long_code = QuickPlayRequest { team: Some("x".repeat(65)), ..casual.clone() };
    assert_eq!(code(long_code), Err("bad_team"));
    let invite = QuickPlayRequest { invite_partner: true, ..casual };
    assert_eq!(code(invite), Ok(()));
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

#[test]
fn table_elsewhere_reads_as_documented() {
    let wire =
        json!({"type": "table_elsewhere", "table": "t1", "url": "wss://play.example/ws?node=n2"});
    let message = ServerMessage::TableElsewhere {
        table: "t1".into(),
        url: "wss://play.example/ws?node=n2".into(),
    };
    assert_eq!(serde_json::from_value::<ServerMessage>(wire.clone()).expect("parses"), message);
    assert_eq!(serde_json::to_value(&message).expect("serializes"), wire);
}

#[test]
fn list_tables_reads_its_filter_and_page_and_defaults_to_everything() {
    // An old client's `list_tables` still reads: every public table, the first page.
    let old = parse(json!({"type": "list_tables", "id": 1})).expect("valid");
    assert_eq!(old, ClientMessage::ListTables { id: 1, query: LobbyQuery::default() });
    assert_eq!(
        serde_json::to_value(&old).expect("serializes"),
        json!({"type": "list_tables", "id": 1})
    );
    let wire = json!({"type": "list_tables", "id": 2, "status": "open", "preset": "cutthroat",
        "free_seat": true, "limit": 20, "after": "t9"});
    let query = LobbyQuery {
        filter: LobbyFilter {
            status: Some(TableStatus::Open),
            preset: Some(Preset::Cutthroat),
            free_seat: true,
        },
        limit: Some(20),
        after: Some("t9".into()),
    };
    let message = ClientMessage::ListTables { id: 2, query };
    assert_eq!(parse(wire.clone()), Ok(message.clone()));
    assert_eq!(serde_json::to_value(&message).expect("serializes"), wire);
    // An unknown preset or status is refused like any malformed field, by name.
    for (field, value) in [("preset", "euchre_deluxe"), ("status", "closed")] {
        let bad = parse(json!({"type": "list_tables", "id": 3, field: value})).expect_err("bad");
        assert_eq!((bad.code, bad.id), (ErrorCode::BadJson, Some(3)));
        assert!(bad.message.contains(value), "{}", bad.message);
    }
    let bad = parse(json!({"type": "list_tables", "id": 4, "limit": -1})).expect_err("bad");
    assert_eq!((bad.code, bad.id), (ErrorCode::BadJson, Some(4)));
}

#[test]
fn a_lobby_page_is_1_to_the_maximum_tables() {
    let query = |limit| LobbyQuery { limit, ..LobbyQuery::default() };
    assert_eq!(query(None).page_size(), Ok(LOBBY_PAGE_DEFAULT as usize));
    assert_eq!(query(Some(1)).page_size(), Ok(1));
    assert_eq!(query(Some(LOBBY_PAGE_MAX)).page_size(), Ok(LOBBY_PAGE_MAX as usize));
    for limit in [0, LOBBY_PAGE_MAX + 1, u32::MAX] {
        let refusal = query(Some(limit)).page_size().expect_err("refused");
        assert_eq!(refusal.code, "bad_query");
        assert!(refusal.message.contains(&limit.to_string()), "{}", refusal.message);
    }
}

#[test]
fn a_filter_lists_public_tables_by_status_preset_and_free_seat() {
    let table = TableSummary {
        table: "t1".into(),
        host: "Ann".into(),
        preset: Preset::Cutthroat,
        rules: Preset::Cutthroat.rules(),
        private: false,
        seated: 2,
        status: TableStatus::Open,
        turn_seconds: None,
        chat: true,
    };
    let all = LobbyFilter::default();
    assert!(all.matches(&table));
    assert!(!all.matches(&TableSummary { private: true, ..table.clone() }), "never a private one");
    let open = LobbyFilter { status: Some(TableStatus::Open), ..all.clone() };
    assert!(open.matches(&table));
    assert!(!open.matches(&TableSummary { status: TableStatus::Playing, ..table.clone() }));
    let standard = LobbyFilter { preset: Some(Preset::Standard), ..all.clone() };
    assert!(!standard.matches(&table));
    // Three seats in cutthroat: two taken leaves one free, three none.
    let free = LobbyFilter { free_seat: true, ..all };
    assert!(free.matches(&table));
    assert!(!free.matches(&TableSummary { seated: 3, ..table.clone() }));
}

#[test]
fn a_lobby_page_round_trips_and_an_older_one_still_reads() {
    let page = LobbyPage {
        tables: Vec::new(),
        yours: Vec::new(),
        total: 120,
        after: Some("t5".into()),
        next: Some("t9".into()),
    };
    let wire = serde_json::to_value(ServerMessage::Lobby(page.clone())).expect("serializes");
    assert_eq!(
        wire,
        json!({"type": "lobby", "tables": [], "total": 120, "after": "t5", "next": "t9"})
    );
    assert_eq!(
        serde_json::from_value::<ServerMessage>(wire).ok(),
        Some(ServerMessage::Lobby(page))
    );
    // The last page (no `next`) of a server that did not page at all.
    let old: ServerMessage =
        serde_json::from_value(json!({"type": "lobby", "tables": []})).expect("reads");
    assert_eq!(old, ServerMessage::Lobby(LobbyPage::default()));
}

/// The schema in `docs/` must match the types. Regenerate it with
/// `UPDATE_SCHEMA=1 cargo test -p euchre-protocol --test it messages::`.
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
        "docs/protocol.schema.json is stale: run UPDATE_SCHEMA=1 cargo test -p euchre-protocol --test it messages::"
    );
}

/// The messages sent with every action are written by hand
/// (`server_message_json`): byte for byte what serde writes, for every
/// prompt and every event, as each viewer sees it, of three whole games of
/// each preset, and for table ids that need escaping.
#[test]
fn the_messages_of_every_action_are_written_as_serde_writes_them() {
    let tables = [
        "019a1b2c-3d4e-7f00-8123-456789abcdef",
        "a \"quoted\" id",
        "tab\there",
        "é",
        "back\\slash",
    ];
    let mut checked = 0;
    let mut check = |message: ServerMessage| {
        let expected = serde_json::to_string(&message).expect("serde writes it");
        assert_eq!(server_message_json(&message).expect("written"), expected);
        checked += 1;
    };
    for id in [0, 7, u64::MAX] {
        check(ServerMessage::Ack { id, reply: Reply::Done });
        check(ServerMessage::Ack { id, reply: Reply::Pong });
    }
    // A small generator of choices, so that every preset plays out differently.
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move |below: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % below as u64) as usize
    };
    let games = Preset::ALL.into_iter().flat_map(|preset| [preset; 3]).enumerate();
    for (index, preset) in games {
        let rules = preset.rules();
        let mut game = Game::new(rules, index as u64).expect("a preset's rules are valid");
        let table = tables[index % tables.len()].to_owned();
        let viewers: Vec<Viewer> = (0..rules.players)
            .map(|seat| Viewer::Seat(Seat(seat)))
            .chain([Viewer::Spectator])
            .collect();
        let mut seq = 0;
        for _ in 0..10_000 {
            let Some(seat) = game.turn() else { break };
            let actions = game.legal_actions(seat).to_vec();
            let deadline_ms = (seq % 2 == 0).then_some(seq * 1000);
            check(ServerMessage::YourTurn {
                table: table.clone(),
                seq,
                actions: actions.clone(),
                deadline_ms,
            });
            let action = actions[next(actions.len())];
            for event in game.apply(seat, action).expect("a legal action") {
                seq += 1;
                for &viewer in &viewers {
                    let event = Some(TableEvent::Game(event.for_viewer(viewer)));
                    check(ServerMessage::Event { table: table.clone(), seq, event });
                }
            }
        }
        assert!(game.is_over(), "{preset:?} played to its end");
        check(ServerMessage::Event { table: table.clone(), seq, event: None });
    }
    assert!(checked > 10_000, "{checked} messages");
}
