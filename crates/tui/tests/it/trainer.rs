//! Learning in the real `euchre-tui` in tmux, against the real server: an
//! account solves a puzzle mined from a recorded match (its rating moves,
//! and "see it played" shows both lines), and a guest asks for a hint at a
//! practice table and reads a finished hand's review there.

use std::time::Duration;

use euchre_server::testing::{TestServer, eventually};
use euchre_tui::identity::{self, SavedIdentity};

use crate::terminal::{Tmux, account, command_line, have_tmux};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/fixtures/egn");

/// Analysing and mining one whole match on two shared cores.
const MINING: Duration = Duration::from_secs(150);

/// Tess, an account, answers the puzzle she is given with her first
/// option: told right or wrong with the best answer, her puzzle rating
/// moves from 1500, and both lines play out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_account_solves_a_puzzle_in_tmux() {
    if !have_tmux() {
        return;
    }
    // The server analyses what is imported (with few worlds) and mines it.
    let server = TestServer::start_with(|settings| {
        settings.analysis.at_match_end = true;
        settings.analysis.worlds = 16;
    })
    .await;
    let url = server.url();
    let (token, _) = account(&url, "Tess").await;
    let text = std::fs::read_to_string(format!("{FIXTURES}/MotE_W5_G1.egn")).expect("a fixture");
    let http = reqwest::Client::builder().no_proxy().build().expect("a client");
    let base = format!("http://{}", server.address);
    let imported = http
        .post(format!("{base}/api/matches/import"))
        .bearer_auth(&token)
        .body(text)
        .send()
        .await
        .expect("the import is answered");
    assert_eq!(imported.status(), 201, "{:?}", imported.text().await);
    eventually("a puzzle to be mined", MINING, async || {
        let daily = http.get(format!("{base}/api/puzzles/daily")).send().await;
        daily.ok().filter(|answer| answer.status() == 200).map(|_| ())
    })
    .await;

    // The terminal client comes back as the account.
    let config = tempfile::tempdir().expect("a config folder");
    let saved = SavedIdentity { name: "Tess".into(), tokens: [(url.clone(), token)].into() };
    identity::save(config.path(), &saved).expect("saved");
    let tmux = Tmux::new("puzzle");
    tmux.start("puzzle", &command_line(env!("CARGO_BIN_EXE_euchre-tui"), &url, config.path()));
    tmux.wait_for("puzzle", "z puzzles").await;
    tmux.keys("puzzle", "z");
    let question = tmux.wait_for("puzzle", "Your choice: ").await;
    println!("the puzzle:\n{question}");
    assert!(question.contains("Puzzle #"), "{question}");
    assert!(question.contains("Tess (you)"), "the seat's view, as the table draws it: {question}");
    assert!(question.contains("Your hand:"), "{question}");
    assert!(question.contains("What do you"), "{question}");

    tmux.keys("puzzle", "Enter");
    let verdict = tmux.wait_for("puzzle", "Best: ").await;
    println!("the verdict:\n{verdict}");
    assert!(verdict.contains("✓ Right!") || verdict.contains("✗ Not the best"), "{verdict}");
    assert!(verdict.contains("Puzzle rating 1500 → "), "an account's answer is rated: {verdict}");
    assert!(verdict.contains("Your puzzle rating: 1500 → "), "{verdict}");
    assert!(verdict.contains(" Why "), "the solver's reasons: {verdict}");

    // See it played: the best line, then the one answered.
    tmux.keys("puzzle", "s");
    let best = tmux.wait_for("puzzle", "See it played: the best").await;
    println!("the best line:\n{best}");
    assert!(best.contains("Your side takes"), "{best}");
    tmux.keys("puzzle", "s");
    let yours = tmux.wait_for("puzzle", "See it played: yours").await;
    assert!(yours.contains("Your side takes"), "{yours}");
    tmux.keys("puzzle", "q");
    tmux.wait_for("puzzle", "Public tables").await;
    tmux.keys("puzzle", "q");

    drop(tmux);
    server.stop().await;
}

