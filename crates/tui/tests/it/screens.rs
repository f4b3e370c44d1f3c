//! The reducer and the screens, without a server: the engine plays games
//! and its events are fed in as the server would send them; each screen is
//! drawn into ratatui's `TestBackend` and read back as text.

use euchre_client::{CreatedTable, Update};
use euchre_engine::fairness::Verdict;
use euchre_engine::{Action, Game, Preset, Seat, Viewer};
use euchre_protocol::api::{
    AbandonedView, Mark, MatchList, MatchSummaryView, PuzzleRatingChange, PuzzleVerdict,
    PuzzleView, SeatView,
};
use euchre_protocol::{
    LobbyFilter, LobbyPage, LobbyQuery, Occupant, PlayerInfo, RematchVote, ReportReason,
    TableEvent, TableNotice, TableState, TableStatus, TableSummary,
};
use euchre_tui::app::{App, Command, Connection, Msg, Outcome, Screen};
use euchre_tui::puzzle::Source;
use euchre_tui::table::TableModel;
use euchre_tui::ui;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

const TABLE: &str = "t1";

fn summary(preset: Preset, status: TableStatus) -> TableSummary {
    let rules = preset.rules();
    TableSummary {
        table: TABLE.to_owned(),
        host: "Ann".to_owned(),
        preset,
        rules,
        private: false,
        seated: rules.players,
        status,
        turn_seconds: None,
        chat: true,
    }
}

/// Ann in seat 0, bots in the others.
fn seats(players: u8) -> Vec<Option<Occupant>> {
    let ann = PlayerInfo { id: "p1".to_owned(), name: "Ann".to_owned() };
    (0..players)
        .map(|seat| {
            Some(match seat {
                0 => Occupant::Player { player: ann.clone(), connected: true },
                _ => Occupant::Bot { bot: "basic".to_owned() },
            })
        })
        .collect()
}

/// The snapshot the server would send `viewer` of `game`.
fn snapshot(preset: Preset, game: &Game, viewer: Viewer) -> Update {
    let your_seat = match viewer {
        Viewer::Seat(seat) => Some(seat.0),
        Viewer::Spectator => None,
    };
    let actions = match (viewer, game.turn()) {
        (Viewer::Seat(seat), Some(turn)) if seat == turn => game.legal_actions(seat).to_vec(),
        _ => Vec::new(),
    };
    let state = TableState {
        summary: summary(preset, TableStatus::Playing),
        seats: seats(preset.rules().players),
        your_seat,
        game: Some(game.view(viewer)),
        deal_commitment: None,
        actions,
        rematch_vote: None,
        stood_in: None,
    };
    Update::Snapshot { table: TABLE.to_owned(), seq: 1, state: Box::new(state) }
}

/// The action a test player takes at `step`: a different one each time,
/// so that bidding, loners and the dummy all come up over a game.
fn choose(actions: &[Action], step: usize) -> Action {
    actions[(step * 7 + step / 3) % actions.len()]
}

/// Plays `game` to the end, feeding every event to a model as `viewer`
/// sees it, and checks after each action that the model's game view is the
/// one the server would send in a fresh snapshot.
fn follow_a_whole_game(preset: Preset, seed: u64, viewer: Viewer) {
    let mut game = Game::new(preset.rules(), seed).expect("valid rules");
    let Update::Snapshot { table, seq, state } = snapshot(preset, &game, viewer) else {
        unreachable!()
    };
    let mut model = TableModel::from_snapshot(table, seq, *state);
    let mut seq = 1;
    let mut step = 0;
    while let Some(seat) = game.turn() {
        let action = choose(&game.legal_actions(seat), step);
        let events = game.apply(seat, action).expect("a legal action");
        for event in events {
            seq += 1;
            model.apply(seq, Some(TableEvent::Game(event.for_viewer(viewer))));
        }
        let expected = game.view(viewer);
        assert_eq!(
            model.game.as_ref(),
            Some(&expected),
            "{} seed {seed} as {viewer:?}, after {action:?} by {seat} (step {step})",
            preset.name()
        );
        step += 1;
    }
    assert!(model.finished(), "{}: the model knows the game is over", preset.name());
}

#[test]
fn the_model_follows_every_form_as_the_server_sees_it() {
    for preset in Preset::ALL {
        for seed in 1..=6 {
            follow_a_whole_game(preset, seed, Viewer::Seat(Seat(0)));
            follow_a_whole_game(preset, seed, Viewer::Seat(Seat(1)));
            follow_a_whole_game(preset, seed, Viewer::Spectator);
        }
    }
}

fn key(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

fn render(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("a test terminal");
    terminal.draw(|frame| ui::draw(frame, app)).expect("drawn");
    let buffer = terminal.backend().buffer();
    let mut text = String::new();
    for y in 0..buffer.area.height {
        for x in 0..buffer.area.width {
            text.push_str(buffer[(x, y)].symbol());
        }
        text.push('\n');
    }
    text
}

fn app() -> App {
    App::new("ws://127.0.0.1:8080/ws", "Ann")
}

/// Ann's app, seated at a game of `preset` where it is her turn to play a card.
fn app_at_play(preset: Preset, seed: u64) -> App {
    let mut game = Game::new(preset.rules(), seed).expect("valid rules");
    // Everybody makes trump at once where they can, until it is Ann's turn in play.
    while let Some(seat) = game.turn() {
        let actions = game.legal_actions(seat);
        let view = game.view(Viewer::Seat(seat));
        if seat == Seat(0) && view.phase == euchre_engine::Phase::Playing {
            break;
        }
        let action = actions.iter().find(|a| **a != Action::Pass).unwrap_or(&actions[0]);
        game.apply(seat, *action).expect("legal");
    }
    let mut app = app();
    app.update(Msg::Update(snapshot(preset, &game, Viewer::Seat(Seat(0)))));
    app
}

#[test]
fn the_lobby_lists_public_tables() {
    let mut app = app();
    let open = TableSummary { table: "t2".into(), ..summary(Preset::Cutthroat, TableStatus::Open) };
    let tables =
        vec![summary(Preset::Standard, TableStatus::Playing), TableSummary { seated: 1, ..open }];
    app.update(Msg::Update(Update::Lobby(LobbyPage { tables, total: 2, ..LobbyPage::default() })));
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Public tables: open, a seat free (2 of 2)"), "{screen}");
    assert!(screen.contains("standard · 4 players, partners"), "{screen}");
    assert!(screen.contains("cutthroat · cutthroat, 3 players"), "{screen}");
    assert!(screen.contains("1/3"), "{screen}");
    assert!(screen.contains("playing"), "{screen}");
    assert!(screen.contains("n new · j join · h history · z puzzles · t tournaments"), "{screen}");
    // Enter sits at the selected table, or watches it when full.
    app.update(key(KeyCode::Down));
    let commands = app.update(key(KeyCode::Enter));
    assert_eq!(
        commands,
        vec![Command::Sit { table: "t2".into(), seat: None, invite: None, or_watch: true }]
    );
}

#[test]
fn the_players_own_tables_come_first_and_enter_resumes_one() {
    let mut app = app();
    // Ann's game in play, which the open-tables filter does not list.
    let mine = TableSummary {
        table: "t9".into(),
        host: "Bea".into(),
        ..summary(Preset::Standard, TableStatus::Playing)
    };
    let page = LobbyPage {
        tables: vec![waiting("t1")],
        yours: vec![mine],
        total: 1,
        ..LobbyPage::default()
    };
    app.update(Msg::Update(Update::Lobby(page)));
    let screen = render(&app, 100, 24);
    assert!(screen.contains("Your game ▶ first, Enter resumes"), "{screen}");
    assert!(screen.contains("▶ Bea's table"), "named by its host, not its id: {screen}");
    assert_eq!(
        app.update(key(KeyCode::Enter)),
        vec![Command::Watch { table: "t9".into(), invite: None }]
    );
    app.update(key(KeyCode::Down));
    assert_eq!(
        app.update(key(KeyCode::Enter)),
        vec![Command::Sit { table: "t1".into(), seat: None, invite: None, or_watch: true }]
    );
    // Closed: gone from the list.
    app.update(Msg::Update(Update::LobbyRemoved("t9".into())));
    assert!(!render(&app, 100, 24).contains("Bea's table"));
    // Sent again live: back at once, and gone when the list says so.
    let live = TableSummary { host: "Bea".into(), ..waiting("t9") };
    app.update(Msg::Update(Update::LobbyYours(vec![live])));
    assert!(render(&app, 100, 24).contains("▶ Bea's table"));
    app.update(Msg::Update(Update::LobbyYours(Vec::new())));
    assert!(!render(&app, 100, 24).contains("Bea's table"));
}

#[test]
fn an_abandoned_match_reads_abandoned_and_replays() {
    let mut app = app();
    app.update(key(KeyCode::Char('h')));
    let abandoned = MatchSummaryView {
        abandoned: Some(AbandonedView { at: 5, reason: "everyone_left".into() }),
        scores: vec![4, 2],
        ..match_row("m3", false)
    };
    let page = MatchList { matches: vec![abandoned], next_cursor: None };
    app.update(Msg::Done(Outcome::Matches(page)));
    let screen = render(&app, 80, 24);
    assert!(screen.contains("4–2 Abandoned"), "{screen}");
    assert_eq!(app.update(key(KeyCode::Enter)), vec![Command::FetchRecord("m3".into())]);
}

/// An open table `id` with a seat free.
fn waiting(id: &str) -> TableSummary {
    TableSummary { table: id.into(), seated: 1, ..summary(Preset::Standard, TableStatus::Open) }
}

#[test]
fn the_lobby_starts_with_open_tables_pages_on_down_and_filters_on_f() {
    let mut app = app();
    let open = LobbyFilter { status: Some(TableStatus::Open), free_seat: true, preset: None };
    let first = LobbyQuery { filter: open.clone(), ..LobbyQuery::default() };
    assert_eq!(app.start(), vec![Command::ListTables(first.clone())]);
    let page = LobbyPage {
        tables: vec![waiting("t1"), waiting("t3")],
        total: 3,
        after: None,
        next: Some("t3".into()),
        ..LobbyPage::default()
    };
    app.update(Msg::Done(Outcome::Listed(page)));
    assert!(render(&app, 80, 24).contains("(2 of 3; ↓ for more)"));
    // A table past the pages listed waits for its page; one among them shows.
    app.update(Msg::Update(Update::LobbyUpdate(waiting("t5"))));
    app.update(Msg::Update(Update::LobbyUpdate(waiting("t2"))));
    let ids = |app: &App| app.lobby.iter().map(|t| t.table.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&app), vec!["t1", "t2", "t3"]);
    // Down past the last one: the next page, once.
    for _ in 0..2 {
        assert_eq!(app.update(key(KeyCode::Down)), vec![]);
    }
    let more = LobbyQuery { after: Some("t3".into()), ..first };
    assert_eq!(app.update(key(KeyCode::Down)), vec![Command::ListTables(more)]);
    assert_eq!(app.update(key(KeyCode::Down)), vec![], "one page at a time");
    let page = LobbyPage {
        tables: vec![waiting("t5")],
        total: 4,
        after: Some("t3".into()),
        ..LobbyPage::default()
    };
    app.update(Msg::Done(Outcome::Listed(page)));
    assert_eq!(ids(&app), vec!["t1", "t2", "t3", "t5"]);
    assert!(render(&app, 80, 24).contains("(4 of 4)"));
    app.update(Msg::Update(Update::LobbyRemoved("t2".into())));
    assert_eq!((ids(&app).len(), app.lobby_total), (3, 3));
    // f: every table, from the first page.
    let every = LobbyQuery::default();
    assert_eq!(app.update(key(KeyCode::Char('f'))), vec![Command::ListTables(every)]);
    app.update(Msg::Done(Outcome::Listed(LobbyPage::default())));
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Public tables: all (0 of 0)"), "{screen}");
}

