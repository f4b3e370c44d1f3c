//! EGN (Euchre Game Notation): reading, verifying and writing game records.
//!
//! [EGN](https://github.com/NextSuit-Labs/euchre-game-notation) is a JSON
//! record of a game: the players, a ruleset, and for each deal the dealer, the
//! up-card, the calls and the tricks card by card, each trick starting with its
//! leader. It stores no trick winners, no scores and usually no hands: a
//! rules engine derives them. [`verify`] does so by replaying every deal
//! through [`Hand`], so each call and card is judged by the very code that
//! runs live games.
//!
//! ```
//! use euchre_engine::{egn, Action, Game, Rules};
//!
//! // Play a game, write it as EGN, read it back and replay it.
//! let mut game = Game::new(Rules::default(), 3).unwrap();
//! while let Some(seat) = game.turn() {
//!     let actions = game.legal_actions(seat);
//!     let action = actions.iter().find(|a| **a != Action::Pass).unwrap_or(&actions[0]);
//!     game.apply(seat, *action).unwrap();
//! }
//! let names = ["North", "East", "South", "West"].map(String::from);
//! let text = egn::write(game.record(), &names).unwrap();
//! let checked = egn::verify(&egn::read(&text).unwrap()).unwrap();
//! assert_eq!(checked.final_score, game.scores());
//! ```
//!
//! # Reading
//!
//! [`read`] is permissive about what it does not need (annotations,
//! `alternativeLines`, dates, the non-schema `player_cards`, `kitty` and
//! `initialLead` some files carry, empty strings for unknown cards) and strict
//! about meaning: the ruleset becomes [`Rules`], and anything the engine cannot
//! play is [`EgnError::Unsupported`] naming it.
//!
//! | EGN ruleset | [`Rules`] |
//! |---|---|
//! | `std` (stick the dealer, default true) | `all_pass`: `StickTheDealer`, or `Redeal` when false |
//! | `min_rank` 9, 8, 7 | `deck` |
//! | `winning_score` (default 10) | `points_to_win` |
//! | `loner_lead` | `loner_lead` |
//! | `loner_march_score`, `loner_euchred_score` | `scoring.lone_march`, `scoring.lone_euchre` |
//! | `farmers` | `farmers_hand` |
//! | `canadian` | `canadian_loner` |
//! | `defend_alone` (a deal's `aloneDefender` says who did) | `defend_alone`; the lone defender's euchre scores `scoring.defender_alone_euchre` (4) |
//! | `allow_no_trump` (the call `n`) | `allow_no_trump` ([`Action::CallNoTrump`]) |
//! | `joker` (the card `B`) | `joker`; a turned-up joker is unsupported (EGN does not record the suit the dealer names for it) |
//! | `num_players` other than 4 | unsupported: EGN's scores are two partnerships' and it has no dummy, so the engine's two- and three-handed games are not EGN |
//! | `partners_best` (`cardExchanges`) | unsupported: EGN does not say where the loner's discard is recorded |
//! | `num_deals`, `winning_score` 0, `go_under`, `fast_break`, `four_trick_tokens` | unsupported unless false or default |
//!
//! Rubbers are a match of games in EGN's sister format (EMN); the writer
//! refuses a rubber record.
//!
//! Everything else takes the engine's defaults, which accept every record
//! the EGN rules accept: the dealer may discard the card he picked up, and he
//! picks it up even when his partner goes alone (he sits out, so no card he
//! holds is ever seen).
//!
//! # Reconstructing the deal
//!
//! Most files do not give the hands, so [`verify`] rebuilds each deal from
//! its play. The bidding is first run through the engine (it does not depend
//! on the cards), which gives trump, the maker, who sits out and who leads;
//! each trick's winner then says who led the next, so every card has a
//! player. A player was dealt the cards he played (and any the file
//! names); the dealer who picked up the up-card was dealt what he played,
//! less the up-card, plus his discard. An unknown discard is the up-card when
//! he never played it, otherwise the first unseen card. Hands still short of
//! five (the sitting-out partner's, or everybody's in an unfinished deal) are
//! filled from the unseen cards in a fixed order, avoiding suits a player has
//! shown out of; the rest is the kitty. The deal is then replayed for real,
//! and every call, the discard and every card must be accepted.
//!
//! The last deal of a file may stop early (EGN allows partial games); any
//! other deal must be played out.
//!
//! # Reading on after a fault
//!
//! [`verify`] stops at the first fault. [`check`] reads the whole record as
//! a referee does and reports every [`Finding`], each with its code, its
//! message and its [`Location`]:
//!
//! - a renege ([`VerifyError::Renege`], the engine's `must_follow_suit`),
//!   with the card and the cards of the suit led the seat held, each with how
//!   it is known: played later in the deal, listed in `playerCards`, or the
//!   up-card the dealer picked up. The renege is then played as it fell, so
//!   the deal goes on, and is scored as played (no penalty is applied);
//! - any other step the engine refuses, or a record that contradicts itself
//!   (a misplaced up-card, a card played twice, a trick short of cards): the
//!   deal cannot be replayed, scores nothing ([`Ending::Damaged`]), and the
//!   check resynchronises at the next deal. The damaged deal's cards after
//!   the fault are still read for reneges the holdings prove, as far as the
//!   bidding gives trump and a leader;
//! - a deal that stops before its hand is over while more follow
//!   (`incomplete_deal`): it scores nothing;
//! - a deal dealt by the wrong seat, deals after the game was won (one
//!   finding each), a deal repeated word for word (left out of the score and
//!   of the rotation), and a `finalScore` the deals do not add up to: the
//!   [`Problem`]s.
//!
//! The scores are those of the deals that could be scored.
//!
//! # Into an engine record
//!
//! [`to_record`] turns a game into the engine's own [`GameRecord`]: the
//! deals as the replay dealt them, every call, discard and card by seat, and
//! each outcome, then checks that [`Game::replay`] ends it where [`verify`]
//! does. What a record cannot say is an error ([`RecordError`]): a game
//! starting mid-way (`initialScore` other than 0 to 0), a deal out of turn,
//! a repeated deal, deals after the game was won.
//!
//! # Writing
//!
//! [`write()`] turns the engine's [`GameRecord`] into EGN with full
//! `playerCards`, the calls, the discard and the tricks.
//!
//! EGN has no notation for a claim or a concession, so the rest of such a
//! hand is written out as legal plays in which the side that got the
//! remaining tricks wins every one of them ([`playout::play_out`]): a
//! claimant leads his winners from the highest down while the others play
//! their lowest legal card. The replay gives the same tricks, outcome and
//! points. The deal's `playAnnotations` say so at the first written-out card
//! (keyed by its index among the deal's cards, as EGN keys them), and the
//! file's `description` says that the record holds such hands. A claim can
//! always be written out (the engine accepts only a certain claim); a
//! concession can be unless it gave away a trick its side wins however the
//! cards are played (a player may concede holding the right bower).
//!
//! What EGN cannot say is an error ([`WriteError`]): such a concession,
//! farmer's hands (EGN has no such action), and scoring other than 1, 2 and 2
//! for a made hand, a march and a euchre. A hand still in progress at the end of the record is
//! left out. Rule options EGN does not name (the dealer discarding the card he
//! picked up, naming the turned-down suit counting as a pass, the first
//! dealer) are dropped: a record legal under them replays legally, with the
//! same scores, under the defaults [`read`] uses.
//!
//! # Positions
//!
//! Errors name positions as 0-based indexes into the file, as EGN numbers
//! deals and annotations: "deal 3, trick 2, card 1" is `deals[3]`, that deal's
//! `tricks[2][1]`; "call 5" is `calls[5]`.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::action::{Action, HandOutcome, NoEvents, PerTeam, Seat, Team};
use crate::card::{Card, CardSet, Suit};
use crate::deal::Deal;
use crate::error::RuleError;
use crate::game::{Game, GameStart};
use crate::hand::{Hand, Phase};
use crate::playout::{self, PlayOutError, PlayedOut};
use crate::record::{GameRecord, HandRecord, SeatAction};
use crate::rules::{AllPass, Deck, LonerLead, Rules, Scoring, TurnedDownSuit};
use crate::trump::{self, Mode};

/// The `fileType` every EGN file carries.
pub const FILE_TYPE: &str = "Euchre Game Notation";
/// The EGN version [`write()`] produces.
pub const VERSION: &str = "1.4";

const PLAYERS: u8 = 4;
const HAND_SIZE: usize = crate::rules::HAND_SIZE as usize;

fn per_team(pair: [u16; 2]) -> PerTeam<u16> {
    let mut values = PerTeam::new(2);
    values[Team(0)] = pair[0];
    values[Team(1)] = pair[1];
    values
}

// ---- The typed record ----------------------------------------------------------

/// An EGN file, read and checked for form (not yet for legality: see [`verify`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EgnGame {
    pub version: String,
    pub title: Option<String>,
    /// Names by seat, clockwise from seat 0.
    pub players: Vec<String>,
    /// Team scores before the first deal: `[team 0, team 1]`.
    pub initial_score: [u16; 2],
    /// The final score the file claims, if it says.
    pub final_score: Option<[u16; 2]>,
    pub rules: Rules,
    pub deals: Vec<EgnDeal>,
}

/// One deal as the file records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EgnDeal {
    /// The file's `dealNumber`.
    pub number: Option<u32>,
    pub dealer: Seat,
    pub up_card: Card,
    /// Cards the file says each seat was dealt: usually none, sometimes a
    /// whole hand (five cards), which then must agree with the play.
    pub dealt: [CardSet; 4],
    /// Face-down kitty cards the file names.
    pub kitty: CardSet,
    /// The calls in order, from the player left of the dealer.
    pub calls: Vec<Call>,
    /// The maker went alone.
    pub alone: bool,
    /// The dealer's discard, if known.
    pub discard: Option<Card>,
    /// Each trick's cards in playing order, starting with its leader.
    pub tricks: Vec<Vec<Card>>,
    /// Who led the first trick, when the file says (a non-schema field).
    pub initial_lead: Option<Seat>,
    /// The defender who played alone against the loner (`aloneDefender`).
    pub alone_defender: Option<Seat>,
}

