//! The real `euchre-tui` binary in tmux, against the real server started in
//! this test: it creates a table with three bots and plays a whole game from
//! the keyboard, replays it from the history, comes back as the same player,
//! and rides out the server's restart; and it asks for quick play with a
//! partner who joins by the team code it shows. Skipped, saying so, where tmux is
//! not installed; CI installs it (`.ci/run`) and requires it
//! (`EUCHRE_REQUIRE_SERVICES=1`: see `euchre_server::testing::skip`).

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use euchre_client::{Client, Config as ClientConfig, HttpClient, Update};
use euchre_engine::Preset;
use euchre_protocol::QuickPlayRequest;
use euchre_server::Settings;
use euchre_server::testing::{self, ServerTask, eventually, skip};
use tokio::net::TcpListener;

/// A tmux server of our own (its own socket), killed when dropped.
pub(crate) struct Tmux {
    socket: String,
}

impl Tmux {
    /// A server per test (`name`): the tests of this file run at once.
    pub(crate) fn new(name: &str) -> Tmux {
        Tmux { socket: format!("euchre-tui-test-{}-{name}", std::process::id()) }
    }

    pub(crate) fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux").arg("-L").arg(&self.socket).args(args).output().expect("tmux runs")
    }

    /// Starts `command` in a detached 80x24 session.
    pub(crate) fn start(&self, session: &str, command: &str) {
        let output =
            self.run(&["new-session", "-d", "-x", "80", "-y", "24", "-s", session, command]);
        assert!(output.status.success(), "tmux new-session: {output:?}");
    }

    pub(crate) fn keys(&self, session: &str, keys: &str) {
        self.run(&["send-keys", "-t", session, keys]);
    }

    pub(crate) fn screen(&self, session: &str) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", session]).stdout)
            .into_owned()
    }

    /// Waits until the screen shows `text`; panics with the screen if it does not in time.
    pub(crate) async fn wait_for(&self, session: &str, text: &str) -> String {
        eventually(&format!("{text:?}"), Duration::from_secs(15), async || {
            let screen = self.screen(session);
            if screen.contains(text) { Ok(screen) } else { Err(format!("the screen:\n{screen}")) }
        })
        .await
    }

    pub(crate) fn alive(&self, session: &str) -> bool {
        self.run(&["has-session", "-t", session]).status.success()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.run(&["kill-server"]);
    }
}

pub(crate) fn command_line(binary: &str, url: &str, config: &Path) -> String {
    format!("{binary} --server {url} --name Tess --config-dir {}", config.display())
}