#[test]
fn the_create_form_offers_every_preset_and_sits_at_the_new_table() {
    let mut app = app();
    app.update(key(KeyCode::Char('n')));
    assert_eq!(app.screen, Screen::Create);
    let screen = render(&app, 80, 24);
    assert!(screen.contains("New table"), "{screen}");
    assert!(screen.contains("‹ standard ›"), "{screen}");
    assert!(screen.contains("bots in the other 3"), "{screen}");
    assert!(screen.contains("public: in the lobby"), "{screen}");
    assert!(screen.contains("Rated     ‹ yes ›"), "rated by default: {screen}");
    // Every preset comes round with the arrow keys.
    let mut seen = Vec::new();
    for _ in 0..Preset::ALL.len() {
        seen.push(app.create.preset());
        app.update(key(KeyCode::Right));
    }
    assert_eq!(seen, Preset::ALL.to_vec());
    // Three-handed, private: two bots.
    while app.create.preset() != Preset::ThreeHanded {
        app.update(key(KeyCode::Right));
    }
    // Down past the two seats and the bot level to the table's visibility.
    for _ in 0..4 {
        app.update(key(KeyCode::Down));
    }
    app.update(key(KeyCode::Right));
    let screen = render(&app, 80, 24);
    assert!(screen.contains("3 players, a dummy"), "{screen}");
    assert!(screen.contains("bots in the other 2"), "{screen}");
    assert!(screen.contains("private: invite only"), "{screen}");
    let commands = app.update(key(KeyCode::Enter));
    let [Command::Create(settings)] = commands.as_slice() else { panic!("{commands:?}") };
    assert_eq!(settings.preset, Preset::ThreeHanded);
    assert_eq!(settings.bot_seats, vec![1, 2]);
    assert!(settings.private);
    // Once created, it sits in seat 0 with the invite.
    let created = CreatedTable { table: "t9".into(), invite: Some("code".into()) };
    let commands = app.update(Msg::Done(Outcome::Created(created)));
    assert_eq!(
        commands,
        vec![Command::Sit {
            table: "t9".into(),
            seat: Some(0),
            invite: Some("code".into()),
            or_watch: false
        }]
    );
}

#[test]
fn the_create_form_sets_each_bots_level_and_whether_the_table_is_rated() {
    let mut app = app();
    app.update(key(KeyCode::Char('n')));
    let screen = render(&app, 80, 24);
    for seat in 1..4 {
        assert!(
            screen.contains(&format!("Seat {seat}    ‹ bot, the table's level (easy) ›")),
            "{screen}"
        );
    }
    assert!(screen.contains("Bot level ‹ easy ›"), "{screen}");
    assert!(screen.contains("a game with a bot never is"), "{screen}");
    // Seat 1: hard; seat 2: left for a person; the table: medium.
    app.update(key(KeyCode::Down));
    for _ in 0..4 {
        app.update(key(KeyCode::Right));
    }
    app.update(key(KeyCode::Down));
    app.update(key(KeyCode::Left));
    app.update(key(KeyCode::Down));
    app.update(key(KeyCode::Down));
    app.update(key(KeyCode::Right));
    // Rated off (the bottom line).
    app.update(key(KeyCode::Down));
    app.update(key(KeyCode::Down));
    app.update(key(KeyCode::Right));
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Seat 1    ‹ bot, hard ›"), "{screen}");
    assert!(screen.contains("Seat 2    ‹ empty, for a person ›"), "{screen}");
    assert!(screen.contains("Seat 3    ‹ bot, the table's level (medium) ›"), "{screen}");
    assert!(screen.contains("Bot level ‹ medium ›"), "{screen}");
    assert!(screen.contains("1 seat waits for a person"), "{screen}");
    assert!(screen.contains("Rated     ‹ no ›"), "{screen}");
    let commands = app.update(key(KeyCode::Enter));
    let [Command::Create(settings)] = commands.as_slice() else { panic!("{commands:?}") };
    assert_eq!(settings.bot_seats, vec![1, 3]);
    assert_eq!(settings.bot, "medium");
    assert_eq!(settings.seat_bots, vec![euchre_protocol::SeatBot { seat: 1, bot: "hard".into() }]);
    assert!(!settings.rated);
    // A table of people only, rated: no bots, and the note says it counts.
    let mut app = app_with_form(|form| {
        form.seats = [euchre_tui::form::SeatChoice::Open; 3];
    });
    let screen = render(&app, 80, 24);
    assert!(screen.contains("when every seat is an account"), "{screen}");
    let commands = app.update(key(KeyCode::Enter));
    let [Command::Create(settings)] = commands.as_slice() else { panic!("{commands:?}") };
    assert!(settings.bot_seats.is_empty() && settings.rated, "{settings:?}");
}

fn app_with_form(change: impl FnOnce(&mut euchre_tui::form::CreateForm)) -> App {
    let mut app = app();
    app.update(key(KeyCode::Char('n')));
    change(&mut app.create);
    app
}

#[test]
fn joining_reads_an_invite_link() {
    let mut app = app();
    app.update(key(KeyCode::Char('j')));
    for c in "http://host/#/table/t5?invite=xy".chars() {
        app.update(key(KeyCode::Char(c)));
    }
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Join a table"), "{screen}");
    assert!(screen.contains("> http://host/#/table/t5?invite=xy"), "{screen}");
    let commands = app.update(key(KeyCode::Enter));
    assert_eq!(
        commands,
        vec![Command::Sit {
            table: "t5".into(),
            seat: None,
            invite: Some("xy".into()),
            or_watch: true
        }]
    );
}

#[test]
fn a_four_seat_hand_in_play_fits_80_by_24() {
    let app = app_at_play(Preset::Standard, 3);
    let table = app.table.as_ref().expect("a table");
    let game = table.game.as_ref().expect("a game");
    let screen = render(&app, 80, 24);
    assert!(screen.contains("4 players, partners"), "{screen}");
    assert!(screen.contains("Ann (you)"), "{screen}");
    for seat in 1..4 {
        assert!(screen.contains(&format!("Bot {seat}")), "{screen}");
    }
    assert!(screen.contains("called by"), "{screen}");
    assert!(screen.contains("Score: us (0+2) 0 · seats 1+3 0 (to 10)"), "{screen}");
    assert!(screen.contains("Tricks:"), "{screen}");
    assert!(screen.contains("Your hand:"), "{screen}");
    assert!(screen.contains("▶ Ann (you)"), "whose turn: {screen}");
    // Every legal action, numbered, and nothing else.
    let actions = app.actions();
    assert!(!actions.is_empty());
    assert!(screen.contains("Your turn: 1 Play"), "{screen}");
    assert!(screen.contains(&format!("{} ", actions.len())), "{screen}");
    assert!(!screen.contains(&format!("{} Play", actions.len() + 1)), "{screen}");
    assert_eq!(game.hand.as_ref().map(Vec::len), Some(5));
}