/// A call in the bidding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    Pass,
    /// Round one: order up the up-card's suit.
    Order,
    /// Round two: name a suit.
    Name(Suit),
    /// Round two: no trump (`n`).
    NoTrump,
}

// ---- Positions and errors ------------------------------------------------------

/// A step within a deal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum Step {
    /// The file's header: metadata, players, ruleset.
    Header,
    /// The deal's initial state: dealer, up-card, dealt cards, kitty.
    Setup,
    Call {
        index: usize,
    },
    Discard,
    Card {
        trick: usize,
        card: usize,
    },
    /// After the deal's last recorded step.
    End,
}

/// Where in a file something happened: a deal (its index in `deals`) and a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Location {
    pub deal: Option<usize>,
    #[serde(flatten)]
    pub step: Step,
}

impl Location {
    const HEADER: Location = Location { deal: None, step: Step::Header };

    fn new(deal: usize, step: Step) -> Location {
        Location { deal: Some(deal), step }
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Header => f.write_str("header"),
            Step::Setup => f.write_str("initial state"),
            Step::Call { index } => write!(f, "call {index}"),
            Step::Discard => f.write_str("discard"),
            Step::Card { trick, card } => write!(f, "trick {trick}, card {card}"),
            Step::End => f.write_str("end"),
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.deal {
            Some(deal) => write!(f, "deal {deal}, {}", self.step),
            None => write!(f, "{}", self.step),
        }
    }
}

/// Why a file cannot be read as EGN.
#[derive(Debug, thiserror::Error)]
pub enum EgnError {
    #[error("not valid JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("not an EGN file: fileType is {0:?}, expected \"Euchre Game Notation\"")]
    NotEgn(Option<String>),
    #[error("{at}: {feature} is not supported by this engine")]
    Unsupported { at: Location, feature: String },
    #[error("{at}: {reason}")]
    Invalid { at: Location, reason: String },
}

impl EgnError {
    /// A stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            EgnError::Json(_) => "not_json",
            EgnError::NotEgn(_) => "not_egn",
            EgnError::Unsupported { .. } => "unsupported",
            EgnError::Invalid { .. } => "invalid_egn",
        }
    }

    pub fn location(&self) -> Option<Location> {
        match self {
            EgnError::Unsupported { at, .. } | EgnError::Invalid { at, .. } => Some(*at),
            _ => None,
        }
    }

    fn invalid(at: Location, reason: impl Into<String>) -> EgnError {
        EgnError::Invalid { at, reason: reason.into() }
    }

    fn unsupported(at: Location, feature: impl Into<String>) -> EgnError {
        EgnError::Unsupported { at, feature: feature.into() }
    }
}

/// Why a record does not replay.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// The engine refused a step.
    #[error("{at}: {} by {seat} is illegal: {error}", describe(*action))]
    Illegal { at: Location, seat: Seat, action: Action, error: RuleError },
    /// The record contradicts itself, so no deal can explain it.
    #[error("{at}: {reason}")]
    Inconsistent { at: Location, reason: String },
    /// The seat the record implies is not the seat the engine expects. The
    /// replay derives both from the same rules, so this means a bug.
    #[error("{at}: the record has {record} play, the engine expects {engine}")]
    TurnMismatch { at: Location, record: Seat, engine: Seat },
    /// A card that does not follow suit from a seat that held the suit led.
    /// `held` are its cards of that suit then; `proof` says how each is known
    /// (played later in the deal, listed in `playerCards`, the up-card).
    #[error("{at}: play {card} by {seat} is a renege: {led} were led and it held {proof}")]
    Renege { at: Location, seat: Seat, card: Card, led: Suit, held: CardSet, proof: String },
    /// A deal stops before its hand is over, yet more deals follow.
    #[error("{at}: the deal stops before the hand is over, yet more deals follow")]
    IncompleteDeal { at: Location },
}

impl VerifyError {
    /// The engine's error code for an illegal step, or a code of our own.
    pub fn code(&self) -> &'static str {
        match self {
            VerifyError::Illegal { error, .. } => error.code(),
            VerifyError::Inconsistent { .. } => "inconsistent_record",
            VerifyError::TurnMismatch { .. } => "turn_mismatch",
            // The engine's code for the same play.
            VerifyError::Renege { .. } => "must_follow_suit",
            VerifyError::IncompleteDeal { .. } => "incomplete_deal",
        }
    }

    pub fn location(&self) -> Location {
        match self {
            VerifyError::Illegal { at, .. }
            | VerifyError::Inconsistent { at, .. }
            | VerifyError::TurnMismatch { at, .. }
            | VerifyError::Renege { at, .. }
            | VerifyError::IncompleteDeal { at } => *at,
        }
    }

    fn inconsistent(at: Location, reason: impl Into<String>) -> VerifyError {
        VerifyError::Inconsistent { at, reason: reason.into() }
    }
}

/// An action in words: "play Qs", "order up alone", "call hearts".
pub fn describe(action: Action) -> String {
    let alone = |alone: bool| if alone { " alone" } else { "" };
    match action {
        Action::Pass => "pass".to_owned(),
        Action::OrderUp { alone: a } => format!("order up{}", alone(a)),
        Action::Call { suit, alone: a } => format!("call {suit}{}", alone(a)),
        Action::Discard { card } => format!("discard {card}"),
        Action::Play { card } => format!("play {card}"),
        other => other.name().replace('_', " "),
    }
}

// ---- The file as JSON ------------------------------------------------------------

