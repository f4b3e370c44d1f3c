//! Prints a real transcript of one hand, frame by frame, for `docs/protocol.md`:
//! a server on an ephemeral port with a data folder of its own (the shared
//! test server, `euchre_server::testing`), one player and three bots.
//!
//! `cargo run -p euchre-server --example transcript`

use euchre_protocol::{ClientMessage, PROTOCOL_VERSION, ServerMessage, TableEvent, TableNotice};
use euchre_server::testing::TestServer;
use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let server = TestServer::start().await;
    let (mut socket, _) = tokio_tungstenite::connect_async(server.url()).await?;

    let send = async |socket: &mut _, message: ClientMessage| -> anyhow::Result<()> {
        let text = serde_json::to_string(&message)?;
        println!("→ {text}");
        SinkExt::send(socket, Message::Text(text.into())).await?;
        Ok(())
    };
    send(
        &mut socket,
        ClientMessage::Hello {
            id: 1,
            protocol_version: PROTOCOL_VERSION,
            token: None,
            name: Some("Ann".into()),
        },
    )
    .await?;
    let mut next_id = 2;
    let mut table = String::new();
    let mut last_seq = 0;
    while let Some(frame) = socket.next().await {
        let Message::Text(text) = frame? else { continue };
        println!("← {text}");
        let message: ServerMessage = serde_json::from_str(text.as_str())?;
        let reply = match message {
            ServerMessage::Welcome { .. } => Some(ClientMessage::CreateTable {
                id: next_id,
                settings: euchre_protocol::TableSettings {
                    bot_seats: vec![1, 2, 3],
                    ..Default::default()
                },
            }),
            ServerMessage::Ack {
                reply: euchre_protocol::Reply::TableCreated { table: created, .. },
                ..
            } => {
                table = created;
                Some(ClientMessage::Sit {
                    id: next_id,
                    table: table.clone(),
                    seat: Some(0),
                    invite: None,
                })
            }
            ServerMessage::Event { seq, event, .. } => {
                last_seq = seq;
                // The hand's end, then its deal revealed.
                if let Some(TableEvent::Table(TableNotice::DealRevealed { .. })) = event {
                    break;
                }
                None
            }
            ServerMessage::Snapshot { seq, .. } => {
                last_seq = seq;
                None
            }
            ServerMessage::YourTurn { seq, actions, .. } if seq == last_seq => {
                // Make trump when offered, else take the first legal action.
                let action = actions
                    .iter()
                    .find(|a| {
                        !matches!(a, euchre_engine::Action::Pass | euchre_engine::Action::Concede)
                    })
                    .or(actions.first())
                    .copied()
                    .unwrap_or(euchre_engine::Action::Pass);
                Some(ClientMessage::Act { id: next_id, table: table.clone(), action })
            }
            _ => None,
        };
        if let Some(message) = reply {
            next_id += 1;
            send(&mut socket, message).await?;
        }
    }
    server.stop().await;
    Ok(())
}