#[test]
fn a_three_seat_hand_in_play_fits_80_by_24() {
    for preset in [Preset::ThreeHanded, Preset::Cutthroat] {
        let app = app_at_play(preset, 5);
        let screen = render(&app, 80, 24);
        assert!(screen.contains("3 players") || screen.contains("cutthroat"), "{screen}");
        assert!(screen.contains("Bot 2"), "{screen}");
        assert!(!screen.contains("Bot 3"), "three seats only: {screen}");
        // One score per player.
        assert!(screen.contains("Score: Ann* 0 · Bot 1 0 · Bot 2 0 (to 10)"), "{screen}");
        assert!(screen.contains("Your turn: 1 Play"), "{screen}");
        if preset == Preset::ThreeHanded {
            assert!(screen.contains("dummy"), "{screen}");
        }
    }
}

#[test]
fn a_two_seat_hand_fits_too() {
    for preset in [Preset::TwoHanded, Preset::TwoHandedPlain] {
        let app = app_at_play(preset, 8);
        let screen = render(&app, 80, 24);
        assert!(screen.contains("2 players"), "{screen}");
        assert!(screen.contains("Score: Ann* 0 · Bot 1 0 (to 10)"), "{screen}");
        assert!(!screen.contains("Bot 2"), "{screen}");
    }
}

#[test]
fn keys_pick_and_play_only_the_offered_actions() {
    let mut app = app_at_play(Preset::Standard, 3);
    let actions = app.actions().to_vec();
    app.update(key(KeyCode::Char('2')));
    assert_eq!(app.selected, 1);
    app.update(key(KeyCode::Right));
    assert_eq!(app.selected, 2 % actions.len());
    // A number past the list picks nothing.
    app.update(key(KeyCode::Char('9')));
    assert_eq!(app.selected, 2 % actions.len());
    let commands = app.update(key(KeyCode::Enter));
    assert_eq!(commands, vec![Command::Act(TABLE.into(), actions[2 % actions.len()])]);
    // One action in flight: Enter again sends nothing.
    assert!(app.update(key(KeyCode::Enter)).is_empty());
    assert!(app.actions().is_empty());
}

#[test]
fn chat_is_typed_sent_and_shown() {
    let mut app = app_at_play(Preset::Standard, 3);
    app.update(key(KeyCode::Char('c')));
    for c in "hi all".chars() {
        app.update(key(KeyCode::Char(c)));
    }
    assert!(render(&app, 80, 24).contains("> hi all"));
    let commands = app.update(key(KeyCode::Enter));
    assert_eq!(commands, vec![Command::Chat(TABLE.into(), "hi all".into())]);
    let chat = TableNotice::Chat { from: "Ann".into(), text: "hi all".into(), from_id: None };
    app.update(Msg::Update(Update::Event {
        table: TABLE.into(),
        seq: 100,
        event: Some(TableEvent::Table(chat)),
    }));
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Ann: hi all"), "{screen}");
}

/// Chat from a server that did not clean it (an older one, or a hostile
/// one): nothing that could steer the terminal (escape sequences, a bell,
/// line breaks) or reorder the screen (bidi controls, zero-width
/// characters) reaches ratatui's buffer, in the line or in its sender's name.
#[test]
fn chat_reaches_the_screen_inert() {
    let mut app = app_at_play(Preset::Standard, 3);
    let chat = TableNotice::Chat {
        from: "Bob\u{202E}\u{1B}[31m".into(),
        text:
            "\u{1B}[2J\u{1B}]0;title\u{7}gg\r\nAnn: I fold \u{202E}olleh \u{2067}x\u{2069}\u{200B}"
                .into(),
        from_id: None,
    };
    notice(&mut app, 100, chat);
    let screen = render(&app, 100, 30);
    assert!(screen.contains("gg"), "{screen}");
    let bidi_or_invisible = |c: char| {
        matches!(c, '\u{061C}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}')
            || matches!(c, '\u{2060}'..='\u{2069}' | '\u{FEFF}')
    };
    let unsafe_chars: Vec<char> = screen
        .lines()
        .flat_map(str::chars)
        .filter(|&c| c.is_control() || bidi_or_invisible(c))
        .collect();
    assert!(unsafe_chars.is_empty(), "{unsafe_chars:?} in\n{screen}");
}

#[test]
fn the_status_line_says_when_the_connection_drops_and_comes_back() {
    let mut app = app_at_play(Preset::Standard, 3);
    app.update(Msg::Update(Update::Disconnected { reason: "connection reset".into() }));
    assert!(matches!(app.connection, Connection::Reconnecting(_)));
    let screen = render(&app, 80, 24);
    let status = screen.lines().nth(22).unwrap_or_default();
    assert!(status.contains("Disconnected: reconnecting…"), "{screen}");
    // The game stays on screen meanwhile.
    assert!(screen.contains("Your hand:"), "{screen}");
    app.update(Msg::Update(Update::Reconnected));
    let screen = render(&app, 80, 24);
    assert!(!screen.contains("Disconnected"), "{screen}");
    assert!(screen.contains("Reconnected"), "{screen}");
}

#[test]
fn errors_show_in_the_status_line() {
    let mut app = app_at_play(Preset::Standard, 3);
    let actions = app.actions().to_vec();
    let commands = app.update(key(KeyCode::Enter));
    let refused = euchre_client::Error::Refused {
        code: "not_your_turn".into(),
        message: "it is not your turn".into(),
    };
    app.update(Msg::Done(Outcome::Failed(commands[0].clone(), refused)));
    assert!(!app.acting);
    let screen = render(&app, 80, 24);
    assert!(screen.contains("That move failed: it is not your turn"), "{screen}");
    // Nothing changed at the server: the same choices are offered again.
    assert_eq!(app.actions(), actions.as_slice());
}

#[test]
fn a_finished_game_says_so_and_offers_a_rematch() {
    let mut game = Game::new(Preset::Standard.rules(), 4).expect("valid");
    // Always making trump: passing round after round would redeal forever.
    while let Some(seat) = game.turn() {
        let actions = game.legal_actions(seat);
        let action = actions.iter().find(|a| **a != Action::Pass).unwrap_or(&actions[0]);
        game.apply(seat, *action).expect("legal");
    }
    let mut app = app();
    app.update(Msg::Update(snapshot(Preset::Standard, &game, Viewer::Seat(Seat(0)))));
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Game over:"), "{screen}");
    assert!(screen.contains("r: rematch"), "{screen}");
    assert_eq!(app.update(key(KeyCode::Char('r'))), vec![Command::Rematch(TABLE.into())]);
}

#[test]
fn at_a_pool_table_the_players_ask_for_the_rematch_and_no_host_is_named() {
    let mut game = Game::new(Preset::Standard.rules(), 4).expect("valid");
    while let Some(seat) = game.turn() {
        let actions = game.legal_actions(seat);
        let action = actions.iter().find(|a| **a != Action::Pass).unwrap_or(&actions[0]);
        game.apply(seat, *action).expect("legal");
    }
    let mut app = app();
    let mut update = snapshot(Preset::Standard, &game, Viewer::Seat(Seat(0)));
    if let Update::Snapshot { state, .. } = &mut update {
        state.rematch_vote = Some(RematchVote { asked: vec![2], deadline_ms: Some(42_000) });
    }
    app.update(Msg::Update(update));
    let screen = render(&app, 100, 24);
    assert!(screen.contains("asked for a rematch (42 s)"), "{screen}");
    assert!(screen.contains("r: rematch"), "{screen}");
    assert!(!screen.contains("host"), "{screen}");
    assert_eq!(app.update(key(KeyCode::Char('r'))), vec![Command::Rematch(TABLE.into())]);
}

#[test]
fn a_larger_terminal_works_too() {
    let app = app_at_play(Preset::Standard, 3);
    let screen = render(&app, 120, 40);
    assert!(screen.contains("Your hand:"), "{screen}");
    assert!(screen.contains("Chat (c)"), "{screen}");
}

fn match_row(id: &str, finished: bool) -> MatchSummaryView {
    let seats = ["Ann", "basic bot", "basic bot", "basic bot"]
        .iter()
        .enumerate()
        .map(|(seat, name)| SeatView {
            seat: seat as u8,
            player_id: None,
            bot: None,
            name: (*name).into(),
            stand_in: None,
        })
        .collect();
    MatchSummaryView {
        id: id.into(),
        table_id: "t1".into(),
        number: 1,
        imported: false,
        rules: Preset::Standard.rules(),
        seats,
        started_at: 0,
        ended_at: finished.then_some(1),
        finished,
        scores: vec![10, 6],
        winner: finished.then_some(0),
        winners: if finished { vec![0, 2] } else { Vec::new() },
        rubber: Vec::new(),
        abandoned: None,
    }
}

