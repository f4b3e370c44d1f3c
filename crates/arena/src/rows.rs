//! Each game of a match as a row, and the rows as CSV (`--per-deal FILE`),
//! so two runs over the same deals can be compared game by game later.

use anyhow::{Context, bail};

/// One game of a match: enough to compare two runs over the same deals
/// game by game ([`paired`](crate::paired)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameRow {
    /// The deal seed.
    pub seed: u64,
    /// A's side (the seat A held alone, in the games without partners).
    pub a_team: u8,
    pub a_won: bool,
    pub hands: u64,
    pub a_points: u64,
    pub b_points: u64,
}

/// The header of [`write_games`]' table.
const GAMES_HEADER: &str = "seed,a_team,a_won,hands,a_points,b_points";

/// The games as CSV, a header then one line a game.
pub fn write_games(rows: &[GameRow], out: &mut impl std::io::Write) -> std::io::Result<()> {
    writeln!(out, "{GAMES_HEADER}")?;
    for row in rows {
        writeln!(
            out,
            "{},{},{},{},{},{}",
            row.seed,
            row.a_team,
            u8::from(row.a_won),
            row.hands,
            row.a_points,
            row.b_points
        )?;
    }
    Ok(())
}

/// Reads what [`write_games`] wrote.
pub fn read_games(text: &str) -> anyhow::Result<Vec<GameRow>> {
    let mut lines = text.lines();
    if lines.next() != Some(GAMES_HEADER) {
        bail!("not a table of games: the first line is not '{GAMES_HEADER}'");
    }
    lines
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(number, line)| {
            let fields: Vec<&str> = line.split(',').collect();
            let parse = |at: usize| -> anyhow::Result<u64> {
                let field =
                    fields.get(at).with_context(|| format!("line {}: short", number + 2))?;
                field.trim().parse().with_context(|| format!("line {}: '{field}'", number + 2))
            };
            if fields.len() != 6 {
                bail!("line {}: {} fields, not 6", number + 2, fields.len());
            }
            Ok(GameRow {
                seed: parse(0)?,
                a_team: u8::try_from(parse(1)?).context("a_team")?,
                a_won: match parse(2)? {
                    0 => false,
                    1 => true,
                    other => bail!("line {}: a_won is {other}", number + 2),
                },
                hands: parse(3)?,
                a_points: parse(4)?,
                b_points: parse(5)?,
            })
        })
        .collect()
}