// Mirrors of the format, permissive: unknown fields are ignored and most
// fields are optional, so the conversion below can give errors that say where.

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct RawFile {
    file_type: String,
    version: String,
    metadata: RawMetadata,
    deals: Vec<Value>,
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct RawMetadata {
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    players: Vec<RawPlayer>,
    #[serde(default)]
    initial_score: Vec<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    final_score: Option<Vec<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ruleset: Option<RawRuleset>,
}

#[derive(Deserialize, Serialize)]
#[serde(untagged)]
enum RawPlayer {
    Name(String),
    Player { name: String },
}

#[derive(Default, Deserialize, Serialize)]
struct RawRuleset {
    #[serde(skip_serializing_if = "Option::is_none")]
    std: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    min_rank: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    winning_score: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    num_deals: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    canadian: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    loner_lead: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    loner_march_score: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    loner_euchred_score: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    defend_alone: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    farmers: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    partners_best: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    go_under: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    joker: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    num_players: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    allow_no_trump: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fast_break: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    four_trick_tokens: Option<bool>,
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct RawDeal {
    #[serde(skip_serializing_if = "Option::is_none")]
    deal_number: Option<i64>,
    initial_state: RawInitialState,
    #[serde(default)]
    phases: Vec<RawPhase>,
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct RawInitialState {
    dealer: i64,
    up_card: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    player_cards: Option<Vec<Vec<String>>>,
    /// Older files spell it this way.
    #[serde(rename = "player_cards", skip_serializing_if = "Option::is_none")]
    player_cards_snake: Option<Vec<Vec<String>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    kitty: Option<Vec<String>>,
}

#[derive(Deserialize, Serialize)]
#[serde(tag = "type")]
enum RawPhase {
    #[serde(rename = "EUCHRE_BIDDING")]
    Bidding(RawBidding),
    #[serde(rename = "TRICK_PLAY")]
    Play(RawPlay),
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct RawBidding {
    #[serde(skip_serializing_if = "Option::is_none")]
    phase_number: Option<i64>,
    #[serde(default)]
    calls: Vec<String>,
    #[serde(default)]
    is_alone: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    discard: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    alone_defender: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    card_exchanges: Option<Vec<Value>>,
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct RawPlay {
    #[serde(skip_serializing_if = "Option::is_none")]
    phase_number: Option<i64>,
    #[serde(default)]
    tricks: Vec<Vec<String>>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    is_alone: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    initial_lead: Option<i64>,
    /// Comments by card index; read as anything, as files use them freely.
    #[serde(skip_serializing_if = "Option::is_none")]
    play_annotations: Option<Value>,
}

// ---- Reading -----------------------------------------------------------------------

/// Reads an EGN file.
pub fn read(json: &str) -> Result<EgnGame, EgnError> {
    from_value(serde_json::from_str(json)?)
}

/// Reads an EGN file already parsed as JSON.
pub fn from_value(value: Value) -> Result<EgnGame, EgnError> {
    let file_type = value.get("fileType").and_then(Value::as_str);
    if file_type != Some(FILE_TYPE) {
        return Err(EgnError::NotEgn(file_type.map(str::to_owned)));
    }
    let raw: RawFile = serde_json::from_value(value)
        .map_err(|error| EgnError::invalid(Location::HEADER, format!("not EGN: {error}")))?;
    let metadata = raw.metadata;
    let rules = rules_of(metadata.ruleset.unwrap_or_default())?;
    let players: Vec<String> = metadata
        .players
        .into_iter()
        .map(|player| match player {
            RawPlayer::Name(name) | RawPlayer::Player { name } => name,
        })
        .collect();
    if players.len() != usize::from(PLAYERS) {
        let reason = format!("{} players listed; the four-handed game needs 4", players.len());
        return Err(EgnError::invalid(Location::HEADER, reason));
    }
    let initial_score = match metadata.initial_score.as_slice() {
        [] => [0, 0],
        scores => score_of(scores, "initialScore")?,
    };
    let final_score =
        metadata.final_score.as_deref().map(|s| score_of(s, "finalScore")).transpose()?;
    let deals = raw
        .deals
        .into_iter()
        .enumerate()
        .map(|(index, value)| deal_of(&rules, index, value))
        .collect::<Result<_, _>>()?;
    Ok(EgnGame {
        version: raw.version,
        title: metadata.title,
        players,
        initial_score,
        final_score,
        rules,
        deals,
    })
}

fn score_of(scores: &[i64], field: &str) -> Result<[u16; 2], EgnError> {
    let points = |value: i64| u16::try_from(value).ok();
    match scores {
        [a, b] => points(*a).zip(points(*b)).map(|(a, b)| [a, b]),
        _ => None,
    }
    .ok_or_else(|| {
        EgnError::invalid(Location::HEADER, format!("{field} must be two scores, found {scores:?}"))
    })
}

/// Maps the EGN ruleset onto [`Rules`] (see the module docs for the table).
fn rules_of(raw: RawRuleset) -> Result<Rules, EgnError> {
    let at = Location::HEADER;
    let flags = [
        ("partners_best", raw.partners_best),
        ("go_under", raw.go_under),
        ("fast_break", raw.fast_break),
        ("four_trick_tokens", raw.four_trick_tokens),
    ];
    if let Some((name, _)) = flags.iter().find(|(_, value)| *value == Some(true)) {
        return Err(EgnError::unsupported(at, format!("ruleset.{name}")));
    }
    if let Some(players) = raw.num_players.filter(|n| *n != i64::from(PLAYERS)) {
        return Err(EgnError::unsupported(at, format!("ruleset.num_players {players}")));
    }
    if let Some(deals) = raw.num_deals.filter(|n| *n != 0) {
        return Err(EgnError::unsupported(at, format!("ruleset.num_deals {deals}")));
    }
    let small = |field: &str, value: i64| {
        u8::try_from(value)
            .map_err(|_| EgnError::invalid(at, format!("ruleset.{field} {value} is out of range")))
    };
    let deck = match raw.min_rank.unwrap_or(9) {
        9 => Deck::NineToAce,
        8 => Deck::EightToAce,
        7 => Deck::SevenToAce,
        other => return Err(EgnError::invalid(at, format!("ruleset.min_rank {other}: 7, 8 or 9"))),
    };
    let points_to_win = match raw.winning_score {
        Some(0) => return Err(EgnError::unsupported(at, "ruleset.winning_score 0 (no target)")),
        Some(score) => small("winning_score", score)?,
        None => 10,
    };
    let loner_lead = match raw.loner_lead.as_deref() {
        None | Some("LEFT_OF_DEALER") => LonerLead::LeftOfDealer,
        Some("LEFT_OF_LONER") => LonerLead::LeftOfLoner,
        Some(other) => return Err(EgnError::invalid(at, format!("ruleset.loner_lead {other:?}"))),
    };
    let defaults = Scoring::default();
    let scoring = Scoring {
        lone_march: raw
            .loner_march_score
            .map(|v| small("loner_march_score", v))
            .transpose()?
            .unwrap_or(defaults.lone_march),
        lone_euchre: raw
            .loner_euchred_score
            .map(|v| small("loner_euchred_score", v))
            .transpose()?
            .unwrap_or(defaults.lone_euchre),
        ..defaults
    };
    let all_pass = if raw.std.unwrap_or(true) { AllPass::StickTheDealer } else { AllPass::Redeal };
    let rules = Rules {
        deck,
        joker: raw.joker.unwrap_or(false),
        allow_no_trump: raw.allow_no_trump.unwrap_or(false),
        points_to_win,
        all_pass,
        scoring,
        loner_lead,
        farmers_hand: raw.farmers.unwrap_or(false),
        canadian_loner: raw.canadian.unwrap_or(false),
        defend_alone: raw.defend_alone.unwrap_or(false),
        ..Rules::default()
    };
    rules.validate().map_err(|error| EgnError::invalid(at, format!("ruleset: {error}")))?;
    Ok(rules)
}

/// A card as EGN writes it: the joker is `B`.
fn egn_code(card: Card) -> String {
    if card.is_joker() { "B".to_owned() } else { card.to_string() }
}

/// Parses a card code, telling unknown codes from the EGN codes we do not play.
fn card_of(rules: &Rules, code: &str, at: Location) -> Result<Card, EgnError> {
    let parsed = if code == "B" { Ok(Card::JOKER) } else { code.parse::<Card>() };
    if let Ok(card) = parsed {
        return if rules.pack().contains(card) {
            Ok(card)
        } else {
            Err(EgnError::invalid(at, format!("{card} is not in this pack ({:?})", rules.deck)))
        };
    }
    // EGN also writes bowers by role (R, L), unknown ranks or suits (X, x)
    // and generic suits (t, n, g): nothing a replay can check.
    let mut chars = code.chars();
    let special = match (chars.next(), chars.next(), chars.next()) {
        (Some('R' | 'L'), None, None) => true,
        (Some(rank), Some(suit), None) => {
            "78N9TJQKAX".contains(rank) && "SsHhCcDdxtngh".contains(suit)
        }
        _ => false,
    };
    if special {
        Err(EgnError::unsupported(at, format!("card code {code:?} (role or unknown card)")))
    } else {
        Err(EgnError::invalid(at, format!("{code:?} is not a card")))
    }
}

/// Reads a list of cards where empty strings mean "unknown" and are skipped.
fn known_cards(rules: &Rules, codes: &[String], at: Location) -> Result<CardSet, EgnError> {
    let mut set = CardSet::EMPTY;
    for code in codes.iter().filter(|code| !code.is_empty()) {
        let card = card_of(rules, code, at)?;
        if set.contains(card) {
            return Err(EgnError::invalid(at, format!("{card} is listed twice")));
        }
        set.insert(card);
    }
    Ok(set)
}

fn deal_of(rules: &Rules, index: usize, value: Value) -> Result<EgnDeal, EgnError> {
    let setup = Location::new(index, Step::Setup);
    if value.is_string() {
        return Err(EgnError::unsupported(setup, "an encoded (binary) deal"));
    }
    let raw: RawDeal = serde_json::from_value(value)
        .map_err(|error| EgnError::invalid(setup, format!("not a deal: {error}")))?;
    let state = raw.initial_state;
    let dealer =
        u8::try_from(state.dealer).ok().filter(|d| *d < PLAYERS).map(Seat).ok_or_else(|| {
            EgnError::invalid(setup, format!("dealer {} is not a seat", state.dealer))
        })?;
    let up_card = card_of(rules, &state.up_card, setup)?;
    if up_card.is_joker() {
        return Err(EgnError::unsupported(
            setup,
            "a turned-up joker (EGN does not record its suit)",
        ));
    }
    let mut dealt = [CardSet::EMPTY; 4];
    let lists = state.player_cards.or(state.player_cards_snake).unwrap_or_default();
    if lists.len() > usize::from(PLAYERS) {
        return Err(EgnError::invalid(setup, format!("playerCards has {} hands", lists.len())));
    }
    for (seat, list) in lists.iter().enumerate() {
        let cards = known_cards(rules, list, setup)?;
        if cards.len() as usize > HAND_SIZE {
            let reason = format!("playerCards gives seat {seat} {} cards", cards.len());
            return Err(EgnError::invalid(setup, reason));
        }
        dealt[seat] = cards;
    }
    let kitty = known_cards(rules, &state.kitty.unwrap_or_default(), setup)?;

    let mut bidding = None;
    let mut play = None;
    for phase in raw.phases {
        let twice = match phase {
            RawPhase::Bidding(phase) => bidding.replace(phase).is_some(),
            RawPhase::Play(phase) => play.replace(phase).is_some(),
        };
        if twice {
            return Err(EgnError::invalid(setup, "two phases of the same type"));
        }
    }
    let mut deal = EgnDeal {
        number: raw.deal_number.and_then(|n| u32::try_from(n).ok()),
        dealer,
        up_card,
        dealt,
        kitty,
        calls: Vec::new(),
        alone: false,
        discard: None,
        tricks: Vec::new(),
        initial_lead: None,
        alone_defender: None,
    };
    if let Some(phase) = bidding {
        for (call, code) in phase.calls.iter().enumerate() {
            let at = Location::new(index, Step::Call { index: call });
            deal.calls.push(match code.as_str() {
                "Pass" => Call::Pass,
                "Order" => Call::Order,
                "n" => Call::NoTrump,
                "x" => return Err(EgnError::unsupported(at, "the call \"x\"")),
                letter => letter
                    .parse::<char>()
                    .ok()
                    .filter(char::is_ascii_lowercase)
                    .and_then(Suit::from_letter)
                    .map(Call::Name)
                    .ok_or_else(|| EgnError::invalid(at, format!("{letter:?} is not a call")))?,
            });
        }
        deal.alone = phase.is_alone;
        if let Some(seat) = phase.alone_defender.filter(|seat| *seat >= 0) {
            let seat = u8::try_from(seat).ok().filter(|s| *s < PLAYERS).ok_or_else(|| {
                EgnError::invalid(setup, format!("aloneDefender {seat} is not a seat"))
            })?;
            deal.alone_defender = Some(Seat(seat));
        }
        if phase.card_exchanges.is_some_and(|list| !list.is_empty()) {
            return Err(EgnError::unsupported(setup, "cardExchanges"));
        }
        let at = Location::new(index, Step::Discard);
        deal.discard = phase.discard.as_deref().map(|code| card_of(rules, code, at)).transpose()?;
    }
    if let Some(phase) = play {
        deal.alone |= phase.is_alone;
        for (trick, codes) in phase.tricks.iter().enumerate() {
            let cards = codes
                .iter()
                .enumerate()
                .map(|(card, code)| {
                    card_of(rules, code, Location::new(index, Step::Card { trick, card }))
                })
                .collect::<Result<_, _>>()?;
            deal.tricks.push(cards);
        }
        if let Some(lead) = phase.initial_lead {
            let seat = u8::try_from(lead).ok().filter(|s| *s < PLAYERS).ok_or_else(|| {
                EgnError::invalid(setup, format!("initialLead {lead} is not a seat"))
            })?;
            deal.initial_lead = Some(Seat(seat));
        }
    }
    Ok(deal)
}

// ---- Verifying ---------------------------------------------------------------------

/// How a deal ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    Played,
    /// Everybody passed twice (without stick the dealer).
    ThrownIn,
    /// The record stops before the end of the hand.
    Unfinished,
    /// The record is faulty before the hand could be scored (see the
    /// findings): the deal scores nothing.
    Damaged,
    /// The deal repeats an earlier one word for word: it is left out.
    Repeated,
}

/// One deal, replayed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DealResult {
    /// Index in the file's `deals`.
    pub deal: usize,
    pub dealer: Seat,
    pub ending: Ending,
    pub maker: Option<Seat>,
    pub trump: Option<Suit>,
    pub alone: bool,
    /// Tricks won by each team.
    pub tricks: [u8; 2],
    /// Points each team scored on this deal.
    pub points: [u8; 2],
    /// The running score after this deal.
    pub score: [u16; 2],
    /// The deal as replayed: given or reconstructed hands, and the kitty
    /// (`None` for a deal that could not be replayed).
    #[serde(skip)]
    pub cards: Option<Deal>,
}

/// Something wrong with a record whose every step was legal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "problem", rename_all = "snake_case")]
pub enum Problem {
    /// Deals were recorded after a team had already won.
    PlayedAfterGameOver { deal: usize },
    /// The file's `finalScore` is not the score the deals add up to.
    FinalScoreDiffers { recorded: [u16; 2], derived: [u16; 2] },
    /// The deal did not pass to the left.
    DealerOutOfTurn { deal: usize, expected: Seat, recorded: Seat },
    /// The deal is word for word an earlier one (`of`): it is left out of
    /// the score and of the dealers' rotation.
    RepeatedDeal { deal: usize, of: usize },
}

impl Problem {
    /// A stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            Problem::PlayedAfterGameOver { .. } => "played_after_game_over",
            Problem::FinalScoreDiffers { .. } => "final_score_differs",
            Problem::DealerOutOfTurn { .. } => "dealer_out_of_turn",
            Problem::RepeatedDeal { .. } => "repeated_deal",
        }
    }

    /// The deal it concerns, or the header.
    pub fn location(&self) -> Option<Location> {
        match self {
            Problem::PlayedAfterGameOver { deal }
            | Problem::DealerOutOfTurn { deal, .. }
            | Problem::RepeatedDeal { deal, .. } => Some(Location::new(*deal, Step::Setup)),
            Problem::FinalScoreDiffers { .. } => Some(Location::HEADER),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::PlayedAfterGameOver { deal } => {
                write!(f, "deal {deal} was played after the game was won")
            }
            Problem::FinalScoreDiffers { recorded, derived } => {
                write!(f, "finalScore is {recorded:?}, but the deals add up to {derived:?}")
            }
            Problem::DealerOutOfTurn { deal, expected, recorded } => {
                write!(f, "deal {deal} is dealt by {recorded}, expected {expected}")
            }
            Problem::RepeatedDeal { deal, of } => {
                write!(
                    f,
                    "deal {deal} repeats deal {of} word for word; it is left out of the score"
                )
            }
        }
    }
}

/// A whole record, replayed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Verification {
    pub players: Vec<String>,
    pub initial_score: [u16; 2],
    pub deals: Vec<DealResult>,
    pub final_score: PerTeam<u16>,
    /// The team that reached the winning score, if one did.
    pub winner: Option<Team>,
    /// The deal on which the game was won.
    pub won_at_deal: Option<usize>,
    /// Findings that are not illegal steps.
    pub problems: Vec<Problem>,
}