#[test]
fn history_lists_matches_and_replays_one_hand_by_hand() {
    let mut app = app();
    let commands = app.update(key(KeyCode::Char('h')));
    assert_eq!(commands[0], Command::ListMatches);
    assert!(
        matches!(&commands[1..], [Command::ListTables(LobbyQuery { after: None, .. })]),
        "the lobby's first page again, for the player's live tables: {commands:?}"
    );
    assert_eq!(app.screen, Screen::History);
    let page = MatchList {
        matches: vec![match_row("m1", true), match_row("m2", false)],
        next_cursor: None,
    };
    app.update(Msg::Done(Outcome::Matches(page)));
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Your matches (2)"), "{screen}");
    assert!(screen.contains("10–6"), "{screen}");
    assert!(screen.contains("10–6 …"), "a match still played: {screen}");
    assert_eq!(app.update(key(KeyCode::Enter)), vec![Command::FetchRecord("m1".into())]);
    // A whole game's record, as `GET /api/matches/{id}/record` has it.
    let mut game = Game::new(Preset::Standard.rules(), 4).expect("valid");
    while let Some(seat) = game.turn() {
        let actions = game.legal_actions(seat);
        let action = actions.iter().find(|a| **a != Action::Pass).unwrap_or(&actions[0]);
        game.apply(seat, *action).expect("legal");
    }
    let record = game.record().clone();
    let hands = record.hands.len();
    let asked = app.update(Msg::Done(Outcome::Record("m1".into(), record.clone())));
    assert_eq!(asked, vec![Command::FetchAnalysis("m1".into())]);
    assert_eq!(app.screen, Screen::Replay);
    assert!(render(&app, 80, 24).contains("Analysing…"), "until the analysis comes");
    // The analysis as `GET /api/matches/{id}/analysis` has it (few worlds).
    let settings = euchre_analysis::Settings { worlds: 4, seed: 1 };
    let analysis = euchre_analysis::analyse(&record, &settings).expect("analysed");
    app.update(Msg::Done(Outcome::Analysis("m1".into(), Box::new(analysis.clone()))));
    let screen = render(&app, 80, 24);
    println!("{screen}");
    let accuracy = |seat: usize| {
        let player = &analysis.players[seat];
        format!("{:.0}% −{:.1}", player.accuracy.expect("decisions") * 100.0, player.points_lost)
    };
    assert!(screen.contains(&format!("Accuracy, points lost: Ann {}", accuracy(0))), "{screen}");
    // Each card or bid below the tolerance is marked after it, the worst
    // noted under the hand with what was best.
    let marked = analysis.hands[0]
        .decisions
        .iter()
        .filter(|d| {
            [d.shown.as_ref().map(|s| s.mark), d.known.as_ref().map(|k| k.mark)]
                .iter()
                .flatten()
                .any(|m| matches!(m, Mark::Inaccuracy | Mark::Mistake | Mark::Blunder))
        })
        .count();
    assert!(marked > 0, "this game has a mark in its first hand");
    let signs = screen.matches('?').count();
    assert!(signs >= marked, "{marked} marked, {signs} signs: {screen}");
    assert!(screen.contains(": best ") || screen.contains("with what they knew"), "{screen}");
    assert!(screen.contains(&format!("hand 1 of {hands}")), "{screen}");
    assert!(screen.contains("basic bot 1"), "bots told apart by seat: {screen}");
    assert!(screen.contains("Bids:"), "{screen}");
    assert!(screen.contains("  5. "), "five tricks: {screen}");
    assert!(screen.contains("· score "), "{screen}");
    app.update(key(KeyCode::End));
    let screen = render(&app, 80, 24);
    assert!(screen.contains(&format!("hand {hands} of {hands}")), "{screen}");
    assert!(screen.contains("score 10–") || screen.contains("–10"), "the final score: {screen}");
    app.update(key(KeyCode::Esc));
    assert_eq!(app.screen, Screen::History);
}

#[test]
fn the_history_pages_past_the_first_fifty_matches() {
    let mut app = app();
    app.update(key(KeyCode::Char('h')));
    let rows = |from: usize, count: usize| -> Vec<_> {
        (from..from + count).map(|n| match_row(&format!("m{n}"), true)).collect()
    };
    let page = MatchList { matches: rows(0, 50), next_cursor: Some("c50".into()) };
    app.update(Msg::Done(Outcome::Matches(page)));
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Your matches (50, ↓ at the end for more)"), "{screen}");
    // Down to the last one loaded asks for nothing; once more, the next page.
    for _ in 0..49 {
        assert!(app.update(key(KeyCode::Down)).is_empty());
    }
    assert_eq!(app.history_selected, 49);
    assert!(render(&app, 80, 24).contains("m49"), "the list scrolls with the cursor");
    assert_eq!(app.update(key(KeyCode::Down)), vec![Command::MoreMatches("c50".into())]);
    assert!(app.update(key(KeyCode::Down)).is_empty(), "one page at a time");
    assert!(render(&app, 80, 24).contains("loading more…"));
    let page = MatchList { matches: rows(50, 7), next_cursor: None };
    app.update(Msg::Done(Outcome::MoreMatches(page)));
    assert_eq!(app.history.len(), 57);
    assert_eq!(app.history_selected, 50, "on the first of the new page");
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Your matches (57)"), "{screen}");
    assert!(screen.contains("m50"), "{screen}");
    // The last page: End stays there, and asks for nothing.
    assert!(app.update(key(KeyCode::End)).is_empty());
    assert_eq!(app.history_selected, 56);
    assert!(app.update(key(KeyCode::Down)).is_empty());
    assert_eq!(app.update(key(KeyCode::Enter)), vec![Command::FetchRecord("m56".into())]);
}

#[test]
fn a_private_table_waiting_for_players_shows_its_invite_link() {
    let mut app = app();
    let created = CreatedTable { table: TABLE.into(), invite: Some("k9x2".into()) };
    app.update(Msg::Done(Outcome::Created(created)));
    let mut seats = seats(3);
    seats[2] = None;
    let state = TableState {
        summary: TableSummary {
            private: true,
            seated: 2,
            ..summary(Preset::Cutthroat, TableStatus::Open)
        },
        seats,
        your_seat: Some(0),
        game: None,
        deal_commitment: None,
        actions: Vec::new(),
        rematch_vote: None,
        stood_in: None,
    };
    app.update(Msg::Update(Update::Snapshot {
        table: TABLE.into(),
        seq: 1,
        state: Box::new(state),
    }));
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Waiting for players: 2/3 seated."), "{screen}");
    assert!(screen.contains("seat 2: (empty)"), "{screen}");
    assert!(screen.contains("Press s to start"), "{screen}");
    assert!(screen.contains("http://127.0.0.1:8080/#/table/t1?invite=k9x2"), "{screen}");
    assert_eq!(app.update(key(KeyCode::Char('s'))), vec![Command::Start(TABLE.into())]);
}

fn notice(app: &mut App, seq: u64, notice: TableNotice) {
    app.update(Msg::Update(Update::Event {
        table: TABLE.into(),
        seq,
        event: Some(TableEvent::Table(notice)),
    }));
}

/// A table's notices do not move the game: the prompt they follow stands
/// (the server sends no new one after them). A rating comes a moment after
/// `game_won`, often after the next game's first prompt.
#[test]
fn a_prompt_stands_through_the_tables_notices() {
    let mut app = app_at_play(Preset::Standard, 3);
    let actions = app.actions().to_vec();
    assert!(!actions.is_empty());
    let rating = |seat| euchre_protocol::SeatRating {
        seat,
        player_id: format!("p{seat}"),
        rating: 1500,
        change: 0,
    };
    let notices = [
        TableNotice::Rated { form: "partnership".into(), ratings: (0..4).map(rating).collect() },
        TableNotice::Chat { from: "Bob".into(), text: "hurry".into(), from_id: None },
        TableNotice::Presence { seat: 2, connected: false, grace_ms: None },
        TableNotice::DealCommitted { hand: 0, commitment: euchre_engine::Commitment([1; 32]) },
    ];
    for (seq, later) in (2..).zip(notices) {
        notice(&mut app, seq, later.clone());
        assert_eq!(app.actions(), actions.as_slice(), "after {later:?}");
    }
    assert!(render(&app, 80, 24).contains("Your turn: 1 Play"));
    // A refused move is offered again even if a notice came meanwhile.
    let commands = app.update(key(KeyCode::Enter));
    notice(
        &mut app,
        10,
        TableNotice::Chat { from: "Bob".into(), text: "go".into(), from_id: None },
    );
    let refused = euchre_client::Error::Refused { code: "x".into(), message: "no".into() };
    app.update(Msg::Done(Outcome::Failed(commands[0].clone(), refused)));
    assert_eq!(app.actions(), actions.as_slice());
    // A game event does make it stale.
    let seat = euchre_engine::Seat(1);
    app.update(Msg::Update(Update::Event {
        table: TABLE.into(),
        seq: 11,
        event: Some(TableEvent::Game(euchre_engine::Event::SitsOut { seat })),
    }));
    assert!(app.actions().is_empty());
}

