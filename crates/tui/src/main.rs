//! `euchre-tui`: the thin I/O loop. It connects (as the saved identity, if
//! any), then feeds the reducer in `app/` the server's updates, the keys
//! pressed and each request's outcome, makes the requests it returns, and
//! redraws.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Parser;
use euchre_client::{Client, Config, HttpClient};
use euchre_tui::app::{App, Command, Msg, Outcome};
use euchre_tui::history;
use euchre_tui::identity::{self, SavedIdentity};
use euchre_tui::puzzle::Source;
use euchre_tui::ui;
use ratatui::crossterm::event::{self, Event as TermEvent};
use tokio::sync::mpsc;

#[derive(Debug, Parser)]
#[command(version, about = "Play Euchre in the terminal against an euchre-server.")]
struct Args {
    /// The server's WebSocket address: ws:// or wss://.
    #[arg(long, default_value = "ws://127.0.0.1:8080/ws")]
    server: String,
    /// Your name as a new guest (default: the saved one, else $USER).
    #[arg(long)]
    name: Option<String>,
    /// Where the identity is kept (default: $XDG_CONFIG_HOME/euchre).
    #[arg(long)]
    config_dir: Option<PathBuf>,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let config_dir = args
        .config_dir
        .or_else(identity::default_config_dir)
        .context("no config directory: pass --config-dir")?;
    let mut saved = identity::load(&config_dir).unwrap_or_default();
    let name = args
        .name
        .clone()
        .or_else(|| Some(saved.name.clone()).filter(|name| !name.is_empty()))
        .or_else(|| std::env::var("USER").ok().filter(|name| !name.is_empty()))
        .unwrap_or_else(|| "Guest".to_owned());
    // A new name asked for is a new guest; otherwise come back as before.
    let token = if args.name.as_ref().is_some_and(|asked| *asked != saved.name) {
        None
    } else {
        saved.tokens.get(&args.server).cloned()
    };
    let (client, updates) = connect(&args.server, &name, token).await?;
    let identity = client.identity();
    saved = SavedIdentity { name: identity.player.name.clone(), ..saved };
    saved.tokens.insert(args.server.clone(), identity.token.clone());
    identity::save(&config_dir, &saved)
        .with_context(|| format!("cannot save the identity in {}", config_dir.display()))?;

    let mut app = App::new(args.server.clone(), saved.name.clone());
    app.player_id = identity.player.id.clone();
    let mut terminal = ratatui::try_init().context("cannot set up the terminal")?;
    let result = run(&mut terminal, app, client.clone(), updates).await;
    ratatui::restore();
    client.close().await;
    result
}

/// Connects as the saved player; a token the server no longer knows (a
/// server started afresh) falls back to a new guest.
async fn connect(
    server: &str,
    name: &str,
    token: Option<String>,
) -> anyhow::Result<(Client, euchre_client::Updates)> {
    if let Some(token) = token {
        match Client::connect(Config::new(server, name).with_token(token)).await {
            Ok(connected) => return Ok(connected),
            Err(error) if error.to_string().contains("bad_token") => {}
            Err(error) => return Err(error).context("cannot connect"),
        }
    }
    Client::connect(Config::new(server, name)).await.context("cannot connect")
}

async fn run(
    terminal: &mut ratatui::DefaultTerminal,
    mut app: App,
    client: Client,
    mut updates: euchre_client::Updates,
) -> anyhow::Result<()> {
    let (messages, mut inbox) = mpsc::unbounded_channel::<Msg>();
    // The history is the HTTP API's, at the WebSocket's host.
    let api = HttpClient::new(&app.server).context("no HTTP API at the server's address")?;
    // Terminal input blocks, so it has a thread of its own.
    let keys = messages.clone();
    std::thread::spawn(move || {
        loop {
            match event::read() {
                Ok(TermEvent::Key(key)) => {
                    if keys.send(Msg::Key(key)).is_err() {
                        break;
                    }
                }
                // A resize (or anything else) only needs a redraw.
                Ok(_) => {}
                Err(_) => break,
            }
        }
    });
    for command in app.start() {
        spawn(&client, &api, command, &messages);
    }
    let mut updates_open = true;
    // While a turn timer runs, its countdown is redrawn four times a second.
    let mut ticks = tokio::time::interval(Duration::from_millis(250));
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        terminal.draw(|frame| ui::draw(frame, &app)).context("cannot draw")?;
        let msg = tokio::select! {
            update = updates.next(), if updates_open => match update {
                Some(update) => Msg::Update(update),
                None => {
                    updates_open = false;
                    continue;
                }
            },
            Some(msg) = inbox.recv() => msg,
            _ = ticks.tick(), if app.ticking() => Msg::Tick(Instant::now()),
        };
        // The time first: a tick may ask for something (a tournament's
        // page, fetched again every few seconds).
        let ticked = app.update(Msg::Tick(Instant::now()));
        for command in ticked.into_iter().chain(app.update(msg)) {
            spawn(&client, &api, command, &messages);
        }
        if app.quit {
            return Ok(());
        }
    }
}

/// Makes one request in a task of its own; its outcome comes back as a message.
fn spawn(
    client: &Client,
    api: &HttpClient,
    command: Command,
    messages: &mpsc::UnboundedSender<Msg>,
) {
    let client = client.clone();
    let api = api.clone();
    let messages = messages.clone();
    tokio::spawn(async move {
        let outcome = execute(&client, &api, command).await;
        let _ = messages.send(Msg::Done(outcome));
    });
}