/// Something wrong with a record: a step the engine refuses, a record that
/// contradicts itself, or a [`Problem`] with a record whose steps are legal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    Fault(VerifyError),
    Problem(Problem),
}

impl Finding {
    /// A stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            Finding::Fault(error) => error.code(),
            Finding::Problem(problem) => problem.code(),
        }
    }

    /// Where in the file; `None` for none in particular.
    pub fn location(&self) -> Option<Location> {
        match self {
            Finding::Fault(error) => Some(error.location()),
            Finding::Problem(problem) => problem.location(),
        }
    }

    /// Whether it is a fault (an illegal or impossible step) rather than a problem.
    pub fn is_fault(&self) -> bool {
        matches!(self, Finding::Fault(_))
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::Fault(error) => error.fmt(f),
            Finding::Problem(problem) => problem.fmt(f),
        }
    }
}

impl Serialize for Finding {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut out = serializer.serialize_struct("Finding", 3)?;
        out.serialize_field("code", self.code())?;
        out.serialize_field("message", &self.to_string())?;
        out.serialize_field("location", &self.location())?;
        out.end()
    }
}

/// A whole record read as a referee reads it: every finding, and the
/// scores of the deals that could be scored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// The replay: damaged and repeated deals score nothing, a deal with a
    /// renege is scored as it was played (no renege penalty is applied).
    /// Its `problems` are the [`Finding::Problem`]s.
    pub verification: Verification,
    /// Every finding, in the file's order (a wrong `finalScore` last).
    pub findings: Vec<Finding>,
}

impl Checked {
    /// The first fault, if any: what [`verify`] returns as its error.
    pub fn first_fault(&self) -> Option<&VerifyError> {
        self.findings.iter().find_map(|finding| match finding {
            Finding::Fault(error) => Some(error),
            Finding::Problem(_) => None,
        })
    }
}

/// Replays every deal of `game`: the first illegal or impossible step is an
/// error; otherwise the result of each deal and of the game. [`check`] reads
/// on past the first fault.
pub fn verify(game: &EgnGame) -> Result<Verification, VerifyError> {
    let checked = check(game);
    match checked.first_fault() {
        Some(error) => Err(error.clone()),
        None => Ok(checked.verification),
    }
}

/// Replays every deal of `game` and reports every finding, not only the
/// first. After a fault the check resynchronises at the next deal; the rest
/// of a damaged deal is still read for reneges its holdings prove (see the
/// module docs, "Reading on after a fault").
pub fn check(game: &EgnGame) -> Checked {
    let (checked, _) = replay_game(game);
    checked
}

/// [`check`], also returning each deal as the engine replayed it (only
/// those that replayed: all of them when there is no fault).
fn replay_game(game: &EgnGame) -> (Checked, Vec<HandRecord>) {
    let target = u16::from(game.rules.points_to_win);
    let reached = |score: [u16; 2]| score.iter().any(|points| *points >= target);
    let mut score = game.initial_score;
    let mut over = reached(score);
    let mut won_at_deal = None;
    let mut findings = Vec::new();
    let mut deals: Vec<DealResult> = Vec::with_capacity(game.deals.len());
    let mut replayed = Vec::with_capacity(game.deals.len());
    let mut previous_dealer: Option<Seat> = None;
    for (index, deal) in game.deals.iter().enumerate() {
        let unscored = |ending| DealResult {
            deal: index,
            dealer: deal.dealer,
            ending,
            maker: None,
            trump: None,
            alone: false,
            tricks: [0, 0],
            points: [0, 0],
            score,
            cards: None,
        };
        let same = |earlier: &EgnDeal| EgnDeal { number: deal.number, ..earlier.clone() } == *deal;
        if let Some(of) = game.deals[..index].iter().position(same) {
            findings.push(Finding::Problem(Problem::RepeatedDeal { deal: index, of }));
            deals.push(unscored(Ending::Repeated));
            continue;
        }
        if over {
            findings.push(Finding::Problem(Problem::PlayedAfterGameOver { deal: index }));
        }
        if let Some(expected) = previous_dealer.map(|dealer| dealer.next(PLAYERS))
            && deal.dealer != expected
        {
            let recorded = deal.dealer;
            findings.push(Finding::Problem(Problem::DealerOutOfTurn {
                deal: index,
                expected,
                recorded,
            }));
        }
        previous_dealer = Some(deal.dealer);
        let mut faults = Vec::new();
        let played = replay_deal(&game.rules, index, deal, &mut faults);
        findings.extend(faults.into_iter().map(Finding::Fault));
        let Some((hand, cards, actions)) = played else {
            deals.push(unscored(Ending::Damaged));
            continue;
        };
        let outcome = hand.outcome();
        replayed.push(HandRecord { deal: cards, actions, outcome, seal: None });
        let mut ending = match outcome {
            Some(HandOutcome::Played(_)) => Ending::Played,
            Some(HandOutcome::ThrownIn(_)) => Ending::ThrownIn,
            None => Ending::Unfinished,
        };
        if ending == Ending::Unfinished && index + 1 < game.deals.len() {
            let at = Location::new(index, Step::End);
            findings.push(Finding::Fault(VerifyError::IncompleteDeal { at }));
            ending = Ending::Damaged;
        }
        let points = outcome.and_then(|o| o.points()).map(|points| points.pair()).unwrap_or([0, 0]);
        for (total, points) in score.iter_mut().zip(points) {
            *total = total.saturating_add(u16::from(points));
        }
        if !over && reached(score) {
            over = true;
            won_at_deal = Some(index);
        }
        deals.push(DealResult {
            deal: index,
            dealer: deal.dealer,
            ending,
            maker: hand.maker(),
            trump: hand.trump(),
            alone: hand.alone(),
            tricks: hand.tricks_won().pair(),
            points,
            score,
            cards: Some(cards),
        });
    }
    if let Some(recorded) = game.final_score.filter(|recorded| *recorded != score) {
        findings.push(Finding::Problem(Problem::FinalScoreDiffers { recorded, derived: score }));
    }
    let winner = if reached(score) {
        Some(if score[0] >= score[1] { Team(0) } else { Team(1) })
    } else {
        None
    };
    let problems = findings
        .iter()
        .filter_map(|finding| match finding {
            Finding::Problem(problem) => Some(problem.clone()),
            Finding::Fault(_) => None,
        })
        .collect();
    let verification = Verification {
        players: game.players.clone(),
        initial_score: game.initial_score,
        deals,
        final_score: per_team(score),
        winner,
        won_at_deal,
        problems,
    };
    (Checked { verification, findings }, replayed)
}

/// Applies one step, naming it in the error.
fn step(hand: &mut Hand, at: Location, seat: Seat, action: Action) -> Result<(), VerifyError> {
    hand.apply_with(seat, action, &mut NoEvents).map_err(|error| VerifyError::Illegal {
        at,
        seat,
        action,
        error,
    })
}

