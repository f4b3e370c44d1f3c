//! Opening a WebSocket from a chosen local address.
//!
//! The server limits connections per client address. Real players come from
//! many addresses; one load generator comes from one. On Linux every
//! address in 127.0.0.0/8 is the loopback interface, so against a server on
//! loopback the load generator can spread its clients over many source
//! addresses (and give each abuser its own), and the server's per-address
//! limits apply to each group as they would to separate people.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use anyhow::{Context, bail};
use euchre_client::socket_config;
use tokio::net::{TcpSocket, lookup_host};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::{
    MaybeTlsStream, WebSocketStream, client_async_with_config, connect_async_with_config,
};

pub type Socket = WebSocketStream<MaybeTlsStream<tokio::net::TcpStream>>;

/// How to open a client's TCP connection.
#[derive(Clone, Copy, Debug, Default)]
pub struct Dial {
    /// The local address to connect from; none lets the system choose.
    pub source: Option<IpAddr>,
    /// A small receive buffer (`SO_RCVBUF`, bytes), for a client that
    /// reads slowly: the server's writes back up sooner.
    pub receive_buffer: Option<u32>,
}

/// The `index`th address of the loopback block `127.<block>.0.0/16`,
/// skipping `.0` and `.255` in the last byte.
pub fn loopback(block: u8, index: usize) -> IpAddr {
    let host = index % 254 + 1;
    let subnet = (index / 254) % 256;
    IpAddr::V4(Ipv4Addr::new(127, block, subnet as u8, host as u8))
}

/// Connects to `url` (plain `ws://` when a source or buffer is given), with
/// Nagle off: a small frame must not wait for the ack of the one before.
pub async fn connect(url: &str, dial: Dial) -> anyhow::Result<Socket> {
    if dial.source.is_none() && dial.receive_buffer.is_none() {
        let (socket, _) = connect_async_with_config(url, Some(socket_config()), true).await?;
        return Ok(socket);
    }
    let request = url.into_client_request()?;
    if request.uri().scheme_str() != Some("ws") {
        bail!("a source address or receive buffer needs a plain ws:// URL, not {url}");
    }
    let host = request.uri().host().context("the URL has no host")?;
    let port = request.uri().port_u16().unwrap_or(80);
    let peer: SocketAddr = lookup_host((host.trim_matches(['[', ']']), port))
        .await?
        .next()
        .with_context(|| format!("no address for {host}"))?;
    let socket = if peer.is_ipv4() { TcpSocket::new_v4()? } else { TcpSocket::new_v6()? };
    if let Some(source) = dial.source {
        socket.bind(SocketAddr::new(source, 0)).with_context(|| format!("binding {source}"))?;
    }
    if let Some(bytes) = dial.receive_buffer {
        socket.set_recv_buffer_size(bytes)?;
    }
    let stream = socket.connect(peer).await?;
    stream.set_nodelay(true)?;
    let (socket, _) =
        client_async_with_config(request, MaybeTlsStream::Plain(stream), Some(socket_config()))
            .await?;
    Ok(socket)
}
