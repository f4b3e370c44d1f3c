//! The real server binary as a test runs it: started on a data folder and a
//! database, its JSON log kept, stopped gracefully (SIGTERM) or killed.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

/// How the server is stopped.
#[derive(Clone, Copy, Debug)]
pub enum Stop {
    /// A graceful shutdown, as a deploy or `docker stop` does it.
    Term,
    /// A crash: nothing flushed, nothing told.
    Kill,
}

/// The real server binary, running; killed if the test ends (or fails)
/// without stopping it.
pub struct Server {
    child: Child,
    pub address: SocketAddr,
    /// Its log, a JSON object a line.
    log: Arc<Mutex<Vec<String>>>,
}

impl Server {
    /// Starts the binary on `data_dir` and `database_url` with bots that
    /// do not pause, limits that a test's many players from one address do
    /// not meet, and `env`.
    pub fn start(data_dir: &Path, database_url: &str, env: &[(&str, &str)]) -> Server {
        Server::start_limited(data_dir, database_url, None, env)
    }

    /// [`Server::start`], with the process's open-file limit (`ulimit -n`)
    /// lowered to `open_files` when given.
    pub fn start_limited(
        data_dir: &Path,
        database_url: &str,
        open_files: Option<u32>,
        env: &[(&str, &str)],
    ) -> Server {
        Server::launch(None, data_dir, Some(database_url), open_files, env)
    }

    /// The binary started in the folder `working` on `data_dir` (relative
    /// to `working` if relative), with no database named: its default.
    pub fn start_in(working: &Path, data_dir: &Path, env: &[(&str, &str)]) -> Server {
        Server::launch(Some(working), data_dir, None, None, env)
    }

    fn launch(
        working: Option<&Path>,
        data_dir: &Path,
        database_url: Option<&str>,
        open_files: Option<u32>,
        env: &[(&str, &str)],
    ) -> Server {
        let binary = env!("CARGO_BIN_EXE_euchre-server");
        let mut command = match open_files {
            // The shell lowers its own limit, then becomes the server.
            Some(limit) => {
                let mut shell = Command::new("sh");
                shell.args(["-c", &format!("ulimit -n {limit} && exec \"$0\" \"$@\""), binary]);
                shell
            }
            None => Command::new(binary),
        };
        command
            .args(["--bind", "127.0.0.1:0", "--log-format", "json"])
            .arg("--data-dir")
            .arg(data_dir)
            .env("RUST_LOG", "info")
            .env("EUCHRE_TIMING__BOT_DELAY_MS", "0")
            .env("EUCHRE_ANALYSIS__AT_MATCH_END", "false")
            .env("EUCHRE_LIMITS__MESSAGES_PER_SECOND", "1000")
            .env("EUCHRE_LIMITS__MESSAGE_BURST", "1000")
            .env("EUCHRE_LIMITS__CONNECTIONS_PER_ADDRESS", "1000")
            .env("EUCHRE_LIMITS__GUESTS_PER_MINUTE", "1000")
            .env("EUCHRE_LIMITS__TABLES_PER_PLAYER", "100")
            .env("EUCHRE_QUICK_PLAY__WAVE_MS", "100")
            // A pool table's turn timer never plays for a slow test.
            .env("EUCHRE_QUICK_PLAY__TURN_SECONDS", "600")
            // Accounts are rated from their first game.
            .env("EUCHRE_RATINGS__MIN_ACCOUNT_AGE_SECONDS", "0")
            .env("EUCHRE_RATINGS__MIN_GAMES", "0")
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(url) = database_url {
            command.arg("--database-url").arg(url);
        }
        if let Some(working) = working {
            command.current_dir(working);
        }
        for (name, value) in env {
            command.env(name, value);
        }
        let mut child = command.spawn().expect("the server starts");
        let stdout = child.stdout.take().expect("stdout");
        let mut lines = BufReader::new(stdout).lines();
        let log = Arc::new(Mutex::new(Vec::new()));
        let address = loop {
            let Some(Ok(line)) = lines.next() else {
                panic!("the server stopped before it listened: {:#?}", log.lock().expect("the log"))
            };
            log.lock().expect("the log").push(line.clone());
            let Ok(entry) = serde_json::from_str::<serde_json::Value>(&line) else { continue };
            if let Some(address) = entry["fields"]["address"].as_str() {
                break address.parse().expect("an address");
            }
        };
        // Keep reading the log, so the server never blocks on a full pipe.
        let kept = log.clone();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                kept.lock().expect("the log").push(line);
            }
        });
        Server { child, address, log }
    }

    /// Its WebSocket URL.
    pub fn url(&self) -> String {
        format!("ws://{}/ws", self.address)
    }

    /// Stops it as `how` says and waits for the process to end.
    pub fn stop(mut self, how: Stop) {
        match how {
            Stop::Term => {
                let pid = self.child.id().to_string();
                let sent = Command::new("kill").args(["-TERM", &pid]).status();
                assert!(sent.expect("kill runs").success(), "SIGTERM sent");
            }
            Stop::Kill => self.child.kill().expect("SIGKILL"),
        }
        let status = self.child.wait().expect("the server ends");
        if let Stop::Term = how {
            assert!(status.success(), "a graceful stop exits cleanly: {status}");
        }
    }

    /// The log's entries at `level` whose message contains `text`.
    pub fn logged(&self, level: &str, text: &str) -> Vec<serde_json::Value> {
        self.entries(|entry| {
            entry["level"].as_str() == Some(level)
                && entry["fields"]["message"].as_str().is_some_and(|m| m.contains(text))
        })
    }

    /// Its log's warnings and errors: for a failing test to show.
    pub fn troubles(&self) -> Vec<serde_json::Value> {
        self.entries(|entry| matches!(entry["level"].as_str(), Some("WARN" | "ERROR")))
    }

    /// The log's entries `keep` accepts, in order.
    fn entries(&self, keep: impl Fn(&serde_json::Value) -> bool) -> Vec<serde_json::Value> {
        let log = self.log.lock().expect("the log");
        log.iter()
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .filter(|entry| keep(entry))
            .collect()
    }

    /// A counter or gauge of its `/metrics`.
    pub async fn metric(&self, name: &str) -> u64 {
        super::http::metric(self.address, name).await
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // Already ended after `stop`: the kill then fails, harmlessly.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
