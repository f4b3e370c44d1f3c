//! For tests (the `testing` feature): a NATS server of the test's own,
//! `nats-server -js` on a free loopback port with a store folder of its
//! own, killed when dropped, so no test depends on a shared server or on
//! what an earlier run left.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

#[derive(Debug)]
pub struct Nats {
    child: Child,
    pub url: String,
    store: PathBuf,
    config: Option<Config>,
    /// The server's log lines that report a refusal: a permission or an
    /// authorization violation.
    refusals: Arc<Mutex<Vec<String>>>,
    _folder: Option<tempfile::TempDir>,
}

/// A configuration file for the server, the environment its variables
/// read, and the user and password [`Nats::jetstream`] connects with.
#[derive(Clone, Debug, Default)]
pub struct Config {
    pub file: PathBuf,
    pub env: Vec<(String, String)>,
    pub login: Option<(String, String)>,
}

/// The `nats-server` binary, if installed: the one
/// `EUCHRE_TEST_NATS_SERVER` names, or else on the PATH, or where Debian's
/// package puts it (`/usr/sbin`, off the PATH of a user who is not root).
fn binary() -> Option<PathBuf> {
    if let Some(named) = std::env::var_os("EUCHRE_TEST_NATS_SERVER") {
        return Some(PathBuf::from(named)).filter(|p| p.is_file());
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin")])
        .map(|dir| dir.join("nats-server"))
        .find(|p| p.is_file())
}

impl Nats {
    /// A fresh server, or `None` where nats-server is not installed: the
    /// test is skipped, saying so (or fails, where services are required:
    /// see [`euchre_testkit::skip`]).
    #[track_caller]
    pub fn start() -> Option<Nats> {
        if binary().is_none() {
            euchre_testkit::skip("no nats-server installed (apt-get install nats-server)");
            return None;
        }
        Nats::start_configured(None)
    }

    /// [`Nats::start`] with a configuration file (its users, their
    /// permissions, TLS); the address, the port and the store are the
    /// test's own all the same.
    #[track_caller]
    pub fn start_with(config: Config) -> Option<Nats> {
        if binary().is_none() {
            euchre_testkit::skip("no nats-server installed (apt-get install nats-server)");
            return None;
        }
        Nats::start_configured(Some(config))
    }

    fn start_configured(config: Option<Config>) -> Option<Nats> {
        let folder = tempfile::tempdir().expect("a folder");
        let mut nats = Nats::start_in(folder.path(), None, config);
        nats._folder = Some(folder);
        Some(nats)
    }

    /// A server on the store in `store`: a restart keeps what it held. On
    /// `port`, or on one the server picks.
    fn start_in(store: &Path, port: Option<u16>, config: Option<Config>) -> Nats {
        let binary = binary().expect("nats-server");
        // Port -1: the server picks a free one and says which in its log.
        let port = port.map_or("-1".to_owned(), |port| port.to_string());
        let mut command = Command::new(binary);
        if let Some(config) = &config {
            // The flags below win over the file's.
            command.arg("-c").arg(&config.file).envs(config.env.iter().cloned());
        }
        let mut child = command
            .args(["-a", "127.0.0.1", "-p", &port, "-js", "-sd"])
            .arg(store)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("nats-server starts");
        let log = child.stderr.take().expect("its log");
        let (found, address) = mpsc::channel();
        let refusals = Arc::new(Mutex::new(Vec::new()));
        let seen = refusals.clone();
        std::thread::spawn(move || {
            let mut found = Some(found);
            // Read the whole log, so the server never blocks on a full pipe.
            for line in BufReader::new(log).lines().map_while(Result::ok) {
                if let Some(at) = line.find("Listening for client connections on ") {
                    let address = line[at..].rsplit(' ').next().unwrap_or_default().to_owned();
                    if let Some(found) = found.take() {
                        let _ = found.send(address);
                    }
                }
                let lower = line.to_lowercase();
                if lower.contains("violation") || lower.contains("authentication error") {
                    seen.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(line);
                }
            }
        });
        let address = match address.recv_timeout(Duration::from_secs(20)) {
            Ok(address) => address,
            Err(_) => {
                let _ = child.kill();
                panic!("nats-server did not listen in time (its configuration: {config:?})");
            }
        };
        Nats {
            child,
            url: format!("nats://{address}"),
            store: store.to_owned(),
            config,
            refusals,
            _folder: None,
        }
    }

    /// What the server refused so far (its log lines): permission and
    /// authorization violations.
    pub fn refusals(&self) -> Vec<String> {
        self.refusals.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone()
    }

    /// kill -9, then a new server on the same store (on another port).
    pub fn crash_and_restart(&mut self) {
        self.kill();
        let restarted = Nats::start_in(&self.store, None, self.config.clone());
        self.url = restarted.url.clone();
        let old = std::mem::replace(self, restarted);
        // The new one takes over the folder; the killed one is reaped.
        self._folder = old.into_folder();
    }

    /// kill -9, `down` without a server, then a new one on the same store
    /// and the same port: an outage the clients reconnect through.
    pub fn outage(&mut self, down: Duration) {
        let port = self.url.rsplit(':').next().and_then(|port| port.parse().ok());
        self.kill();
        #[expect(
            clippy::disallowed_methods,
            reason = "the outage is this long, and the caller waits it out"
        )]
        std::thread::sleep(down);
        let restarted = Nats::start_in(&self.store, port, self.config.clone());
        let old = std::mem::replace(self, restarted);
        self._folder = old.into_folder();
    }

    fn into_folder(mut self) -> Option<tempfile::TempDir> {
        self._folder.take()
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    pub async fn jetstream(&self) -> async_nats::jetstream::Context {
        match self.config.as_ref().and_then(|config| config.login.clone()) {
            Some((user, password)) => {
                let client = async_nats::ConnectOptions::with_user_and_password(user, password)
                    .connect(&self.url)
                    .await
                    .expect("connects to NATS");
                async_nats::jetstream::new(client)
            }
            None => crate::connect(&self.url).await.expect("connects to NATS"),
        }
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        self.kill();
    }
}

impl Nats {
    /// CPU time the server has used so far (user + system), from /proc.
    pub fn cpu_seconds(&self) -> f64 {
        let stat =
            std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap_or_default();
        // Fields after the command's closing parenthesis; utime and stime are
        // the 14th and 15th of the line, in clock ticks (100 a second on Linux).
        let rest = stat.rsplit(')').next().unwrap_or_default();
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok()).unwrap_or(0.0);
        (ticks(11) + ticks(12)) / 100.0
    }
}
