//! Reading a file into an [`EgnGame`]: the header, the ruleset as [`Rules`],
//! and each deal, checked for form (legality is the verifier's).
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
//! | `allow_no_trump` (the call `n`) | `allow_no_trump` ([`Action::CallNoTrump`](crate::Action::CallNoTrump)) |
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

use serde_json::Value;

use super::raw::{RawDeal, RawFile, RawPhase, RawPlayer, RawRuleset};
use super::{Call, EgnDeal, EgnError, EgnGame, FILE_TYPE, HAND_SIZE, Location, PLAYERS, Step};
use crate::action::Seat;
use crate::card::{Card, CardSet, Suit};
use crate::rules::{AllPass, Deck, LonerLead, Rules, Scoring};

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

/// Maps the EGN ruleset onto [`Rules`] (the table in this file's opening comment).
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
pub(super) fn egn_code(card: Card) -> String {
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