/// Applies the calls, each by the seat whose turn it is in the file's order
/// (from the dealer's left); the alone flag goes on the maker's call. Returns
/// the calls as applied.
fn bid(hand: &mut Hand, index: usize, deal: &EgnDeal) -> Result<Vec<SeatAction>, VerifyError> {
    let maker_call = deal.calls.iter().position(|call| *call != Call::Pass);
    let mut seat = deal.dealer.next(PLAYERS);
    let mut applied = Vec::with_capacity(deal.calls.len());
    for (call, kind) in deal.calls.iter().enumerate() {
        let alone = deal.alone && Some(call) == maker_call;
        let action = match kind {
            Call::Pass => Action::Pass,
            Call::Order => Action::OrderUp { alone },
            Call::Name(suit) => Action::Call { suit: *suit, alone },
            Call::NoTrump => Action::CallNoTrump { alone },
        };
        step(hand, Location::new(index, Step::Call { index: call }), seat, action)?;
        applied.push(SeatAction { seat, action });
        seat = seat.next(PLAYERS);
    }
    if deal.alone && maker_call.is_none() {
        let at = Location::new(index, Step::Setup);
        return Err(VerifyError::inconsistent(at, "isAlone is set, but nobody made trump"));
    }
    Ok(applied)
}

/// Once trump is made alone (and the dealer has discarded), the defenders'
/// answers where the rules let one defend alone: each defender from the
/// loner's left passes until the recorded `aloneDefender`, if any, accepts.
fn answer_loner(
    hand: &mut Hand,
    index: usize,
    deal: &EgnDeal,
    applied: &mut Vec<SeatAction>,
) -> Result<(), VerifyError> {
    let at = Location::new(index, Step::Setup);
    if hand.phase() != Phase::DefendingAlone {
        return match deal.alone_defender {
            Some(_) => Err(VerifyError::inconsistent(
                at,
                "aloneDefender is set, but nobody could defend alone",
            )),
            None => Ok(()),
        };
    }
    while hand.phase() == Phase::DefendingAlone {
        let Some(seat) = hand.turn() else { break };
        let action =
            if deal.alone_defender == Some(seat) { Action::DefendAlone } else { Action::Pass };
        step(hand, at, seat, action)?;
        applied.push(SeatAction { seat, action });
    }
    if let Some(defender) = deal.alone_defender.filter(|d| hand.lone_defender() != Some(*d)) {
        let reason = format!("aloneDefender {defender} is not a defender against the loner");
        return Err(VerifyError::inconsistent(at, reason));
    }
    Ok(())
}

/// The seat after `seat` that takes part in play.
fn next_in_play(seat: Seat, out: [bool; 4]) -> Seat {
    let mut next = seat.next(PLAYERS);
    while out[next.index()] {
        next = next.next(PLAYERS);
    }
    next
}

/// What the play of a deal says about the hands.
struct Attribution {
    /// The seat that played each card, trick by trick.
    seats: Vec<Vec<Seat>>,
    played: [CardSet; 4],
    /// `void[seat][suit]`: the seat failed to follow `suit`, so held none.
    void: [[bool; 4]; 4],
}

/// Gives every card its player: each trick is led by the last one's winner.
/// On a contradiction, also the attribution of the tricks before it.
fn attribute(
    index: usize,
    deal: &EgnDeal,
    first_leader: Seat,
    mode: Mode,
    out: [bool; 4],
) -> (Attribution, Option<VerifyError>) {
    let in_play = usize::from(PLAYERS) - out.iter().filter(|o| **o).count();
    let mut found =
        Attribution { seats: Vec::new(), played: [CardSet::EMPTY; 4], void: [[false; 4]; 4] };
    let mut seen = CardSet::EMPTY;
    let mut leader = first_leader;
    let count = deal.tricks.len();
    for (trick, cards) in deal.tricks.iter().enumerate() {
        let at = |card| Location::new(index, Step::Card { trick, card });
        if trick >= HAND_SIZE {
            return (found, Some(VerifyError::inconsistent(at(0), "a hand has only five tricks")));
        }
        if cards.len() > in_play || (cards.len() < in_play && trick + 1 < count) {
            let reason =
                format!("{} cards in a trick, with {in_play} players in play", cards.len());
            let error = VerifyError::inconsistent(at(cards.len().min(in_play)), reason);
            return (found, Some(error));
        }
        let Some(first) = cards.first() else { continue };
        let led = trump::effective_suit_in(*first, mode);
        let mut seat = leader;
        let mut seats = Vec::with_capacity(cards.len());
        for (position, card) in cards.iter().enumerate() {
            if seen.contains(*card) {
                let error =
                    VerifyError::inconsistent(at(position), format!("{card} was already played"));
                return (found, Some(error));
            }
            seen.insert(*card);
            found.played[seat.index()].insert(*card);
            if trump::effective_suit_in(*card, mode) != led {
                found.void[seat.index()][led.index()] = true;
            }
            seats.push(seat);
            seat = next_in_play(seat, out);
        }
        if cards.len() == in_play {
            leader = seats[trump::trick_winner_in(cards, mode)];
        }
        found.seats.push(seats);
    }
    (found, None)
}

/// A deal with the right dealer and up-card and arbitrary hands: enough to
/// run the bidding, which does not depend on the cards.
fn provisional_deal(rules: &Rules, index: usize, deal: &EgnDeal) -> Result<Deal, VerifyError> {
    let mut rest = rules.pack();
    rest.remove(deal.up_card);
    let mut cards = rest.iter();
    let mut hands = [CardSet::EMPTY; 4];
    for hand in &mut hands {
        *hand = cards.by_ref().take(HAND_SIZE).collect();
    }
    Deal::from_hands(rules, deal.dealer, hands, deal.up_card).map_err(|error| {
        VerifyError::inconsistent(Location::new(index, Step::Setup), error.to_string())
    })
}

/// Replays one deal, reporting its faults in `faults`: the hand as it ended,
/// the cards as dealt and every step, or `None` when a fault stopped the
/// replay. The rest of such a deal is still read for reneges (see
/// [`scan_reneges`]); a renege the engine refuses is reported and played
/// anyway, so the deal goes on and is scored.
fn replay_deal(
    rules: &Rules,
    index: usize,
    deal: &EgnDeal,
    faults: &mut Vec<VerifyError>,
) -> Option<(Hand, Deal, Vec<SeatAction>)> {
    match replay_deal_strictly(rules, index, deal, faults) {
        Ok(replayed) => Some(replayed),
        Err(error) => {
            let at = error.location();
            faults.push(error);
            scan_reneges(rules, index, deal, at.step, faults);
            None
        }
    }
}

/// The bidding (with the discard and the defenders' answers to a loner) on
/// any cards: it does not depend on them, and gives trump, the maker, who
/// sits out and who leads.
fn bidding_trial(rules: &Rules, index: usize, deal: &EgnDeal) -> Result<Hand, VerifyError> {
    let mut trial = Hand::new(*rules, provisional_deal(rules, index, deal)?);
    bid(&mut trial, index, deal)?;
    if trial.phase() == Phase::DealerDiscard
        && let Some(discard) = trial.legal_actions(deal.dealer).as_slice().first()
    {
        step(&mut trial, Location::new(index, Step::Discard), deal.dealer, *discard)?;
    }
    answer_loner(&mut trial, index, deal, &mut Vec::new())?;
    Ok(trial)
}