/// A game fed to Ann's app as the server sends it to her: each deal sealed
/// (`deal_committed` right after `hand_dealt`), each hand revealed right
/// after `hand_ended`, honestly or not.
struct SealedFeed {
    game: Game,
    seq: u64,
    salts: u8,
    tamper: Tamper,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tamper {
    Honest,
    /// Every reveal's deck changed after the commitment.
    Reveal,
    /// Every deal committed to and revealed as another deck than the one
    /// dealt (seat 0's first card and seat 1's swapped): the hash opens.
    Deal,
}

/// The deck the feed commits to and reveals for `deal`.
fn committed_deck(deal: &euchre_engine::Deal, tamper: Tamper) -> Vec<euchre_engine::Card> {
    let mut deck = deal.deck();
    if tamper == Tamper::Deal {
        deck.swap(0, 5);
    }
    deck
}

fn commit_to(game: &mut Game, tamper: Tamper, salt: u8) -> euchre_engine::Commitment {
    let salt = euchre_engine::Salt([salt; 32]);
    let honest = game.seal_hand(salt);
    match tamper {
        Tamper::Deal => {
            euchre_engine::fairness::commit(&committed_deck(game.hand().deal(), tamper), &salt)
        }
        _ => honest,
    }
}

impl SealedFeed {
    fn start(app: &mut App, preset: Preset, seed: u64, tamper: Tamper) -> SealedFeed {
        let mut game = Game::new(preset.rules(), seed).expect("valid rules");
        let commitment = commit_to(&mut game, tamper, 1);
        let Update::Snapshot { table, seq, mut state } =
            snapshot(preset, &game, Viewer::Seat(Seat(0)))
        else {
            unreachable!()
        };
        state.deal_commitment = Some(commitment);
        app.update(Msg::Update(Update::Snapshot { table, seq, state }));
        SealedFeed { game, seq, salts: 1, tamper }
    }

    fn send(&mut self, app: &mut App, event: TableEvent) {
        self.seq += 1;
        app.update(Msg::Update(Update::Event {
            table: TABLE.into(),
            seq: self.seq,
            event: Some(event),
        }));
    }

    /// The next action (trump made where it can be), fed with its events.
    /// False once the game is over.
    fn step(&mut self, app: &mut App) -> bool {
        let Some(seat) = self.game.turn() else { return false };
        let actions = self.game.legal_actions(seat);
        let action = *actions.iter().find(|a| **a != Action::Pass).unwrap_or(&actions[0]);
        let hand = self.game.record().hands.len() as u32 - 1;
        let events = self.game.apply(seat, action).expect("legal");
        for event in events {
            self.send(app, TableEvent::Game(event.for_viewer(Viewer::Seat(Seat(0)))));
            match event {
                euchre_engine::Event::HandEnded { .. } => {
                    let record = &self.game.record().hands[hand as usize];
                    let mut deck = committed_deck(&record.deal, self.tamper);
                    if self.tamper == Tamper::Reveal {
                        deck.swap(0, 20);
                    }
                    let salt = record.seal.expect("sealed").salt;
                    self.send(
                        app,
                        TableEvent::Table(TableNotice::DealRevealed { hand, deck, salt }),
                    );
                }
                euchre_engine::Event::HandDealt { number, .. } => {
                    self.salts += 1;
                    let commitment = commit_to(&mut self.game, self.tamper, self.salts);
                    let notice = TableNotice::DealCommitted { hand: number, commitment };
                    self.send(app, TableEvent::Table(notice));
                }
                _ => {}
            }
        }
        true
    }

    /// Plays on until hand `number` (from 0) has been dealt and committed.
    fn until_hand(&mut self, app: &mut App, number: u32) {
        while self.game.record().hands.len() as u32 <= number {
            assert!(self.step(app), "the game ended before hand {number}");
        }
    }

