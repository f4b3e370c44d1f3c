//! Learning in the real `euchre-tui` in tmux, against the real server: an
//! account solves a puzzle mined from a recorded match (its rating moves,
//! and "see it played" shows both lines), and a guest asks for a hint at a
//! practice table.

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

/// At a table of three bots the help line offers a hint; `h` shows the
/// expert bot's choice and why until the player acts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hint_at_a_practice_table_in_tmux() {
    if !have_tmux() {
        return;
    }
    let server = TestServer::start().await;
    let config = tempfile::tempdir().expect("a config folder");
    let tmux = Tmux::new("hint");
    let binary = env!("CARGO_BIN_EXE_euchre-tui");
    tmux.start("hint", &command_line(binary, &server.url(), config.path()));
    tmux.wait_for("hint", "Public tables").await;
    // The default new table: the standard game, three bots.
    tmux.keys("hint", "n");
    tmux.wait_for("hint", "bots in the other 3").await;
    tmux.keys("hint", "Enter");
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