/// Rebuilds one deal from its record and replays it through the engine.
/// Returns the hand as it ended, the cards as dealt, and every step taken;
/// reneges go to `faults` and are played on, any other fault is the error.
fn replay_deal_strictly(
    rules: &Rules,
    index: usize,
    deal: &EgnDeal,
    faults: &mut Vec<VerifyError>,
) -> Result<(Hand, Deal, Vec<SeatAction>), VerifyError> {
    let setup = Location::new(index, Step::Setup);
    let dealer = deal.dealer;
    let up = deal.up_card;

    // The bidding, on any cards: trump, maker, who sits out, who leads.
    let mut trial = bidding_trial(rules, index, deal)?;
    let picked_up = trial.up_card_picked_up();
    if deal.discard.is_some() && !picked_up {
        let at = Location::new(index, Step::Discard);
        return Err(VerifyError::inconsistent(
            at,
            "a discard is recorded, but the dealer never picked up the up-card",
        ));
    }
    let mode = trial.maker().map(|_| Mode::of(trial.trump()));
    let attribution = match (trial.phase(), mode, trial.turn()) {
        (Phase::Playing, Some(mode), Some(leader)) => {
            if let Some(lead) = deal.initial_lead.filter(|lead| *lead != leader) {
                let at = Location::new(index, Step::Card { trick: 0, card: 0 });
                let reason = format!("initialLead is {lead}, but {leader} leads under these rules");
                return Err(VerifyError::inconsistent(at, reason));
            }
            let out = [0, 1, 2, 3].map(|seat| trial.sits_out(Seat(seat)));
            match attribute(index, deal, leader, mode, out) {
                (attribution, None) => attribution,
                (_, Some(error)) => return Err(error),
            }
        }
        _ => {
            // No play began: any recorded card is the engine's to refuse.
            if let Some(card) = deal.tricks.iter().flatten().next() {
                let seat = trial.turn().unwrap_or(dealer.next(PLAYERS));
                let at = Location::new(index, Step::Card { trick: 0, card: 0 });
                step(&mut trial, at, seat, Action::Play { card: *card })?;
                return Err(VerifyError::inconsistent(
                    at,
                    "cards are played before the bidding ends",
                ));
            }
            Attribution { seats: Vec::new(), played: [CardSet::EMPTY; 4], void: [[false; 4]; 4] }
        }
    };

    // Each seat was dealt what it played and what the file says it held.
    let mut hands = [CardSet::EMPTY; 4];
    for seat in Seat::all(PLAYERS) {
        let mut mine = attribution.played[seat.index()];
        if picked_up && seat == dealer {
            mine.remove(up);
        }
        if mine.contains(up) {
            let reason = format!("{seat} played the up-card {up}, which it never held");
            return Err(VerifyError::inconsistent(setup, reason));
        }
        let given = deal.dealt[seat.index()];
        if given.len() as usize == HAND_SIZE
            && let Some(card) = mine.difference(given).first()
        {
            let reason = format!("{seat} played {card}, which is not in its playerCards");
            return Err(VerifyError::inconsistent(setup, reason));
        }
        hands[seat.index()] = mine.union(given);
    }

    // The dealer who picked up was dealt his cards less the up-card plus his discard.
    let mut discard = None;
    if picked_up {
        let played = attribution.played[dealer.index()];
        let held = hands[dealer.index()];
        discard = match deal.discard {
            Some(card) if played.contains(card) => {
                let at = Location::new(index, Step::Discard);
                return Err(VerifyError::inconsistent(
                    at,
                    format!("the dealer discarded {card}, then played it"),
                ));
            }
            Some(card) => Some(card),
            None if !played.contains(up) => Some(up),
            // His whole hand is known: the discard is the card he did not play.
            None if held.len() as usize == HAND_SIZE => held.difference(played).first(),
            None => None,
        };
        if let Some(card) = discard.filter(|card| *card != up) {
            hands[dealer.index()].insert(card);
        }
    }

    // No card in two places, no hand too big.
    let mut used = CardSet::single(up);
    for seat in Seat::all(PLAYERS) {
        let hand = hands[seat.index()];
        if hand.len() as usize > HAND_SIZE {
            let reason = format!("{seat} would hold {} cards: {hand:?}", hand.len());
            return Err(VerifyError::inconsistent(setup, reason));
        }
        if let Some(card) = hand.intersection(used).first() {
            let reason = format!("{card} is dealt to {seat} and held or played elsewhere");
            return Err(VerifyError::inconsistent(setup, reason));
        }
        used = used.union(hand);
    }
    if let Some(card) = deal.kitty.intersection(used).first() {
        let reason = format!("{card} is in the kitty and also held or played");
        return Err(VerifyError::inconsistent(setup, reason));
    }

    // The unknown cards, in a fixed order.
    let mut unseen = rules.pack().difference(used).difference(deal.kitty);
    if picked_up && discard.is_none() {
        let card = unseen.first().ok_or_else(|| {
            VerifyError::inconsistent(setup, "no card is left for the dealer's discard")
        })?;
        unseen.remove(card);
        hands[dealer.index()].insert(card);
        discard = Some(card);
    }
    fill(&mut hands, unseen, &attribution.void, mode)
        .map_err(|reason| VerifyError::inconsistent(setup, reason))?;
    let cards = Deal::from_hands(rules, dealer, hands, up)
        .map_err(|error| VerifyError::inconsistent(setup, error.to_string()))?;

    // The replay proper.
    let mut hand = Hand::new(*rules, cards);
    let mut actions = bid(&mut hand, index, deal)?;
    if hand.phase() == Phase::DealerDiscard {
        let action = Action::Discard { card: discard.unwrap_or(up) };
        step(&mut hand, Location::new(index, Step::Discard), dealer, action)?;
        actions.push(SeatAction { seat: dealer, action });
    }
    answer_loner(&mut hand, index, deal, &mut actions)?;
    for (trick, (cards, seats)) in deal.tricks.iter().zip(&attribution.seats).enumerate() {
        for (position, (card, seat)) in cards.iter().zip(seats).enumerate() {
            let at = Location::new(index, Step::Card { trick, card: position });
            if let Some(engine) = hand.turn().filter(|turn| turn != seat) {
                return Err(VerifyError::TurnMismatch { at, record: *seat, engine });
            }
            let action = Action::Play { card: *card };
            match hand.apply_with(*seat, action, &mut NoEvents) {
                Ok(()) => {}
                Err(RuleError::MustFollowSuit { led }) => {
                    let suit = trump::suit_cards_in(led, Mode::of(hand.trump()));
                    let held = hand.holding(*seat).intersection(suit);
                    let proof = proof(held, *seat, trick, deal, &attribution, picked_up);
                    faults.push(VerifyError::Renege {
                        at,
                        seat: *seat,
                        card: *card,
                        led,
                        held,
                        proof,
                    });
                    // Read on as the cards fell: the trick goes to whoever took it.
                    hand.play_renege(*seat, *card).map_err(|error| VerifyError::Illegal {
                        at,
                        seat: *seat,
                        action,
                        error,
                    })?;
                }
                Err(error) => return Err(VerifyError::Illegal { at, seat: *seat, action, error }),
            }
            actions.push(SeatAction { seat: *seat, action });
        }
    }
    Ok((hand, cards, actions))
}

/// How each card of `held` is known to be in `seat`'s hand at `trick`: it
/// plays it later, `playerCards` lists it, or it is the up-card he picked up.
fn proof(
    held: CardSet,
    seat: Seat,
    trick: usize,
    deal: &EgnDeal,
    attribution: &Attribution,
    picked_up: bool,
) -> String {
    let played_in = |card: Card| {
        (trick + 1..deal.tricks.len()).find(|later| {
            let seats = attribution.seats.get(*later).map_or(&[][..], Vec::as_slice);
            deal.tricks[*later].iter().zip(seats).any(|(c, s)| *c == card && *s == seat)
        })
    };
    let known: Vec<String> = held
        .iter()
        .map(|card| match played_in(card) {
            Some(later) => format!("{card} (played in trick {later})"),
            None if deal.dealt[seat.index()].contains(card) => {
                format!("{card} (dealt to it in playerCards)")
            }
            None if picked_up && seat == deal.dealer && card == deal.up_card => {
                format!("{card} (the up-card it picked up)")
            }
            None => card.to_string(),
        })
        .collect();
    known.join(", ")
}

/// Reads the plays of a deal whose replay stopped at `stopped` for reneges
/// the holdings prove: a seat that does not follow suit while holding a card
/// of the suit led, known because it plays that card later in the deal or
/// because `playerCards` lists it. Only cards after `stopped` are read (the
/// replay judged those before it). Needs the bidding to have gone through:
/// without trump and a leader no card has a known player.
fn scan_reneges(
    rules: &Rules,
    index: usize,
    deal: &EgnDeal,
    stopped: Step,
    faults: &mut Vec<VerifyError>,
) {
    let after = match stopped {
        Step::Header | Step::Setup | Step::Call { .. } | Step::Discard => None,
        Step::Card { trick, card } => Some((trick, card)),
        Step::End => return,
    };
    let Ok(trial) = bidding_trial(rules, index, deal) else { return };
    let (Phase::Playing, Some(leader)) = (trial.phase(), trial.turn()) else { return };
    let mode = Mode::of(trial.trump());
    let out = [0, 1, 2, 3].map(|seat| trial.sits_out(Seat(seat)));
    let (attribution, _) = attribute(index, deal, leader, mode, out);
    let picked_up = trial.up_card_picked_up();
    for (trick, seats) in attribution.seats.iter().enumerate() {
        let cards = &deal.tricks[trick];
        let Some(first) = cards.first() else { continue };
        let led = trump::effective_suit_in(*first, mode);
        let suit = trump::suit_cards_in(led, mode);
        for (position, (card, seat)) in cards.iter().zip(seats).enumerate() {
            if after.is_some_and(|after| (trick, position) <= after)
                || trump::effective_suit_in(*card, mode) == led
            {
                continue;
            }
            // What the seat is known to hold now: cards it plays later, and
            // the cards it was dealt that it has not played (the dealer's
            // only when his discard is known, as it may be one of them).
            let mut known = CardSet::EMPTY;
            for (later, later_seats) in attribution.seats.iter().enumerate().skip(trick + 1) {
                for (c, s) in deal.tricks[later].iter().zip(later_seats) {
                    if s == seat {
                        known.insert(*c);
                    }
                }
            }
            let dealt_known = !(picked_up && *seat == deal.dealer) || deal.discard.is_some();
            if dealt_known {
                let mut dealt = deal.dealt[seat.index()];
                if let Some(discard) = deal.discard.filter(|_| *seat == deal.dealer) {
                    dealt.remove(discard);
                }
                for (earlier, earlier_seats) in attribution.seats.iter().enumerate().take(trick + 1)
                {
                    for (c, s) in deal.tricks[earlier].iter().zip(earlier_seats) {
                        if s == seat {
                            dealt.remove(*c);
                        }
                    }
                }
                known = known.union(dealt);
            }
            let held = known.intersection(suit);
            if held.is_empty() {
                continue;
            }
            let at = Location::new(index, Step::Card { trick, card: position });
            let proof = proof(held, *seat, trick, deal, &attribution, picked_up);
            faults.push(VerifyError::Renege { at, seat: *seat, card: *card, led, held, proof });
        }
    }
}

/// Completes hands short of five cards from `unseen`, in card order, giving
/// no seat a card of a suit it has shown out of (so a made-up card never
/// turns a legal play into a renege). Seats with the most voids pick first.
fn fill(
    hands: &mut [CardSet; 4],
    mut unseen: CardSet,
    void: &[[bool; 4]; 4],
    mode: Option<Mode>,
) -> Result<(), String> {
    let mut seats: Vec<usize> = (0..hands.len()).collect();
    seats.sort_by_key(|seat| std::cmp::Reverse(void[*seat].iter().filter(|v| **v).count()));
    for seat in seats {
        let missing = HAND_SIZE.saturating_sub(hands[seat].len() as usize);
        let fits = |card: &Card| {
            mode.is_none_or(|mode| !void[seat][trump::effective_suit_in(*card, mode).index()])
        };
        let choice: Vec<Card> = unseen
            .iter()
            .filter(fits)
            .chain(unseen.iter().filter(|card| !fits(card)))
            .take(missing)
            .collect();
        if choice.len() < missing {
            return Err("too few cards are left to complete the hands".to_owned());
        }
        for card in choice {
            unseen.remove(card);
            hands[seat].insert(card);
        }
    }
    Ok(())
}

// ---- Into an engine record ---------------------------------------------------------

/// Why a legal EGN game cannot become the engine's [`GameRecord`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    /// A step is illegal, or the file contradicts itself.
    #[error(transparent)]
    Verify(#[from] VerifyError),
    /// The file has no deals; a record holds at least the first.
    #[error("the file has no deals")]
    NoDeals,
    /// The file starts mid-game. A [`GameRecord`] always starts at 0 to 0,
    /// so its scores, and where its game ends, would come out wrong.
    #[error("the game starts mid-way, at {initial_score:?}; an engine record starts at [0, 0]")]
    StartsMidGame { initial_score: [u16; 2] },
    /// Something a [`Game`] never does: a deal out of turn, or deals after
    /// the game was won.
    #[error("{0}")]
    NotAGame(Problem),
    /// The converted record does not replay as verified: a bug here, not in the file.
    #[error("the converted record does not replay: {0}")]
    Replay(String),
}

