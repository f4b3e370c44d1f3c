//! The node's connection to NATS: its credentials and TLS from
//! `cluster.nats`, checked before connecting, and a refusal by NATS told
//! as one (a wrong password is not a network error to retry).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail, ensure};
use async_nats::{ConnectErrorKind, ConnectOptions, Event};

use crate::config::{NatsSettings, Secret};

/// Connects this node (`node` names the connection, as NATS's monitoring
/// shows it) to the NATS server at `url`.
pub async fn connect(
    url: &str,
    settings: &NatsSettings,
    node: &str,
) -> anyhow::Result<async_nats::Client> {
    let options = options(settings).await?.name(format!("euchre {node}")).event_callback(
        |event| async move {
            match event {
                // Refused by NATS (a permission, say): otherwise unseen.
                Event::ServerError(error) => tracing::warn!(%error, "NATS refused something"),
                Event::ClientError(error) => tracing::warn!(%error, "NATS client error"),
                Event::Disconnected => tracing::warn!("disconnected from NATS; reconnecting"),
                Event::Connected => tracing::info!("connected to NATS"),
                other => tracing::debug!(event = %other, "NATS"),
            }
        },
    );
    let shown = without_userinfo(url);
    options.connect(url).await.map_err(|error| match error.kind() {
        ConnectErrorKind::AuthorizationViolation => anyhow::anyhow!(
            "NATS at {shown} refused this node's credentials (cluster.nats): {error}"
        ),
        ConnectErrorKind::Tls => {
            anyhow::anyhow!("TLS with NATS at {shown} failed (cluster.nats.tls_*): {error}")
        }
        _ => anyhow::anyhow!("cannot connect to NATS at {shown}: {error}"),
    })
}

/// The connect options `settings` ask for, or why they cannot be used.
async fn options(settings: &NatsSettings) -> anyhow::Result<ConnectOptions> {
    let password = secret(&settings.password, &settings.password_file, "password")?;
    let seed = secret(&settings.nkey_seed, &settings.nkey_seed_file, "nkey_seed")?;
    let creds = set(&settings.creds_file);
    ensure!(
        settings.user.is_empty() == password.is_none(),
        "cluster.nats: a user needs a password, and a password a user"
    );
    let kinds = [password.is_some(), seed.is_some(), creds.is_some()];
    ensure!(
        kinds.iter().filter(|&&given| given).count() <= 1,
        "cluster.nats: give one kind of credential: user and password, nkey_seed, or creds_file"
    );
    let mut options = ConnectOptions::new();
    if let Some(password) = password {
        options = options.user_and_password(settings.user.clone(), password);
    }
    if let Some(seed) = seed {
        options = options.nkey(seed);
    }
    if let Some(creds) = creds {
        options = options
            .credentials_file(creds)
            .await
            .with_context(|| format!("reading cluster.nats.creds_file {}", creds.display()))?;
    }
    let (cert, key) = (set(&settings.tls_cert_file), set(&settings.tls_key_file));
    ensure!(
        cert.is_some() == key.is_some(),
        "cluster.nats: tls_cert_file and tls_key_file go together"
    );
    if let Some(ca) = set(&settings.tls_ca_file) {
        readable(ca, "tls_ca_file")?;
        options = options.add_root_certificates(ca.to_owned());
    }
    if let (Some(cert), Some(key)) = (cert, key) {
        readable(cert, "tls_cert_file")?;
        readable(key, "tls_key_file")?;
        options = options.add_client_certificate(cert.to_owned(), key.to_owned());
    }
    Ok(options.require_tls(settings.tls_required))
}

/// A secret given inline or in a file (its content less the final line
/// break), not both; `None` if neither.
fn secret(inline: &Secret, file: &Path, name: &str) -> anyhow::Result<Option<String>> {
    match (inline.is_set(), set(file)) {
        (true, Some(_)) => bail!("cluster.nats: {name} and {name}_file both set: give one"),
        (true, None) => Ok(Some(inline.expose().to_owned())),
        (false, Some(path)) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading cluster.nats.{name}_file {}", path.display()))?;
            let text = text.trim_end_matches(['\n', '\r']);
            ensure!(!text.is_empty(), "cluster.nats.{name}_file {} is empty", path.display());
            Ok(Some(text.to_owned()))
        }
        (false, None) => Ok(None),
    }
}

/// The path, unless the setting is empty (unset).
fn set(path: &Path) -> Option<&Path> {
    (!path.as_os_str().is_empty()).then_some(path)
}

fn readable(path: &Path, name: &str) -> anyhow::Result<()> {
    std::fs::metadata(path)
        .map(|_| ())
        .with_context(|| format!("cluster.nats.{name} {}", PathBuf::from(path).display()))
}

/// `url` without any `user:password@`, to show in an error.
fn without_userinfo(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            format!("{}{}", &url[..scheme + 3], &url[at + 1..])
        }
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(settings: NatsSettings) -> String {
        let runtime = tokio::runtime::Builder::new_current_thread().build().expect("a runtime");
        match runtime.block_on(options(&settings)) {
            Ok(_) => panic!("{settings:?} accepted"),
            Err(error) => format!("{error:#}"),
        }
    }

    #[test]
    fn unusable_credentials_are_refused_before_connecting_saying_why() {
        let password = Secret("hunter2".to_owned());
        let user_only = NatsSettings { user: "euchre".into(), ..NatsSettings::default() };
        assert!(refused(user_only).contains("a user needs a password"));
        let two_kinds = NatsSettings {
            user: "euchre".into(),
            password: password.clone(),
            creds_file: "node.creds".into(),
            ..NatsSettings::default()
        };
        assert!(refused(two_kinds).contains("one kind of credential"));
        let both = NatsSettings {
            user: "euchre".into(),
            password: password.clone(),
            password_file: "/run/secrets/nats".into(),
            ..NatsSettings::default()
        };
        assert!(refused(both).contains("password and password_file both set"));
        let seed_and_password = NatsSettings {
            user: "euchre".into(),
            password: password.clone(),
            nkey_seed: Secret("SUA…".to_owned()),
            ..NatsSettings::default()
        };
        let said = refused(seed_and_password);
        assert!(said.contains("one kind of credential") && !said.contains("hunter2"), "{said}");
        let missing =
            NatsSettings { password_file: "/nonexistent/nats".into(), ..NatsSettings::default() };
        assert!(refused(missing).contains("reading cluster.nats.password_file /nonexistent/nats"));
        let half = NatsSettings { tls_cert_file: "node.pem".into(), ..NatsSettings::default() };
        assert!(refused(half).contains("tls_cert_file and tls_key_file go together"));
        let no_ca =
            NatsSettings { tls_ca_file: "/nonexistent/ca.pem".into(), ..NatsSettings::default() };
        assert!(refused(no_ca).contains("cluster.nats.tls_ca_file /nonexistent/ca.pem"));
    }

    #[test]
    fn a_password_file_is_read_without_its_line_break() {
        let folder = tempfile::tempdir().expect("a folder");
        let file = folder.path().join("password");
        std::fs::write(&file, "s3cret\n").expect("written");
        let read = secret(&Secret::default(), &file, "password").expect("read");
        assert_eq!(read.as_deref(), Some("s3cret"));
    }

    #[test]
    fn urls_are_shown_without_their_credentials() {
        assert_eq!(without_userinfo("nats://u:p@nats:4222"), "nats://nats:4222");
        assert_eq!(without_userinfo("tls://nats:4222"), "tls://nats:4222");
    }
}