/// Whether tmux is here; if not, the test says it is skipped (or fails
/// where services are required).
pub(crate) fn have_tmux() -> bool {
    if Command::new("tmux").arg("-V").output().is_err() {
        skip("no tmux installed (apt-get install tmux)");
        return false;
    }
    true
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_game_from_the_keyboard_in_tmux() {
    if !have_tmux() {
        return;
    }
    let data = tempfile::tempdir().expect("a data folder");
    let config = tempfile::tempdir().expect("a config folder");
    // Bound before the spawn: nothing waits for the server to listen.
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    let url = format!("ws://{address}/ws");
    let server = start_server(listener, data.path());

    let tmux = Tmux::new("game");
    let binary = env!("CARGO_BIN_EXE_euchre-tui");
    tmux.start("play", &command_line(binary, &url, config.path()));
    tmux.wait_for("play", "Public tables").await;

    // A new table: the default form is the standard game with three bots;
    // the table's bot level goes down from easy to naive (four lines down:
    // the three seats, then the level).
    tmux.keys("play", "n");
    tmux.wait_for("play", "bots in the other 3").await;
    for _ in 0..4 {
        tmux.keys("play", "Down");
    }
    tmux.keys("play", "Left");
    tmux.wait_for("play", "Bot level ‹ naive ›").await;
    tmux.keys("play", "Enter");
    tmux.wait_for("play", "Your hand:").await;

    // Enter plays the first legal action, whenever one is offered.
    let mut moves = 0;
    let screen = eventually("the game to end", Duration::from_secs(45), async || {
        let screen = tmux.screen("play");
        if screen.contains("Game over:") {
            return Ok(screen);
        }
        if screen.contains("Your turn:") {
            tmux.keys("play", "Enter");
            moves += 1;
        }
        Err(format!("the screen:\n{screen}"))
    })
    .await;
    println!("the game ended after {moves} key presses:\n{screen}");
    assert!(screen.contains("(to 10)"), "{screen}");
    assert!(screen.contains("r: rematch"), "{screen}");

    // The match is in the history (the HTTP API), and replays.
    tmux.keys("play", "l");
    tmux.wait_for("play", "Public tables").await;
    // The match's last hand may reach the store a moment after "Game
    // over" (on a loaded machine): History again until it reads finished.
    let history =
        eventually("the match finished in the history", Duration::from_secs(15), async || {
            tmux.keys("play", "h");
            let history = tmux.wait_for("play", "Your matches (1)").await;
            if !history.contains(" … ") {
                return Ok(history);
            }
            tmux.keys("play", "q");
            tmux.wait_for("play", "Public tables").await;
            Err(history)
        })
        .await;
    assert!(history.contains("naive bot"), "the bots played at the level chosen: {history}");
    tmux.keys("play", "Enter");
    let replay = tmux.wait_for("play", "Replay · match").await;
    assert!(replay.contains("hand 1 of"), "{replay}");
    tmux.keys("play", "End");
    tmux.wait_for("play", "· score").await;
    // Back: to the history, to the lobby.
    tmux.keys("play", "q");
    tmux.wait_for("play", "Your matches").await;
    tmux.keys("play", "q");
    tmux.wait_for("play", "Public tables").await;

    // The identity is kept, and the next run comes back as the same player.
    let saved = std::fs::read_to_string(config.path().join("identity.toml")).expect("saved");
    assert!(saved.contains("name = \"Tess\""), "{saved}");
    assert!(saved.contains(&url), "{saved}");
    tmux.keys("play", "q");
    eventually("q to quit", Duration::from_secs(5), async || (!tmux.alive("play")).then_some(()))
        .await;
    tmux.start("again", &command_line(binary, &url, config.path()));
    tmux.wait_for("again", "Public tables").await;
    let again = std::fs::read_to_string(config.path().join("identity.toml")).expect("saved");
    assert_eq!(again, saved, "the same token, so the same player");

    // The server goes down: the status line says so; it comes back on the
    // same address and data, and the client with it.
    server.stop().await;
    tmux.wait_for("again", "Disconnected: reconnecting…").await;
    let listener = TcpListener::bind(address).await.expect("the same address again");
    let server = start_server(listener, data.path());
    tmux.wait_for("again", "Reconnected").await;
    tmux.keys("again", "q");

    drop(tmux);
    server.stop().await;
}

/// Quick play from the keyboard, with a partner: Tess invites one and
/// reads the team code off her screen; Pat joins with it through the client
/// library, two strangers ask alone, and Tess ends at the table the pool
/// formed, with Pat opposite her.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quick_play_with_a_partner_in_tmux() {
    if !have_tmux() {
        return;
    }
    let data = tempfile::tempdir().expect("a data folder");
    let config = tempfile::tempdir().expect("a config folder");
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("ws://{}/ws", listener.local_addr().expect("address"));
    let mut settings = Settings::default();
    settings.quick_play.wave_ms = 100;
    testing::keep_data_in(&mut settings, data.path());
    let server = ServerTask::spawn(listener, settings);

    let tmux = Tmux::new("quick");
    tmux.start("quick", &command_line(env!("CARGO_BIN_EXE_euchre-tui"), &url, config.path()));
    tmux.wait_for("quick", "Public tables").await;
    // The form: standard and casual by default (this client plays as a
    // guest, and rated play needs an account); the partner line, to invite.
    tmux.keys("quick", "p");
    tmux.wait_for("quick", "Partner   ‹ alone ›").await;
    tmux.wait_for("quick", "Rated     ‹ no ›").await;
    tmux.keys("quick", "Down");
    tmux.keys("quick", "Down");
    tmux.keys("quick", "Down");
    tmux.keys("quick", "Right");
    tmux.wait_for("quick", "‹ invite a partner ›").await;
    tmux.keys("quick", "Enter");
    let screen = tmux.wait_for("quick", "Give your partner this team code: ").await;
    let code = screen
        .split("team code: ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .expect("the code on screen")
        .to_owned();
    println!("waiting for the partner:\n{screen}");
    assert!(screen.contains("Waiting for your partner: standard, casual"), "{screen}");

    let ask = async |name: &str, team: Option<String>| {
        let (client, mut updates) =
            Client::connect(ClientConfig::new(url.clone(), name)).await.expect("connects");
        let request = QuickPlayRequest { team, ..QuickPlayRequest::new(Preset::Standard, false) };
        client.quick_play(request).await.expect("queued");
        (
            client,
            tokio::spawn(async move {
                while let Some(update) = updates.next().await {
                    if let Update::QuickPlayMatched { table, seat } = update {
                        return (table, seat);
                    }
                }
                panic!("the connection ended before a table");
            }),
        )
    };
    let (pat, pat_seat) = ask("Pat", Some(code)).await;
    let (sam, sam_seat) = ask("Sam", None).await;
    let (val, val_seat) = ask("Val", None).await;
    let [pat_seat, sam_seat, val_seat] = [pat_seat, sam_seat, val_seat].map(|task| async {
        tokio::time::timeout(Duration::from_secs(15), task).await.expect("matched").expect("ran")
    });
    let ((table, pat_seat), (sam_table, sam_seat), (val_table, val_seat)) =
        tokio::join!(pat_seat, sam_seat, val_seat);
    assert_eq!((&sam_table, &val_table), (&table, &table), "one table");
    let screen = tmux.wait_for("quick", "Your hand:").await;
    println!("seated by quick play:\n{screen}");
    assert!(screen.contains("Pat"), "{screen}");
    assert!(!screen.contains("team code"), "{screen}");
    // Tess has the seat left, opposite her partner.
    let tess_seat = (0..4).find(|seat| ![pat_seat, sam_seat, val_seat].contains(seat));
    assert_eq!(tess_seat, Some((pat_seat + 2) % 4), "partners sit opposite");

    tmux.keys("quick", "q");
    for client in [pat, sam, val] {
        client.close().await;
    }
    drop(tmux);
    server.stop().await;
}

/// A new account named `name` at the server at `url` (a guest who
/// claims the name): its session token and player id.
pub(crate) async fn account(url: &str, name: &str) -> (String, String) {
    let (client, _updates) = Client::connect(ClientConfig::new(url, name)).await.expect("connects");
    let guest = client.identity().clone();
    client.close().await;
    let api = HttpClient::new(url).expect("the API's address");
    let token = api.claim(&guest.token, name, "a long enough password").await.expect("claimed");
    (token, guest.player.id)
}

/// The server on `listener` with its data in `data`, so a second one can
/// take over the same address and tables.
fn start_server(listener: TcpListener, data: &Path) -> ServerTask {
    let mut settings = Settings::default();
    settings.timing.bot_delay_ms = 0;
    // Clients told of a shutdown come back quickly.
    settings.timing.reconnect_after_ms = 100;
    testing::keep_data_in(&mut settings, data);
    ServerTask::spawn(listener, settings)
}