impl RecordError {
    /// A stable machine-readable code: the engine's for an illegal step.
    pub fn code(&self) -> &'static str {
        match self {
            RecordError::Verify(error) => error.code(),
            RecordError::NoDeals => "no_deals",
            RecordError::StartsMidGame { .. } => "starts_mid_game",
            RecordError::NotAGame(problem) => problem.code(),
            RecordError::Replay(_) => "not_replayable",
        }
    }

    pub fn location(&self) -> Option<Location> {
        match self {
            RecordError::Verify(error) => Some(error.location()),
            RecordError::StartsMidGame { .. } => Some(Location::HEADER),
            RecordError::NotAGame(problem) => problem.location(),
            RecordError::NoDeals | RecordError::Replay(_) => None,
        }
    }
}

/// Turns `game` into the engine's own record, replaying it as [`verify`]
/// does: each deal with the cards as given or reconstructed (see "Reconstructing
/// the deal"), every call, the discard and every card by seat, and each
/// outcome. The engine then replays the record with [`Game::replay`], which
/// must end where the verification does. Where the file does not give the
/// hands, the record holds the reconstruction: consistent with every call and
/// card, but not necessarily the cards that were dealt.
///
/// The record's start names the first deal's dealer, with the players seated
/// in the file's order and no cards shown (EGN does not say how the first
/// dealer was chosen); its seed is 0, as every deal is stored. Also returns
/// the verification: its `problems` may still hold
/// [`Problem::FinalScoreDiffers`] (the file's claim is wrong, the record is
/// not), which the caller may refuse.
pub fn to_record(game: &EgnGame) -> Result<(GameRecord, Verification), RecordError> {
    let (checked, hands) = replay_game(game);
    if let Some(error) = checked.first_fault() {
        return Err(RecordError::Verify(error.clone()));
    }
    let verification = checked.verification;
    if game.initial_score != [0, 0] {
        return Err(RecordError::StartsMidGame { initial_score: game.initial_score });
    }
    let not_a_game =
        verification.problems.iter().find(|p| !matches!(p, Problem::FinalScoreDiffers { .. }));
    if let Some(problem) = not_a_game {
        return Err(RecordError::NotAGame(problem.clone()));
    }
    let dealer = hands.first().ok_or(RecordError::NoDeals)?.deal.dealer;
    let start = GameStart { dealer, seating: [0, 1, 2, 3], shown: Vec::new() };
    let mut record = GameRecord {
        rules: game.rules,
        seed: 0,
        start,
        hands,
        scores: per_team([0, 0]),
        winner: None,
        games: Vec::new(),
    };
    let replayed = Game::replay(&record).map_err(|error| RecordError::Replay(error.to_string()))?;
    let ended = (replayed.scores(), replayed.winner());
    if ended != (verification.final_score, verification.winner) {
        let reason = format!(
            "it ends at {ended:?}, the verification at {:?}",
            (verification.final_score, verification.winner)
        );
        return Err(RecordError::Replay(reason));
    }
    (record.scores, record.winner) = ended;
    Ok((record, verification))
}

// ---- Writing -----------------------------------------------------------------------