    fn commitment(&self) -> String {
        let seal = self.game.record().hands.last().and_then(|hand| hand.seal).expect("sealed");
        assert!(self.tamper == Tamper::Honest, "the commitment sent is the seal's");
        seal.commitment.to_string()[..8].to_owned()
    }
}

#[test]
fn each_deal_shows_its_seal_and_is_verified_here_when_revealed() {
    for preset in [Preset::Standard, Preset::ThreeHanded, Preset::TwoHanded, Preset::Cutthroat] {
        let mut app = app();
        let mut feed = SealedFeed::start(&mut app, preset, 7, Tamper::Honest);
        let screen = render(&app, 80, 24);
        assert!(screen.contains(&format!("Deal sealed #{}", feed.commitment())), "{screen}");
        assert!(!screen.contains("verified"), "nothing revealed yet: {screen}");
        feed.until_hand(&mut app, 1);
        let screen = render(&app, 80, 24);
        assert!(screen.contains(&format!("Deal sealed #{}", feed.commitment())), "{screen}");
        assert!(screen.contains("hand 1: deal verified ✓"), "{preset:?}: {screen}");
        assert!(screen.contains("Your hand:"), "it still fits 80x24: {screen}");
        // To the end: every hand checked, the last one too.
        while feed.step(&mut app) {
            let checked = app.table.as_ref().and_then(|table| table.deals.checked().cloned());
            assert!(
                checked.as_ref().is_none_or(|(_, verdict)| *verdict == Verdict::Verified),
                "{preset:?}: {checked:?}"
            );
        }
        let hands = feed.game.record().hands.len();
        let screen = render(&app, 80, 24);
        assert!(screen.contains(&format!("hand {hands}: deal verified ✓")), "{screen}");
    }
}

#[test]
fn a_deal_that_does_not_match_its_commitment_or_what_was_dealt_says_mismatch() {
    for tamper in [Tamper::Reveal, Tamper::Deal] {
        let mut app = app();
        let mut feed = SealedFeed::start(&mut app, Preset::Standard, 7, tamper);
        feed.until_hand(&mut app, 1);
        let screen = render(&app, 80, 24);
        assert!(screen.contains("hand 1: deal MISMATCH ✗"), "{screen}");
        let status = screen.lines().nth(22).unwrap_or_default();
        assert!(status.contains("MISMATCH: hand 1's deal does not match"), "{screen}");
    }
}

#[test]
fn a_rated_game_shows_each_seats_new_rating() {
    let mut app = app();
    let mut feed = SealedFeed::start(&mut app, Preset::Standard, 4, Tamper::Honest);
    while feed.step(&mut app) {}
    let changes = [162, -58, 40, -1];
    let ratings = (0..4u8)
        .map(|seat| euchre_protocol::SeatRating {
            seat,
            player_id: format!("p{seat}"),
            rating: 1500 + changes[usize::from(seat)],
            change: changes[usize::from(seat)],
        })
        .collect();
    feed.send(
        &mut app,
        TableEvent::Table(TableNotice::Rated { form: "partnership".into(), ratings }),
    );
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Game over:"), "{screen}");
    assert!(screen.contains("Rated: you 1662 (+162) · Bot 1 1442 (−58)"), "{screen}");
    assert!(screen.contains("Bot 3 1499 (−1)"), "{screen}");
    assert!(screen.contains("Your rating: 1662 (+162)."), "{screen}");
    assert!(screen.contains("r: rematch"), "{screen}");
    let status = screen.lines().nth(22).unwrap_or_default();
    assert!(status.contains("Rated: your rating is now 1662 (+162)."), "{screen}");
    // A quick rematch: the next game's rating comes after its first deal,
    // and is shown as the last game's.
    let rules = Preset::Standard.rules();
    feed.send(&mut app, TableEvent::Table(TableNotice::GameStarted { game: 2, rules }));
    let next = Game::new(rules, 9).expect("valid");
    let deal = next.current_deal_event();
    feed.send(&mut app, TableEvent::Game(deal.for_viewer(Viewer::Seat(Seat(0)))));
    let screen = render(&app, 80, 24);
    assert!(!screen.contains("Rated: you 1662"), "a new game: {screen}");
    let rating =
        euchre_protocol::SeatRating { seat: 0, player_id: "p0".into(), rating: 1670, change: 8 };
    let ratings = vec![rating];
    feed.send(
        &mut app,
        TableEvent::Table(TableNotice::Rated { form: "partnership".into(), ratings }),
    );
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Last game rated: you 1670 (+8)"), "{screen}");
    assert!(screen.contains("Your hand:"), "{screen}");
}

#[test]
fn a_rubber_shows_each_game_break_and_how_the_rubber_ended() {
    let mut app = app();
    let mut feed = SealedFeed::start(&mut app, Preset::ClassicRubber, 5, Tamper::Honest);
    while feed.game.games().is_empty() {
        assert!(feed.step(&mut app), "the rubber ended before its first game");
    }
    let screen = render(&app, 80, 24);
    let first = feed.game.games()[0];
    let side = if first.winner.0 == 0 { "us (0+2)" } else { "seats 1+3" };
    assert!(screen.contains(&format!("Game 1 to {side}, ")), "{screen}");
    assert!(screen.contains("game 2 begins at 0."), "{screen}");
    assert!(screen.contains("Your hand:"), "it fits: {screen}");
    while feed.step(&mut app) {}
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Game over:"), "{screen}");
    assert!(screen.contains("won the rubber"), "{screen}");
    assert!(screen.contains("a margin of"), "{screen}");
    assert!(!screen.contains("begins at 0"), "{screen}");
}

#[test]
fn a_timed_turn_counts_down() {
    let start = std::time::Instant::now();
    let mut app = app_at_play(Preset::Standard, 3);
    app.update(Msg::Tick(start));
    let actions = app.actions().to_vec();
    if let Some(table) = app.table.as_mut() {
        table.summary.turn_seconds = Some(30);
    }
    app.update(Msg::Update(Update::YourTurn {
        table: TABLE.into(),
        seq: 1,
        actions,
        deadline_ms: Some(12_000),
    }));
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Your turn (12 s left): 1 Play"), "{screen}");
    assert!(screen.contains("4 players, partners · 30 s a turn"), "{screen}");
    app.update(Msg::Tick(start + std::time::Duration::from_millis(8_500)));
    assert!(render(&app, 80, 24).contains("Your turn (4 s left): 1 Play"));
    app.update(Msg::Tick(start + std::time::Duration::from_secs(20)));
    assert!(render(&app, 80, 24).contains("Your turn (0 s left)"));
    // Played: no countdown while it is not this client's turn.
    app.update(key(KeyCode::Enter));
    assert_eq!(app.time_left(), None);
    assert!(!render(&app, 80, 24).contains("s left"));
}

#[test]
fn quick_play_searches_cancels_and_opens_the_table_when_matched() {
    use euchre_tui::quick::Searching;
    use std::time::{Duration, Instant};

    let mut app = app();
    let start = Instant::now();
    app.update(Msg::Tick(start));
    assert!(render(&app, 80, 24).contains("p: quick play"));
    app.update(key(KeyCode::Char('p')));
    assert_eq!(app.screen, Screen::QuickPlay);
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Quick play"), "{screen}");
    assert!(screen.contains("Game      ‹ standard ›"), "{screen}");
    // Casual first: the terminal client plays as a guest.
    assert!(screen.contains("Rated     ‹ no ›"), "{screen}");
    app.update(key(KeyCode::Down));
    app.update(key(KeyCode::Right));
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Rated     ‹ yes ›"), "{screen}");
    assert!(!screen.contains("Bots"), "a rated game offers no bots: {screen}");
    // Cutthroat, casual, bots after 5 s.
    app.update(key(KeyCode::Up));
    app.update(key(KeyCode::Right));
    app.update(key(KeyCode::Down));
    app.update(key(KeyCode::Right));
    app.update(key(KeyCode::Down));
    app.update(key(KeyCode::Right));
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Bots      ‹ after 5 s ›"), "{screen}");
    let commands = app.update(key(KeyCode::Enter));
    let [Command::QuickPlay(request)] = commands.as_slice() else { panic!("{commands:?}") };
    assert_eq!(
        (request.preset, request.rated, request.bots_after_seconds),
        (Preset::Cutthroat, false, Some(5))
    );
    assert_eq!(app.screen, Screen::Lobby);
    app.update(Msg::Done(Outcome::Queued { team: None }));
    assert!(app.ticking(), "the time waited ticks");
    // The searching line: the time waited and the pool's size.
    app.update(Msg::Update(Update::QuickPlayWaiting {
        preset: Preset::Cutthroat,
        rated: false,
        waiting: 2,
        partner: None,
    }));
    app.update(Msg::Tick(start + Duration::from_secs(12)));
    let screen = render(&app, 80, 24);
    assert!(
        screen.contains(
            "Searching: cutthroat, casual · 0:12 · 2 waiting · bots after 5 s · x cancels"
        ),
        "{screen}"
    );
    assert_eq!(app.update(key(KeyCode::Char('p'))), vec![], "one request at a time");
    // x cancels.
    assert_eq!(app.update(key(KeyCode::Char('x'))), vec![Command::CancelQuickPlay]);
    app.update(Msg::Done(Outcome::Done(Command::CancelQuickPlay)));
    assert_eq!(app.searching, None);
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Quick play cancelled."), "{screen}");
    assert_eq!(app.update(key(KeyCode::Char('x'))), vec![], "nothing left to cancel");

    // Asked again and matched: the table's snapshot follows and opens it.
    app.update(key(KeyCode::Char('p')));
    app.update(key(KeyCode::Enter));
    assert!(matches!(app.searching, Some(Searching { preset: Preset::Cutthroat, .. })));
    app.update(Msg::Update(Update::QuickPlayMatched { table: TABLE.into(), seat: 0 }));
    assert_eq!(app.searching, None);
    let game = Game::new(Preset::Cutthroat.rules(), 5).expect("valid rules");
    app.update(Msg::Update(snapshot(Preset::Cutthroat, &game, Viewer::Seat(Seat(0)))));
    assert_eq!(app.screen, Screen::Table);
    let screen = render(&app, 80, 24);
    assert!(screen.contains("cutthroat (3 seats)"), "{screen}");

    // A request the server ends (e.g. on shutdown) says why.
    let mut app = self::app();
    app.update(key(KeyCode::Char('p')));
    app.update(key(KeyCode::Enter));
    app.update(Msg::Update(Update::QuickPlayEnded {
        reason: euchre_protocol::QuickPlayEndReason::Shutdown,
        message: "the server is shutting down".into(),
    }));
    assert_eq!(app.searching, None);
    assert!(render(&app, 80, 24).contains("Quick play ended: the server is shutting down"));
}

#[test]
fn quick_play_with_a_partner_shows_the_code_to_pass_on_or_takes_one() {
    use euchre_protocol::QuickPlayEndReason;

    // Ann invites: the form's partner line, then the code from the ack.
    let mut app = app();
    app.update(key(KeyCode::Char('p')));
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Partner   ‹ alone ›"), "{screen}");
    for _ in 0..3 {
        app.update(key(KeyCode::Down));
    }
    app.update(key(KeyCode::Right));
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Partner   ‹ invite a partner ›"), "{screen}");
    let commands = app.update(key(KeyCode::Enter));
    let [Command::QuickPlay(request)] = commands.as_slice() else { panic!("{commands:?}") };
    assert!(request.invite_partner && request.team.is_none(), "{request:?}");
    assert!(render(&app, 80, 24).contains("Asking the server for a team code…"));
    app.update(Msg::Done(Outcome::Queued { team: Some("q7mz2k9xvt".into()) }));
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Waiting for your partner: standard, casual"), "{screen}");
    assert!(screen.contains("Give your partner this team code: Q7MZ2K9XVT"), "{screen}");
    // Bob joins: the code goes, his name shows.
    app.update(Msg::Update(Update::QuickPlayWaiting {
        preset: Preset::Standard,
        rated: false,
        waiting: 2,
        partner: Some(PlayerInfo { id: "p2".into(), name: "Bob".into() }),
    }));
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Searching: standard, casual, with Bob"), "{screen}");
    assert!(!screen.contains("team code"), "{screen}");
    // Bob cancels: Ann's request ends and says why.
    app.update(Msg::Update(Update::QuickPlayEnded {
        reason: QuickPlayEndReason::PartnerCancelled,
        message: "your partner cancelled".into(),
    }));
    assert_eq!(app.searching, None);
    assert!(render(&app, 80, 24).contains("Quick play ended: your partner cancelled"));

    // Bob joins with the code Ann passed on, typed as she read it.
    let mut bob = self::app();
    bob.update(key(KeyCode::Char('p')));
    for _ in 0..3 {
        bob.update(key(KeyCode::Down));
    }
    bob.update(key(KeyCode::Left));
    let screen = render(&bob, 80, 24);
    assert!(screen.contains("Partner   ‹ join with a code ›"), "{screen}");
    bob.update(key(KeyCode::Down));
    assert_eq!(bob.update(key(KeyCode::Enter)), vec![], "no code typed yet");
    assert!(render(&bob, 80, 24).contains("Type the team code your partner was given"));
    for c in "q7mz 2k9xvtt".chars() {
        bob.update(key(KeyCode::Char(c)));
    }
    bob.update(key(KeyCode::Backspace));
    let screen = render(&bob, 80, 24);
    assert!(screen.contains("Team code Q7MZ2K9XVT█"), "{screen}");
    assert!(!screen.contains("Type the team code"), "typing clears the call: {screen}");
    let commands = bob.update(key(KeyCode::Enter));
    let [Command::QuickPlay(request)] = commands.as_slice() else { panic!("{commands:?}") };
    assert_eq!((request.invite_partner, request.team.as_deref()), (false, Some("Q7MZ2K9XVT")));
    bob.update(Msg::Done(Outcome::Queued { team: None }));
    assert!(!render(&bob, 80, 24).contains("team code"), "only the inviter passes one on");

    // A form without partners asks alone, whatever was chosen before.
    bob.update(key(KeyCode::Char('x')));
    bob.update(Msg::Done(Outcome::Done(Command::CancelQuickPlay)));
    bob.update(key(KeyCode::Char('p')));
    bob.quick.field = 0;
    bob.update(key(KeyCode::Right));
    let screen = render(&bob, 80, 24);
    assert!(!screen.contains("Partner"), "{screen}");
    let commands = bob.update(key(KeyCode::Enter));
    let [Command::QuickPlay(request)] = commands.as_slice() else { panic!("{commands:?}") };
    assert_eq!(
        (request.preset, request.invite_partner, request.team.clone()),
        (Preset::Cutthroat, false, None)
    );
}

#[test]
fn the_history_lists_the_players_live_tables_first_and_enter_resumes_one() {
    let mut app = app();
    let mine =
        TableSummary { table: "t9".into(), ..summary(Preset::Standard, TableStatus::Playing) };
    app.update(Msg::Update(Update::Lobby(LobbyPage { yours: vec![mine], ..LobbyPage::default() })));
    app.update(key(KeyCode::Char('h')));
    let page = MatchList { matches: vec![match_row("m1", true)], next_cursor: None };
    app.update(Msg::Done(Outcome::Matches(page)));
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Your games: Enter resumes"), "{screen}");
    assert!(screen.contains("Ann's table            4 players, partners"), "{screen}");
    assert!(screen.contains("playing"), "{screen}");
    assert!(screen.contains("Your matches (1)"), "{screen}");
    // The live table first: Enter takes the player back to their seat.
    assert_eq!(
        app.update(key(KeyCode::Enter)),
        vec![Command::Watch { table: "t9".into(), invite: None }]
    );
    // Down: the match, replayed.
    app.update(key(KeyCode::Down));
    assert_eq!(app.update(key(KeyCode::Enter)), vec![Command::FetchRecord("m1".into())]);
    app.update(key(KeyCode::Down));
    assert_eq!(app.history_selected, 1, "the last row stays picked");
    // The table closes: the section goes, the match stays picked.
    app.update(Msg::Update(Update::LobbyRemoved("t9".into())));
    let screen = render(&app, 80, 24);
    assert!(!screen.contains("Your games"), "{screen}");
    assert_eq!(app.update(key(KeyCode::Enter)), vec![Command::FetchRecord("m1".into())]);
}

#[test]
fn a_request_already_waiting_from_elsewhere_is_shown_and_x_cancels_it() {
    // Tess asked, then restarted her terminal: the server still holds her request.
    let mut app = app();
    app.update(key(KeyCode::Char('p')));
    let commands = app.update(key(KeyCode::Enter));
    let [Command::QuickPlay(_)] = commands.as_slice() else { panic!("{commands:?}") };
    let refused = euchre_client::Error::Refused {
        code: "already_queued".into(),
        message: "you already asked for a quick-play game".into(),
    };
    app.update(Msg::Done(Outcome::Failed(commands[0].clone(), refused)));
    let screen = render(&app, 80, 24);
    assert!(
        screen.contains("Searching: a request of yours was already waiting · x cancels"),
        "{screen}"
    );
    assert!(screen.contains("you already asked for a quick-play game: x cancels it"), "{screen}");
    // Its pool's next notice says what it is.
    app.update(Msg::Update(Update::QuickPlayWaiting {
        preset: Preset::TwoHandedPlain,
        rated: false,
        waiting: 1,
        partner: None,
    }));
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Searching: two_handed_plain, casual"), "{screen}");
    assert_eq!(app.update(key(KeyCode::Char('x'))), vec![Command::CancelQuickPlay]);
    app.update(Msg::Done(Outcome::Done(Command::CancelQuickPlay)));
    assert_eq!(app.searching, None);
    // Any other refusal leaves nothing searching.
    app.update(key(KeyCode::Char('p')));
    let commands = app.update(key(KeyCode::Enter));
    let busy = euchre_client::Error::Refused { code: "busy".into(), message: "full".into() };
    app.update(Msg::Done(Outcome::Failed(commands[0].clone(), busy)));
    assert_eq!(app.searching, None);
}

#[test]
fn the_chat_line_mutes_blocks_and_reports_a_seated_player() {
    let mut app = app_at_play(Preset::Standard, 3);
    let bob = PlayerInfo { id: "p2".to_owned(), name: "Bob".to_owned() };
    let model = app.table.as_mut().expect("at the table");
    model.seats[2] = Some(Occupant::Player { player: bob.clone(), connected: true });
    let mut line = |text: &str| {
        app.update(key(KeyCode::Char('c')));
        for c in text.chars() {
            app.update(key(KeyCode::Char(c)));
        }
        app.update(key(KeyCode::Enter))
    };
    assert_eq!(line("/mute 2"), vec![Command::Mute { player: bob.clone(), on: true }]);
    assert_eq!(line("/unblock 2"), vec![Command::Block { player: bob.clone(), on: false }]);
    assert_eq!(
        line("/report 2 chat rude all game"),
        vec![Command::Report {
            table: TABLE.into(),
            player: bob.clone(),
            reason: ReportReason::AbusiveChat,
            details: "rude all game".into(),
        }]
    );
    // A bot's seat, one's own, or a line the commands do not read: sent
    // nowhere, and the player is told how.
    assert!(line("/mute 1").is_empty());
    assert!(line("/mute 0").is_empty());
    assert!(line("/report 2 because").is_empty());
    assert!(render(&app, 120, 30).contains("/mute N"), "the usage is shown");
    app.update(Msg::Done(Outcome::Done(Command::Mute { player: bob, on: true })));
    assert!(render(&app, 120, 30).contains("Bob's chat is hidden from you now."));
}

#[test]
fn a_moderators_warning_is_shown_and_acknowledged() {
    let mut app = app();
    let commands = app.update(Msg::Update(Update::Warning {
        warning: 7,
        at: 0,
        message: "mind your language".to_owned(),
    }));
    assert_eq!(commands, vec![Command::AcknowledgeWarning(7)]);
    let screen = render(&app, 100, 30);
    assert!(screen.contains("A moderator warns you: mind your language"), "{screen}");
}

/// At a practice table (bots in every other seat) `h` asks for a hint; it
/// is shown, its action picked, until Ann acts; a second `h` asks nothing.
#[test]
fn a_hint_is_shown_until_the_player_acts() {
    let mut app = app_at_play(Preset::Standard, 3);
    let screen = render(&app, 80, 24);
    assert!(screen.contains("h hint"), "offered at a practice table: {screen}");
    assert_eq!(app.update(key(KeyCode::Char('h'))), vec![Command::Hint(TABLE.into())]);
    assert!(render(&app, 80, 24).contains("Asking the expert bot…"));
    assert!(app.update(key(KeyCode::Char('h'))).is_empty(), "one hint a decision");
    let action = *app.actions().last().expect("Ann's turn");
    let why = "The expert bot would play it.".to_owned();
    let hint = euchre_client::Hint { table: TABLE.into(), action, why };
    app.update(Msg::Done(Outcome::Hint(hint)));
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Hint: "), "{screen}");
    assert!(screen.contains("The expert bot would play it."), "{screen}");
    assert!(app.update(key(KeyCode::Char('h'))).is_empty(), "one hint a decision");
    // Picked: Enter plays the hinted action, and the hint goes.
    assert_eq!(app.update(key(KeyCode::Enter)), vec![Command::Act(TABLE.into(), action)]);
    assert!(!render(&app, 80, 24).contains("Hint: "));
}

/// Where another person sits the help line offers no hint, and the
/// server's refusal is shown as it says it.
#[test]
fn a_refused_hint_says_why() {
    let mut app = app_at_play(Preset::Standard, 3);
    if let Some(table) = app.table.as_mut() {
        let bob = PlayerInfo { id: "p2".to_owned(), name: "Bob".to_owned() };
        table.seats[1] = Some(Occupant::Player { player: bob, connected: true });
    }
    assert!(!render(&app, 80, 24).contains("h hint"));
    let asked = app.update(key(KeyCode::Char('h')));
    assert_eq!(asked, vec![Command::Hint(TABLE.into())]);
    let refusal = euchre_client::Error::Refused {
        code: "hint_not_allowed".into(),
        message: "hints and reviews are for practice games only: every other seat a bot".into(),
    };
    app.update(Msg::Done(Outcome::Failed(asked[0].clone(), refusal)));
    let screen = render(&app, 80, 24);
    assert!(
        screen.contains(
            "No hint: hints and reviews are for practice games only: every other seat a bot"
        ),
        "{screen}"
    );
}

/// A game at a practice table fed to Ann's app from its first deal: the
/// engine plays every seat (Ann's first legal action each time).
struct PracticeFeed {
    game: Game,
    seq: u64,
}

impl PracticeFeed {
    fn start(app: &mut App, seed: u64) -> PracticeFeed {
        let game = Game::new(Preset::Standard.rules(), seed).expect("valid rules");
        app.update(Msg::Update(snapshot(Preset::Standard, &game, Viewer::Seat(Seat(0)))));
        PracticeFeed { game, seq: 1 }
    }

