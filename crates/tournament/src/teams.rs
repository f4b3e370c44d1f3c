//! Partnerships for the team formats: registered pairs checked, or
//! individuals paired at the start; and the seeding order.

use std::collections::HashMap;

use crate::error::TournamentError;
use crate::random::{Purpose, permutation, stream};
use crate::round::{Team, TeamId};
use crate::settings::{Player, PlayerId, Seeding, Teams};

/// The teams, in the order their ids number them.
pub(crate) fn form(
    players: &[Player],
    teams: &Teams,
    seed: u64,
) -> Result<Vec<Team>, TournamentError> {
    let index: HashMap<&PlayerId, usize> =
        players.iter().enumerate().map(|(i, player)| (&player.id, i)).collect();
    let pairs: Vec<[usize; 2]> = match teams {
        Teams::Registered(pairs) => {
            let mut placed = vec![false; players.len()];
            let mut indexed = Vec::with_capacity(pairs.len());
            for pair in pairs {
                let mut members = [0; 2];
                for (slot, id) in members.iter_mut().zip(pair) {
                    let &i =
                        index.get(id).ok_or_else(|| TournamentError::UnknownPlayer(id.clone()))?;
                    if placed[i] {
                        return Err(TournamentError::DuplicatePlayer(id.clone()));
                    }
                    placed[i] = true;
                    *slot = i;
                }
                indexed.push(members);
            }
            if let Some(i) = placed.iter().position(|&p| !p) {
                return Err(TournamentError::BadSettings(format!(
                    "{} is in no registered team",
                    players[i].id
                )));
            }
            indexed
        }
        Teams::Random | Teams::ByRating => {
            if !players.len().is_multiple_of(2) {
                return Err(TournamentError::BadSettings(
                    "an odd number of players cannot all be paired into teams".into(),
                ));
            }
            let order = match teams {
                Teams::Random => permutation(players.len(), &mut stream(seed, Purpose::Teams, 0)),
                _ => by_rating(players.len(), |i| players[i].rating),
            };
            let half = order.len() / 2;
            (0..half).map(|k| [order[k], order[order.len() - 1 - k]]).collect()
        }
    };
    Ok(pairs
        .into_iter()
        .enumerate()
        .map(|(k, [a, b])| make_team(k, [&players[a], &players[b]]))
        .collect())
}

pub(crate) fn make_team(index: usize, members: [&Player; 2]) -> Team {
    Team {
        id: TeamId(index as u32),
        players: members.map(|player| player.id.clone()),
        rating: (members[0].rating + members[1].rating) / 2.0,
    }
}

/// `0..n` by rating, highest first, the earlier index first among equals.
pub(crate) fn by_rating(n: usize, rating: impl Fn(usize) -> f64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| rating(b).total_cmp(&rating(a)).then(a.cmp(&b)));
    order
}

/// Each team's seed number (0 is the top seed).
pub(crate) fn seeds(teams: &[Team], seeding: Seeding, seed: u64) -> Vec<usize> {
    let order = match seeding {
        Seeding::Rating => by_rating(teams.len(), |i| teams[i].rating),
        Seeding::Random => permutation(teams.len(), &mut stream(seed, Purpose::Seeding, 0)),
    };
    let mut seed_of = vec![0; teams.len()];
    for (rank, &team) in order.iter().enumerate() {
        seed_of[team] = rank;
    }
    seed_of
}