async fn execute(client: &Client, api: &HttpClient, command: Command) -> Outcome {
    let result = match &command {
        Command::ListTables(query) => client.list_tables(query.clone()).await.map(Outcome::Listed),
        Command::Create(settings) => {
            client.create_table(settings.clone()).await.map(Outcome::Created)
        }
        Command::Sit { table, seat, invite, .. } => client
            .sit(table, *seat, invite.clone())
            .await
            .map(|seat| Outcome::Seated { table: table.clone(), seat }),
        Command::Watch { table, invite } => {
            client.watch(table, invite.clone()).await.map(|()| Outcome::Watching(table.clone()))
        }
        Command::Leave(table) => client.leave(table).await.map(|()| Outcome::Done(command.clone())),
        Command::Start(table) => client.start(table).await.map(|()| Outcome::Done(command.clone())),
        Command::Rematch(table) => {
            client.rematch(table).await.map(|()| Outcome::Done(command.clone()))
        }
        Command::Act(table, action) => {
            client.act(table, *action).await.map(|()| Outcome::Done(command.clone()))
        }
        Command::Chat(table, text) => {
            client.chat(table, text.clone()).await.map(|()| Outcome::Done(command.clone()))
        }
        Command::Mute { player, on } => {
            client.mute(&player.id, *on).await.map(|()| Outcome::Done(command.clone()))
        }
        Command::Block { player, on } => {
            client.block(&player.id, *on).await.map(|()| Outcome::Done(command.clone()))
        }
        Command::Report { table, player, reason, details } => client
            .report(&player.id, *reason, details.clone(), Some(table.clone()))
            .await
            .map(|()| Outcome::Done(command.clone())),
        // The history is the HTTP API's, not the WebSocket's.
        Command::QuickPlay(request) => {
            client.quick_play(request.clone()).await.map(|team| Outcome::Queued { team })
        }
        Command::CancelQuickPlay => {
            client.cancel_quick_play().await.map(|()| Outcome::Done(command.clone()))
        }
        Command::AcknowledgeWarning(warning) => {
            client.acknowledge_warning(*warning).await.map(|()| Outcome::Done(command.clone()))
        }
        Command::ListMatches | Command::MoreMatches(_) => {
            let player = &client.identity().player.id;
            let cursor = match &command {
                Command::MoreMatches(cursor) => Some(cursor.as_str()),
                _ => None,
            };
            return match history::matches(api, player, cursor, history::PAGE).await {
                Ok(page) if cursor.is_some() => Outcome::MoreMatches(page),
                Ok(page) => Outcome::Matches(page),
                Err(error) => Outcome::HttpFailed(command, error.to_string()),
            };
        }
        Command::FetchAnalysis(id) => {
            return match history::analysis(api, id).await {
                Ok(analysis) => Outcome::Analysis(id.clone(), Box::new(analysis)),
                Err(error) => Outcome::HttpFailed(command.clone(), error.to_string()),
            };
        }
        Command::FetchRecord(id) => {
            return match api.record(id).await {
                Ok(record) => Outcome::Record(id.clone(), record),
                Err(error) => Outcome::HttpFailed(command.clone(), error.to_string()),
            };
        }
        Command::Hint(table) => client.hint(table).await.map(Outcome::Hint),
        Command::Review { table, hand } => client.review(table, *hand).await.map(Outcome::Review),
        Command::FetchPuzzle(_)
        | Command::AnswerPuzzle { .. }
        | Command::ListTournaments
        | Command::FetchTournament(_)
        | Command::Register(_)
        | Command::Withdraw(_) => return http(client, api, command).await,
    };
    result.unwrap_or_else(|error| Outcome::Failed(command, error))
}

/// A request to the HTTP API (puzzles and tournaments), as this player:
/// the bearer token is the one the connection said `hello` with.
async fn http(client: &Client, api: &HttpClient, command: Command) -> Outcome {
    let token = client.identity().token.as_str();
    let result = match &command {
        Command::FetchPuzzle(source) => {
            let puzzle = match source {
                Source::Next => api.next_puzzle(Some(token)).await,
                Source::Daily => api.daily_puzzle().await,
            };
            puzzle.map(|puzzle| Outcome::Puzzle(Box::new(puzzle), *source))
        }
        Command::AnswerPuzzle { id, action } => {
            api.answer_puzzle(*id, *action, Some(token)).await.map(|verdict| Outcome::Verdict {
                id: *id,
                action: *action,
                verdict: Box::new(verdict),
            })
        }
        Command::ListTournaments => api.tournaments().await.map(Outcome::Tournaments),
        Command::FetchTournament(id) => {
            api.tournament(id).await.map(|view| Outcome::Tournament(Box::new(view)))
        }
        Command::Register(id) => {
            api.register(id, token).await.map(|()| Outcome::Entry { id: id.clone(), entered: true })
        }
        Command::Withdraw(id) => api
            .withdraw(id, token)
            .await
            .map(|()| Outcome::Entry { id: id.clone(), entered: false }),
        _ => return Outcome::HttpFailed(command, "not a request to the HTTP API".to_owned()),
    };
    result.unwrap_or_else(|error| Outcome::HttpFailed(command, error.to_string()))
}