/// Why a [`GameRecord`] cannot be written as EGN.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    #[error("EGN needs 4 player names, {0} given")]
    Players(usize),
    #[error("EGN cannot state these rules: {0}")]
    Rules(&'static str),
    #[error("hand {hand}: EGN has no {action}")]
    Inexpressible { hand: usize, action: &'static str },
    #[error("hand {hand} is not finished, but later hands follow")]
    Unfinished { hand: usize },
    #[error("the seating names player {0}, who is not in the list")]
    Seating(u8),
    /// A claim or concession could not be written out as plays: the record
    /// does not replay, which means a corrupt record or a bug.
    #[error("hand {hand}: the claim or concession cannot be written out: {reason}")]
    PlayOut { hand: usize, reason: String },
}

/// Writes `record` as EGN. `players` are the names in joining order; the
/// record's seating puts them in their seats. See the module docs for what
/// EGN cannot express.
pub fn write(record: &GameRecord, players: &[String]) -> Result<String, WriteError> {
    if players.len() != usize::from(PLAYERS) {
        return Err(WriteError::Players(players.len()));
    }
    let names = record
        .start
        .seating
        .iter()
        .map(|player| {
            players
                .get(usize::from(*player))
                .map(|name| RawPlayer::Name(name.clone()))
                .ok_or(WriteError::Seating(*player))
        })
        .collect::<Result<_, _>>()?;
    let rules = &record.rules;
    let defaults = Scoring::default();
    let scoring = rules.scoring;
    if (scoring.made, scoring.march, scoring.euchre)
        != (defaults.made, defaults.march, defaults.euchre)
    {
        return Err(WriteError::Rules("made, march and euchre scores other than 1, 2 and 2"));
    }
    if rules.rubber {
        return Err(WriteError::Rules("a rubber (EGN records one game)"));
    }
    if !rules.partnerships() {
        return Err(WriteError::Rules("a game without partnerships (two- or three-handed)"));
    }
    if rules.call_for_best {
        return Err(WriteError::Rules("call for best (partners_best with cardExchanges)"));
    }
    if rules.defend_alone && scoring.defender_alone_euchre != defaults.defender_alone_euchre {
        return Err(WriteError::Rules("a lone defender's euchre scoring other than 4"));
    }
    let ruleset = RawRuleset {
        std: Some(rules.all_pass == AllPass::StickTheDealer),
        min_rank: Some(match rules.deck {
            Deck::TenToAce => 10,
            Deck::NineToAce => 9,
            Deck::EightToAce => 8,
            Deck::SevenToAce => 7,
        }),
        winning_score: Some(i64::from(rules.points_to_win)),
        loner_lead: Some(
            match rules.loner_lead {
                LonerLead::LeftOfDealer => "LEFT_OF_DEALER",
                LonerLead::LeftOfLoner => "LEFT_OF_LONER",
            }
            .to_owned(),
        ),
        loner_march_score: Some(i64::from(scoring.lone_march)),
        loner_euchred_score: Some(i64::from(scoring.lone_euchre)),
        farmers: Some(rules.farmers_hand),
        // Written only when on, so records under the other rules read as before.
        canadian: rules.canadian_loner.then_some(true),
        defend_alone: rules.defend_alone.then_some(true),
        allow_no_trump: rules.allow_no_trump.then_some(true),
        joker: rules.joker.then_some(true),
        ..RawRuleset::default()
    };
    let mut deals = Vec::with_capacity(record.hands.len());
    let mut written_out = false;
    for (number, hand) in record.hands.iter().enumerate() {
        if hand.outcome.is_none() {
            if number + 1 == record.hands.len() {
                break; // the hand in progress: left out
            }
            return Err(WriteError::Unfinished { hand: number });
        }
        let played_out = playout::play_out(rules, hand).map_err(|error| match error {
            PlayOutError::NoPlayOut { .. } => WriteError::Inexpressible {
                hand: number,
                action: "concession of tricks its side wins however the cards are played",
            },
            error => WriteError::PlayOut { hand: number, reason: error.to_string() },
        })?;
        written_out |= played_out.is_some();
        let deal = raw_deal(rules, number, hand, played_out.as_ref())?;
        deals.push(serde_json::to_value(deal).map_err(|_| WriteError::Rules("unserializable"))?);
    }
    let file = RawFile {
        file_type: FILE_TYPE.to_owned(),
        version: VERSION.to_owned(),
        metadata: RawMetadata {
            title: None,
            description: written_out.then(|| {
                "Claims and concessions are written out as card play, as EGN has no notation \
                 for them; playAnnotations say where each one was."
                    .to_owned()
            }),
            players: names,
            initial_score: vec![0, 0],
            final_score: record
                .winner
                .map(|_| record.scores.iter().map(|score| i64::from(*score)).collect()),
            ruleset: Some(ruleset),
        },
        deals,
    };
    serde_json::to_string_pretty(&file).map_err(|_| WriteError::Rules("unserializable"))
}

/// A claim or concession in words, for the annotation at its first written-out card.
fn played_out_note(played_out: &PlayedOut) -> String {
    match played_out.ending {
        playout::Ending::Claim { seat } => format!(
            "{seat} claimed the remaining tricks here. EGN has no claim, so the rest of the hand \
             is written out as legal plays that give the same tricks: the claiming side plays its \
             highest card, the other side its lowest."
        ),
        playout::Ending::Concession { seat } => format!(
            "{seat} conceded the remaining tricks here. EGN has no concession, so the rest of the \
             hand is written out as legal plays in which the conceding side takes no trick."
        ),
    }
}

fn raw_deal(
    rules: &Rules,
    number: usize,
    hand: &HandRecord,
    played_out: Option<&PlayedOut>,
) -> Result<RawDeal, WriteError> {
    let deal = &hand.deal;
    // A claim or concession is written as the plays that stand for it.
    let actions = played_out.map_or(&hand.actions[..], |p| &p.actions[..]);
    let mut calls = Vec::new();
    let mut alone = false;
    let mut made = false;
    let mut alone_defender = None;
    let mut discard = None;
    let mut plays = Vec::new();
    for taken in actions {
        match taken.action {
            // After trump is made, a pass is a defender's answer to a loner.
            Action::Pass if made => {}
            Action::Pass => calls.push("Pass".to_owned()),
            Action::DefendAlone => alone_defender = Some(i64::from(taken.seat.0)),
            Action::OrderUp { alone: a } => {
                calls.push("Order".to_owned());
                alone = a;
                made = true;
            }
            // Naming the turned-down suit is accepted only where it counts as a pass.
            Action::Call { suit, .. } if suit == deal.up_card.suit() => {
                debug_assert_eq!(rules.turned_down_suit, TurnedDownSuit::CountsAsPass);
                calls.push("Pass".to_owned());
            }
            Action::Call { suit, alone: a } => {
                calls.push(suit.letter().to_string());
                alone = a;
                made = true;
            }
            Action::CallNoTrump { alone: a } => {
                calls.push("n".to_owned());
                alone = a;
                made = true;
            }
            Action::Discard { card } => discard = Some(egn_code(card)),
            Action::Play { card } => plays.push(egn_code(card)),
            Action::FarmersHand => {
                return Err(WriteError::Inexpressible { hand: number, action: "farmer's hand" });
            }
            Action::Claim => {
                return Err(WriteError::Inexpressible { hand: number, action: "claim" });
            }
            Action::Concede => {
                return Err(WriteError::Inexpressible { hand: number, action: "concession" });
            }
            Action::PassCard { .. } => {
                return Err(WriteError::Inexpressible { hand: number, action: "card exchange" });
            }
            Action::NameSuit { .. } => {
                return Err(WriteError::Inexpressible { hand: number, action: "joker suit" });
            }
        }
    }
    let per_trick = 4 - usize::from(alone) - usize::from(alone_defender.is_some());
    let mut phases = vec![RawPhase::Bidding(RawBidding {
        phase_number: Some(0),
        calls,
        is_alone: alone,
        discard,
        alone_defender,
        card_exchanges: None,
    })];
    if matches!(hand.outcome, Some(HandOutcome::Played(_))) {
        phases.push(RawPhase::Play(RawPlay {
            phase_number: Some(1),
            tricks: plays.chunks(per_trick).map(<[String]>::to_vec).collect(),
            is_alone: false,
            initial_lead: None,
            play_annotations: played_out
                .map(|p| serde_json::json!({ p.first_written.to_string(): [played_out_note(p)] })),
        }));
    }
    let codes = |cards: CardSet| cards.iter().map(egn_code).collect();
    Ok(RawDeal {
        deal_number: Some(number as i64),
        initial_state: RawInitialState {
            dealer: i64::from(deal.dealer.0),
            up_card: egn_code(deal.up_card),
            player_cards: Some(deal.hands.iter().map(|hand| codes(*hand)).collect()),
            player_cards_snake: None,
            kitty: None,
        },
        phases,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    /// A whole game by the engine, making trump when it can and never claiming
    /// or conceding, so the record and EGN hold the same steps.
    fn played_game(seed: u64) -> Game {
        let mut game = Game::new(Rules::default(), seed).expect("default rules");
        while let Some(seat) = game.turn() {
            let choices: Vec<Action> = game
                .legal_actions(seat)
                .into_iter()
                .filter(|a| !matches!(a, Action::Claim | Action::Concede))
                .collect();
            let action = choices.iter().find(|a| **a != Action::Pass).or(choices.first());
            game.apply(seat, *action.expect("an expressible action")).expect("a legal action");
        }
        game
    }

    fn names() -> Vec<String> {
        ["North", "East", "South", "West"].map(String::from).to_vec()
    }

    #[test]
    fn a_game_written_as_egn_comes_back_as_the_same_record() {
        for seed in 0..20 {
            let game = played_game(seed);
            let original = game.record();
            let text = write(original, &names()).expect("expressible in EGN");
            let (record, verification) = to_record(&read(&text).expect("readable")).expect("sound");
            // Every deal, step and outcome survives; the full hands are in the file.
            assert_eq!(record.hands, original.hands, "seed {seed}");
            assert_eq!((record.scores, record.winner), (original.scores, original.winner));
            assert_eq!(record.start.dealer, original.start.dealer);
            assert_eq!(verification.final_score, original.scores);
            let replayed = Game::replay(&record).expect("the record replays");
            assert_eq!(replayed.scores(), original.scores);
        }
    }

    /// A game where every claim the engine allows is made and, in hand 2
    /// if `concede_at` says so, the first seat to play in that trick concedes.
    fn claiming_game(rules: Rules, seed: u64, concede_at: Option<u8>) -> Game {
        let mut game = Game::new(rules, seed).expect("valid rules");
        while let Some(seat) = game.turn() {
            let actions = game.legal_actions(seat);
            let concede =
                game.record().hands.len() == 3 && Some(game.hand().tricks_played()) == concede_at;
            let action = if actions.contains(&Action::Claim) {
                Action::Claim
            } else if concede && actions.contains(&Action::Concede) {
                Action::Concede
            } else {
                let making = actions.iter().find(|a| !matches!(a, Action::Pass | Action::Concede));
                *making.unwrap_or(&actions[0])
            };
            game.apply(seat, action).expect("a legal action");
        }
        game
    }

    /// `original` written as EGN and read back: the same deals, outcomes and
    /// scores, and a note at each hand that was cut short.
    fn round_trip(original: &GameRecord, text: &str) {
        let file: Value = serde_json::from_str(text).expect("JSON");
        let (record, verification) =
            to_record(&read(text).expect("readable")).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(verification.final_score, original.scores);
        assert_eq!((record.scores, record.winner), (original.scores, original.winner));
        let mut cut_short = false;
        for (index, (again, hand)) in record.hands.iter().zip(&original.hands).enumerate() {
            assert_eq!(again.deal, hand.deal);
            assert_eq!(again.outcome, hand.outcome, "hand {index}");
            let cut =
                hand.actions.iter().any(|a| matches!(a.action, Action::Claim | Action::Concede));
            let notes = &file["deals"][index]["phases"][1]["playAnnotations"];
            assert_eq!(notes.is_object(), cut, "hand {index}: {notes}");
            cut_short |= cut;
        }
        let described = file["metadata"]["description"].as_str().unwrap_or("");
        assert_eq!(described.contains("written out"), cut_short);
    }

    #[test]
    fn claims_are_written_out_as_plays_with_the_same_scores() {
        let mut claims = 0;
        for rules in [Rules::default(), crate::rules::Preset::Online.rules()] {
            for seed in 0..30 {
                let game = claiming_game(rules, seed, None);
                let text = write(game.record(), &names()).expect("claims are expressible");
                round_trip(game.record(), &text);
                let steps = game.record().hands.iter().flat_map(|h| &h.actions);
                claims += steps.filter(|a| a.action == Action::Claim).count();
            }
        }
        assert!(claims > 50, "{claims} claims");
    }

    #[test]
    fn concessions_are_written_out_unless_play_cannot_give_the_tricks() {
        let (mut written, mut refused) = (0, 0);
        for seed in 0..40 {
            for trick in 0..5 {
                let game = claiming_game(Rules::default(), seed, Some(trick));
                let conceded = game.record().hands.get(2).and_then(|h| h.actions.last());
                if conceded.map(|a| a.action) != Some(Action::Concede) {
                    continue; // claimed, or the game was over
                }
                match write(game.record(), &names()) {
                    Ok(text) => {
                        round_trip(game.record(), &text);
                        written += 1;
                    }
                    Err(WriteError::Inexpressible { hand: 2, action }) => {
                        assert!(action.starts_with("concession"), "{action}");
                        refused += 1;
                    }
                    Err(error) => panic!("seed {seed}: {error}"),
                }
            }
        }
        assert!(written > 10 && refused > 0, "{written} written out, {refused} refused");
    }

    #[test]
    fn what_a_record_cannot_say_is_refused() {
        let text = write(played_game(1).record(), &names()).expect("expressible in EGN");
        let game = read(&text).expect("readable");

        let mid_game = EgnGame { initial_score: [4, 9], ..game.clone() };
        let error = to_record(&mid_game).expect_err("a mid-game start");
        assert_eq!(error.code(), "starts_mid_game");
        assert_eq!(error.location(), Some(Location::HEADER));

        let skipped = vec![game.deals[0].clone(), game.deals[2].clone()];
        let out_of_turn = EgnGame { deals: skipped, ..game.clone() };
        let error = to_record(&out_of_turn).expect_err("a dealer skipped");
        assert_eq!(error.code(), "dealer_out_of_turn");
        assert_eq!(error.location(), Some(Location::new(1, Step::Setup)));

        let twice = vec![game.deals[0].clone(), game.deals[0].clone()];
        let repeated = EgnGame { deals: twice, ..game.clone() };
        let error = to_record(&repeated).expect_err("a deal twice");
        assert_eq!(error.code(), "repeated_deal");
        assert_eq!(error.location(), Some(Location::new(1, Step::Setup)));

        let empty = EgnGame { deals: Vec::new(), ..game.clone() };
        assert_eq!(to_record(&empty).expect_err("no deals").code(), "no_deals");

        // A broken deal is the verifier's error, with its position.
        let mut broken = game;
        broken.deals[0].tricks[0].swap(0, 1);
        let error = to_record(&broken).expect_err("an illegal record");
        assert!(matches!(error, RecordError::Verify(_)), "{error}");
        assert!(error.location().is_some_and(|at| at.deal == Some(0)));
    }

    #[test]
    fn every_recorded_game_becomes_a_record_unless_it_starts_mid_game() {
        let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/fixtures/egn");
        let mut converted = 0;
        for entry in std::fs::read_dir(folder).expect("the shared fixtures") {
            let path = entry.expect("an entry").path();
            if path.extension().is_none_or(|ext| ext != "egn") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("a fixture");
            let game = read(&text).expect("readable");
            match to_record(&game) {
                Ok((record, verification)) => {
                    assert_eq!(record.scores, verification.final_score, "{path:?}");
                    Game::replay(&record).expect("the record replays");
                    converted += 1;
                }
                Err(error) => {
                    assert_ne!(game.initial_score, [0, 0], "{path:?}: {error}");
                    assert_eq!(error.code(), "starts_mid_game");
                }
            }
        }
        assert!(converted >= 10, "only {converted} fixtures converted");
    }

    #[test]
    fn a_wrong_final_score_is_left_to_the_caller() {
        let text = write(played_game(2).record(), &names()).expect("expressible in EGN");
        let mut game = read(&text).expect("readable");
        game.final_score = Some([0, 0]);
        let (record, verification) = to_record(&game).expect("the deals are sound");
        assert!(record.winner.is_some());
        assert!(matches!(verification.problems[..], [Problem::FinalScoreDiffers { .. }]));
    }
}