/// The client in tmux session `name`, seated at a new table of the
/// default form: the standard game, three bots. The config folder lives as
/// long as the session needs it.
async fn at_a_practice_table(name: &str) -> (TestServer, tempfile::TempDir, Tmux) {
    let server = TestServer::start().await;
    let config = tempfile::tempdir().expect("a config folder");
    let tmux = Tmux::new(name);
    let binary = env!("CARGO_BIN_EXE_euchre-tui");
    tmux.start(name, &command_line(binary, &server.url(), config.path()));
    tmux.wait_for(name, "Public tables").await;
    tmux.keys(name, "n");
    tmux.wait_for(name, "bots in the other 3").await;
    tmux.keys(name, "Enter");
    (server, config, tmux)
}

/// At a table of three bots the help line offers a hint; `h` shows the
/// expert bot's choice and why until the player acts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hint_at_a_practice_table_in_tmux() {
    if !have_tmux() {
        return;
    }
    let (server, _config, tmux) = at_a_practice_table("hint").await;
    let turn = tmux.wait_for("hint", "Your turn").await;
    assert!(turn.contains("h hint"), "offered at a practice table: {turn}");

    tmux.keys("hint", "h");
    let hinted = tmux.wait_for("hint", "Hint: ").await;
    println!("the hint:\n{hinted}");
    assert!(hinted.contains("The expert bot would"), "{hinted}");
    // Acting takes it away: it was for that decision only.
    tmux.keys("hint", "Enter");
    eventually("the hint to go once acted on", Duration::from_secs(15), async || {
        let screen = tmux.screen("hint");
        if screen.contains("Hint: ") { Err(screen) } else { Ok(()) }
    })
    .await;
    tmux.keys("hint", "q");

    drop(tmux);
    server.stop().await;
}

/// "Review each hand" from the keyboard: at a table with three bots the
/// help line offers `v`, which turns it on; when the first hand ends the
/// server's review of it is shown under the choices, in the table's words:
/// the better choice and what the one made cost, or that none cost a
/// quarter of a point. (That nothing is asked while it is off is the
/// reducer's test, in screens.rs.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hand_review_at_a_practice_table_in_tmux() {
    if !have_tmux() {
        return;
    }
    let (server, _config, tmux) = at_a_practice_table("review").await;
    let screen = tmux.wait_for("review", "Your hand:").await;
    assert!(screen.contains("v review"), "offered at a practice table: {screen}");
    assert!(!screen.contains("review on"), "off until turned on: {screen}");
    tmux.keys("review", "v");
    tmux.wait_for("review", "· review on").await;

    // Enter plays the first legal action while the first hand is dealt;
    // then no key is pressed, as any key takes a review down, until the
    // review of it shows.
    let screen = eventually("the first hand's review", Duration::from_secs(60), async || {
        let screen = tmux.screen("review");
        if screen.contains("Hand 1 review: ") {
            return Ok(screen);
        }
        if screen.contains("No review:") {
            panic!("the review was refused:\n{screen}");
        }
        if screen.contains("Hand 1 ·") && screen.contains("Your turn:") {
            tmux.keys("review", "Enter");
        }
        Err(format!("the screen:\n{screen}"))
    })
    .await;
    println!("the first hand reviewed:\n{screen}");
    // The line may wrap: the screen's rows read as one text.
    let text: Vec<&str> = screen
        .lines()
        .map(|row| row.trim_matches(|c: char| c == '│' || c.is_whitespace()))
        .collect();
    let text = text.join(" ");
    let mistake = text.contains("Hand 1 review: you chose ") && text.contains(" was better (−");
    let none = text.contains("Hand 1 review: no choice cost you a quarter of a point.");
    assert!(mistake || none, "the server's review in words: {screen}");

    // Any key takes it down.
    tmux.keys("review", "Right");
    eventually("the review taken down", Duration::from_secs(5), async || {
        let screen = tmux.screen("review");
        if screen.contains("Hand 1 review: ") { Err(screen) } else { Ok(()) }
    })
    .await;

    tmux.keys("review", "q");
    drop(tmux);
    server.stop().await;
}