    /// Plays until the hand in play ends; the requests the app made meanwhile.
    fn finish_hand(&mut self, app: &mut App) -> Vec<Command> {
        let mut asked = Vec::new();
        loop {
            let seat = self.game.turn().expect("the game goes on");
            let action = self.game.legal_actions(seat)[0];
            let events = self.game.apply(seat, action).expect("legal");
            let mut ended = false;
            for event in events {
                ended |= matches!(event, euchre_engine::Event::HandEnded { .. });
                self.seq += 1;
                let event = TableEvent::Game(event.for_viewer(Viewer::Seat(Seat(0))));
                let update =
                    Update::Event { table: TABLE.into(), seq: self.seq, event: Some(event) };
                asked.extend(app.update(Msg::Update(update)));
            }
            if ended {
                return asked;
            }
        }
    }
}

fn reviews(commands: &[Command]) -> Vec<&Command> {
    commands.iter().filter(|command| matches!(command, Command::Review { .. })).collect()
}

/// "Review each hand" is off until `v` turns it on at a practice table:
/// off, a hand's end asks nothing; on, it asks for that hand's review,
/// which is shown in the table's words until the next key or 8 seconds.
#[test]
fn a_review_is_asked_for_after_each_hand_only_once_turned_on() {
    let mut app = app();
    let start = std::time::Instant::now();
    app.update(Msg::Tick(start));
    let mut feed = PracticeFeed::start(&mut app, 5);
    assert!(render(&app, 80, 24).contains("v review"), "offered at a practice table");
    let asked = feed.finish_hand(&mut app);
    assert!(reviews(&asked).is_empty(), "off: nothing asked, {asked:?}");

    app.update(key(KeyCode::Char('v')));
    assert!(app.review_each_hand);
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Review each hand: on"), "{screen}");
    assert!(screen.contains("· review on"), "{screen}");
    let asked = feed.finish_hand(&mut app);
    let second = Command::Review { table: TABLE.into(), hand: 1 };
    assert_eq!(reviews(&asked), vec![&second], "the hand just ended, from 0");

    // The server's answer, in the table's words.
    let mistake = euchre_protocol::ReviewedChoice {
        index: 0,
        chosen: Action::Pass,
        better: Action::OrderUp { alone: false },
        points_lost: 0.74,
        mark: Mark::Mistake,
    };
    let review =
        euchre_client::Review { table: TABLE.into(), hand: 1, mistake: Some(mistake.clone()) };
    app.update(Msg::Done(Outcome::Review(review)));
    let screen = render(&app, 80, 24);
    assert!(
        screen.contains(
            "Hand 2 review: you chose Pass; Order up was better (−0.7 points, a mistake)."
        ),
        "{screen}"
    );
    assert!(app.ticking(), "ticks take it down in time");
    // Any key takes it down.
    app.update(key(KeyCode::Right));
    assert!(!render(&app, 80, 24).contains("Hand 2 review"));

    // None cost a quarter of a point: said so, for 8 seconds.
    let review = euchre_client::Review { table: TABLE.into(), hand: 1, mistake: None };
    app.update(Msg::Done(Outcome::Review(review)));
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Hand 2 review: no choice cost you a quarter of a point."), "{screen}");
    app.update(Msg::Tick(start + std::time::Duration::from_secs(7)));
    assert!(render(&app, 80, 24).contains("Hand 2 review"), "still up after 7 s");
    app.update(Msg::Tick(start + std::time::Duration::from_secs(9)));
    assert!(!render(&app, 80, 24).contains("Hand 2 review"), "gone after 8 s");
    assert!(app.review.is_none());

    // A refusal is said as other errors are.
    let refused = euchre_client::Error::Refused {
        code: "bad_request".into(),
        message: "one review a hand: this one was given".into(),
    };
    app.update(Msg::Done(Outcome::Failed(second, refused)));
    let screen = render(&app, 80, 24);
    assert!(screen.contains("No review: one review a hand: this one was given"), "{screen}");

    // Off again: the next hand's end asks nothing, and a late answer is not shown.
    app.update(key(KeyCode::Char('v')));
    assert!(!app.review_each_hand);
    let asked = feed.finish_hand(&mut app);
    assert!(reviews(&asked).is_empty(), "off: nothing asked, {asked:?}");
    let review = euchre_client::Review { table: TABLE.into(), hand: 2, mistake: Some(mistake) };
    app.update(Msg::Done(Outcome::Review(review)));
    assert!(!render(&app, 80, 24).contains("Hand 3 review"));
}

/// Where another person sits, `v` is not offered and turns nothing on.
#[test]
fn no_review_is_offered_where_another_person_sits() {
    let mut app = app_at_play(Preset::Standard, 3);
    if let Some(table) = app.table.as_mut() {
        let bob = PlayerInfo { id: "p2".to_owned(), name: "Bob".to_owned() };
        table.seats[1] = Some(Occupant::Player { player: bob, connected: true });
    }
    assert!(!render(&app, 80, 24).contains("v review"));
    assert!(app.update(key(KeyCode::Char('v'))).is_empty());
    assert!(!app.review_each_hand);
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Reviews are for practice tables"), "{screen}");
}

/// The puzzle trainer without a server: the question drawn as the table
/// draws the seat's view, answered with the table's keys, then the
/// verdict, the reasons scrolled, and both lines of "see it played".
#[test]
fn a_puzzle_is_asked_answered_and_played_out() {
    let mut game = Game::new(Preset::Standard.rules(), 5).expect("valid rules");
    while let Some(seat) = game.turn() {
        if seat == Seat(0) && game.view(Viewer::Seat(seat)).phase == euchre_engine::Phase::Playing {
            break;
        }
        let actions = game.legal_actions(seat);
        let action = actions.iter().find(|a| **a != Action::Pass).unwrap_or(&actions[0]);
        game.apply(seat, *action).expect("legal");
    }
    let options = game.legal_actions(Seat(0)).to_vec();
    let puzzle = PuzzleView {
        id: 7,
        kind: "card".into(),
        seat: Seat(0),
        view: game.view(Viewer::Seat(Seat(0))),
        options: options.clone(),
        rating: 1500,
        plays: 0,
    };
    let mut app = app();
    assert_eq!(app.update(key(KeyCode::Char('z'))), vec![Command::FetchPuzzle(Source::Next)]);
    app.update(Msg::Done(Outcome::Puzzle(Box::new(puzzle), Source::Next)));
    assert_eq!(app.screen, Screen::Puzzle);
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Puzzle #7 · rated 1500"), "{screen}");
    assert!(screen.contains("Ann (you)"), "{screen}");
    assert!(screen.contains("Your hand:"), "{screen}");
    assert!(screen.contains("What do you play?"), "{screen}");
    assert!(screen.contains("Your choice: 1 "), "{screen}");

    // The second option, as at the table: → then Enter.
    app.update(key(KeyCode::Right));
    let chosen = options[1 % options.len()];
    assert_eq!(
        app.update(key(KeyCode::Enter)),
        vec![Command::AnswerPuzzle { id: 7, action: chosen }]
    );
    let best = options[0];
    let line = |first: Action, tricks: u8| {
        serde_json::json!({
            "first": first, "made": {"maker": 1, "trump": "hearts", "alone": false},
            "plays": [[0, "AS"], [1, "KS"], [2, "9S"], [3, "TS"], [0, "QH"]],
            "outcome": null, "tricks": tricks, "points": if tricks >= 3 { 1.0 } else { -2.0 },
        })
    };
    let why = "With every card shown, the best takes 3 tricks for your side. ".repeat(8);
    let verdict = PuzzleVerdict {
        correct: false,
        answers: vec![best],
        why,
        themes: Vec::new(),
        best_line: line(best, 3),
        answer_line: line(chosen, 1),
        values: serde_json::json!([]),
        match_id: "m1".into(),
        hand: 0,
        action: 3,
        rating: Some(PuzzleRatingChange {
            before: 1500,
            after: 1430,
            deviation: 300,
            streak: 0,
            best_streak: 0,
        }),
        puzzle_rating: 1560,
    };
    let verdict = Box::new(verdict);
    app.update(Msg::Done(Outcome::Verdict { id: 7, action: chosen, verdict }));
    let screen = render(&app, 80, 24);
    assert!(screen.contains("✗ Not the best: you chose"), "{screen}");
    assert!(screen.contains("Puzzle rating 1500 → 1430"), "{screen}");
    assert!(screen.contains("Your puzzle rating: 1500 → 1430 (−70)."), "{screen}");
    assert!(screen.contains("With every card"), "{screen}");
    // The reasons scroll; their first words go up out of sight.
    for _ in 0..3 {
        app.update(key(KeyCode::Down));
    }
    let scrolled = render(&app, 80, 24);
    assert_ne!(scrolled, screen, "scrolled");

    app.update(key(KeyCode::Char('s')));
    let best_line = render(&app, 80, 24);
    println!("the best line:\n{best_line}");
    assert!(best_line.contains("See it played: the best"), "{best_line}");
    assert!(best_line.contains("Left makes it: trump ♥ hearts"), "{best_line}");
    assert!(best_line.contains("You A♠"), "{best_line}");
    assert!(best_line.contains("Your side takes 3 tricks: +1 points net."), "{best_line}");
    app.update(key(KeyCode::Char('s')));
    let your_line = render(&app, 80, 24);
    assert!(your_line.contains("See it played: yours"), "{your_line}");
    assert!(your_line.contains("Your side takes 1 tricks: -2 points net."), "{your_line}");
    assert_eq!(app.update(key(KeyCode::Char('n'))), vec![Command::FetchPuzzle(Source::Next)]);
}

/// A tournament's table is no practice table, bots or not: no hint offered.
#[test]
fn no_hint_is_offered_at_a_tournaments_table() {
    let mut app = app_at_play(Preset::Standard, 3);
    if let Some(table) = app.table.as_mut() {
        table.summary.host = "Tournament".to_owned();
    }
    let screen = render(&app, 80, 24);
    assert!(screen.contains("Your turn"), "{screen}");
    assert!(!screen.contains("h hint"), "{screen}");
}

fn seated_by_round() -> Update {
    Update::TournamentSeated {
        tournament: "t-1".to_owned(),
        name: "Friday Night".to_owned(),
        round: 2,
        table: "round-2-table".to_owned(),
        seat: 3,
    }
}

#[test]
fn a_round_seating_the_player_away_from_any_table_opens_hers() {
    let mut app = app();
    let commands = app.update(Msg::Update(seated_by_round()));
    assert_eq!(commands, vec![Command::Watch { table: "round-2-table".to_owned(), invite: None }]);
    let status = app.status.as_ref().map(|status| status.text.as_str());
    assert_eq!(status, Some("Round 2 of Friday Night: your table."));
}

#[test]
fn a_round_seating_the_player_at_a_game_leaves_her_there_and_says_where_to_go() {
    let mut app = app_at_play(Preset::Standard, 7);
    let commands = app.update(Msg::Update(seated_by_round()));
    assert!(commands.is_empty(), "{commands:?}");
    assert_eq!(app.screen, Screen::Table);
    let status = app.status.as_ref().map(|status| status.text.clone()).unwrap_or_default();
    assert!(status.contains("Round 2 of Friday Night seats you at another table"), "{status}");
}
