//! Bot specs: the text that names a player on the command line (a bot by
//! its kind, a search bot with changed settings, the learned policy, the
//! oracle, a split player), parsed into a [`BotSpec`], and the player a spec
//! makes for each seat of an arena game.

use anyhow::{Context, bail};
use euchre_bots::policy::Policy;
use euchre_bots::{Bot, BotKind, NetPlay, PolicyBot, SearchBot, SearchSettings};
use euchre_engine::{Action, Game, Phase, Seat, Viewer};

use crate::oracle::Oracle;

/// A bot to play: a kind by name, or a search bot with settings changed
/// from its level's, written `hard:worlds=40,make_margin=0.5` (the keys are
/// [`SearchSettings`]' fields; `match_aware` takes `true` or `false`). The
/// variants are for measuring what a setting is worth.
///
/// `net_play` takes `off`, `own` or `all` ([`NetPlay`]), and `net=FILE`,
/// which comes last (a path may hold ',' and '/'), plays a network from a
/// weights file in the play-outs instead of the committed one.
///
/// Three more, for measurement only: `policy`, the learned card-play
/// policy alone with the basic bot's bids ([`PolicyBot`]), or
/// `policy:FILE` with the network in a weights file; `oracle`, the player that sees every
/// card ([`Oracle`]), and a split player written `BIDS/PLAY`
/// (`hard/oracle`: hard's bids, discards and card passed, the oracle's card
/// play), which shows what each part of a player is worth.
#[derive(Clone, Debug, PartialEq)]
pub enum BotSpec {
    Kind(BotKind),
    Search {
        name: String,
        settings: SearchSettings,
        /// The play-outs' network, if not the committed one (`net=FILE`).
        network: Option<&'static Policy>,
    },
    Oracle,
    /// The learned card-play policy alone ([`PolicyBot`]): the basic
    /// bot's bids, the network's cards; the committed network, or one read
    /// from a weights file (`policy:FILE`).
    Policy {
        name: String,
        network: Option<&'static Policy>,
    },
    /// One player for everything before the card play, another for it.
    Split {
        name: String,
        bids: Box<BotSpec>,
        play: Box<BotSpec>,
    },
}

impl BotSpec {
    pub fn parse(text: &str) -> anyhow::Result<BotSpec> {
        // Before the split player's '/', which a path has too.
        if let Some(path) = text.strip_prefix("policy:") {
            let network = Some(read_network(path)?);
            return Ok(BotSpec::Policy { name: text.to_owned(), network });
        }
        if let Some((head, path)) = text.split_once("net=")
            && let Some(spec) = head.strip_suffix([':', ','])
        {
            let network = Some(read_network(path)?);
            let settings = match BotSpec::parse(spec)? {
                BotSpec::Search { settings, network: None, .. } => settings,
                BotSpec::Kind(kind) => level_settings(kind)?,
                _ => bail!("'{text}': net= is a search bot's setting"),
            };
            return Ok(BotSpec::Search { name: text.to_owned(), settings, network });
        }
        if let Some((bids, play)) = text.split_once('/') {
            let (bids, play) = (BotSpec::parse(bids)?, BotSpec::parse(play)?);
            if matches!(bids, BotSpec::Split { .. }) || matches!(play, BotSpec::Split { .. }) {
                bail!("'{text}': a split player has one '/'");
            }
            return Ok(BotSpec::Split {
                name: text.to_owned(),
                bids: Box::new(bids),
                play: Box::new(play),
            });
        }
        if text == "oracle" {
            return Ok(BotSpec::Oracle);
        }
        if text == "policy" {
            return Ok(BotSpec::Policy { name: text.to_owned(), network: None });
        }
        let (name, changes) = match text.split_once(':') {
            Some((name, changes)) => (name, Some(changes)),
            None => (text, None),
        };
        let kind = BotKind::from_name(name).with_context(|| {
            let names: Vec<_> = BotKind::ALL.iter().map(|kind| kind.name()).collect();
            format!(
                "unknown bot '{name}'; choose one of {} (or easy, oracle, BIDS/PLAY)",
                names.join(", ")
            )
        })?;
        let Some(changes) = changes else { return Ok(BotSpec::Kind(kind)) };
        let mut settings = level_settings(kind)?;
        for change in changes.split(',') {
            let (key, value) =
                change.split_once('=').with_context(|| format!("'{change}' is not key=value"))?;
            let number = || value.parse::<f64>().with_context(|| format!("{key}={value}"));
            let whole = || value.parse::<u32>().with_context(|| format!("{key}={value}"));
            let flag = || value.parse::<bool>().with_context(|| format!("{key}={value}"));
            match key {
                "worlds" => settings.worlds = whole()?,
                "bid_worlds" => settings.bid_worlds = whole()?,
                "table_bits" => settings.table_bits = whole()?,
                "bid_miss" => settings.bid_miss = number()?,
                "partner_bid_miss" => settings.partner_bid_miss = number()?,
                "play_miss" => settings.play_miss = number()?,
                "partner_play_miss" => settings.partner_play_miss = number()?,
                "candidates" => settings.candidates = whole()?,
                "make_margin" => settings.make_margin = number()?,
                "alone_margin" => settings.alone_margin = number()?,
                "basic_prior" => settings.basic_prior = number()?,
                "own_worlds" => settings.own_worlds = whole()?,
                "own_depth" => settings.own_depth = whole()?,
                "exploration" => settings.exploration = number()?,
                "tree_patience" => settings.tree_patience = whole()?,
                "tree_judge" => settings.tree_judge = whole()?,
                "bid_rollout" | "play_rollout" => {
                    let weight = number()?;
                    if !(0.0..=1.0).contains(&weight) {
                        bail!("{key} is from 0 to 1");
                    }
                    if key == "bid_rollout" {
                        settings.bid_rollout = weight;
                    } else {
                        settings.play_rollout = weight;
                    }
                }
                "model_trick" => settings.model_trick = flag()?,
                "tree_bids" => settings.tree_bids = flag()?,
                "tree_play" => settings.tree_play = flag()?,
                "match_aware" => settings.match_aware = flag()?,
                "net_play" => {
                    settings.net_play = match value {
                        "off" => NetPlay::Off,
                        "own" => NetPlay::Own,
                        "all" => NetPlay::All,
                        _ => bail!("net_play is off, own or all"),
                    }
                }
                _ => bail!("unknown setting '{key}'"),
            }
        }
        if settings.table_bits > 24 {
            bail!("table_bits is at most 24");
        }
        Ok(BotSpec::Search { name: text.to_owned(), settings, network: None })
    }

    /// The name the report shows.
    pub fn name(&self) -> &str {
        match self {
            BotSpec::Kind(kind) => kind.name(),
            BotSpec::Search { name, .. }
            | BotSpec::Split { name, .. }
            | BotSpec::Policy { name, .. } => name,
            BotSpec::Oracle => "oracle",
        }
    }

    pub(crate) fn create(&self, seed: u64) -> Player {
        match self {
            BotSpec::Kind(kind) => Player::Bot(kind.create(seed)),
            BotSpec::Search { settings, network, .. } => {
                Player::Bot(Box::new(SearchBot::with_policy(*settings, seed, *network)))
            }
            BotSpec::Oracle => Player::Oracle(Box::default()),
            BotSpec::Policy { network, .. } => Player::Bot(Box::new(PolicyBot::with(*network))),
            BotSpec::Split { bids, play, .. } => {
                Player::Split(Box::new([bids.create(seed), play.create(seed)]))
            }
        }
    }
}

/// The settings of a search level, which a spec changes.
fn level_settings(kind: BotKind) -> anyhow::Result<SearchSettings> {
    Ok(match kind {
        BotKind::Medium => SearchSettings::MEDIUM,
        BotKind::Hard => SearchSettings::HARD,
        BotKind::Expert => SearchSettings::EXPERT,
        _ => bail!("only the search bots (medium, hard, expert) take settings"),
    })
}

/// A network read from a weights file, once for the whole run.
fn read_network(path: &str) -> anyhow::Result<&'static Policy> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {path}"))?;
    let network =
        Policy::from_bytes(&bytes).with_context(|| format!("{path} is not a network's weights"))?;
    Ok(Box::leak(Box::new(network)))
}

/// A seat's player in an arena game.
pub(crate) enum Player {
    /// Sees its seat's view.
    Bot(Box<dyn Bot>),
    /// Sees the whole game.
    Oracle(Box<Oracle>),
    /// The first before card play, the second in it.
    Split(Box<[Player; 2]>),
}

impl Player {
    pub(crate) fn choose(&mut self, game: &Game, seat: Seat, legal: &[Action]) -> Option<Action> {
        match self {
            Player::Bot(bot) => bot.choose(&game.view(Viewer::Seat(seat)), legal),
            Player::Oracle(oracle) => oracle.choose(game, seat, legal),
            Player::Split(players) => {
                let [bids, play] = &mut **players;
                if game.hand().phase() == Phase::Playing {
                    play.choose(game, seat, legal)
                } else {
                    bids.choose(game, seat, legal)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bot_specs_by_name_or_with_settings() {
        assert_eq!(BotSpec::parse("easy").expect("a level"), BotSpec::Kind(BotKind::Basic));
        let spec =
            BotSpec::parse("hard:worlds=40,make_margin=0.5,match_aware=true").expect("settings");
        let BotSpec::Search { name, settings, .. } = spec else { panic!("a search bot") };
        assert_eq!(name, "hard:worlds=40,make_margin=0.5,match_aware=true");
        assert_eq!(
            settings,
            SearchSettings {
                worlds: 40,
                make_margin: 0.5,
                match_aware: true,
                ..SearchSettings::HARD
            }
        );
        let spec = BotSpec::parse(
            "hard:bid_worlds=160,play_miss=0.1,partner_play_miss=0.5,candidates=160,model_trick=true,bid_rollout=0.5,play_rollout=0.25,own_worlds=8,own_depth=2",
        )
        .expect("settings");
        let BotSpec::Search { settings, .. } = spec else { panic!("a search bot") };
        assert_eq!(
            settings,
            SearchSettings {
                bid_worlds: 160,
                play_miss: 0.1,
                partner_play_miss: 0.5,
                candidates: 160,
                model_trick: true,
                bid_rollout: 0.5,
                play_rollout: 0.25,
                own_worlds: 8,
                own_depth: 2,
                ..SearchSettings::HARD
            }
        );
        assert_eq!(BotSpec::parse("expert").expect("a level"), BotSpec::Kind(BotKind::Expert));
        let spec =
            BotSpec::parse("expert:exploration=0.5,tree_patience=4,tree_judge=8,tree_play=false")
                .expect("settings");
        let BotSpec::Search { settings, .. } = spec else { panic!("a search bot") };
        assert_eq!(
            settings,
            SearchSettings {
                exploration: 0.5,
                tree_patience: 4,
                tree_judge: 8,
                tree_play: false,
                ..SearchSettings::EXPERT
            }
        );
        assert_eq!(BotSpec::parse("oracle").expect("the oracle"), BotSpec::Oracle);
        let spec = BotSpec::parse("hard:net_play=all").expect("settings");
        let BotSpec::Search { settings, .. } = spec else { panic!("a search bot") };
        assert_eq!(settings, SearchSettings { net_play: NetPlay::All, ..SearchSettings::HARD });
        assert_eq!(
            BotSpec::parse("policy").expect("the policy"),
            BotSpec::Policy { name: "policy".to_owned(), network: None }
        );
        let weights = std::env::temp_dir().join(format!("arena-spec-{}.bin", std::process::id()));
        let committed = euchre_bots::policy::trained().expect("the committed network");
        std::fs::write(&weights, committed.to_bytes()).expect("writes the weights");
        let spec = BotSpec::parse(&format!("policy:{}", weights.display()));
        let search = BotSpec::parse(&format!("expert:worlds=80,net={}", weights.display()));
        let level = BotSpec::parse(&format!("hard:net={}", weights.display()));
        let basic = BotSpec::parse(&format!("basic:net={}", weights.display()));
        let _ = std::fs::remove_file(&weights);
        assert!(
            matches!(spec, Ok(BotSpec::Policy { network: Some(network), .. }) if network == committed),
            "an absolute path to weights: {spec:?}"
        );
        let Ok(BotSpec::Search { settings, network: Some(network), .. }) = search else {
            panic!("a search bot with a network: {search:?}")
        };
        assert_eq!(settings, SearchSettings { worlds: 80, ..SearchSettings::EXPERT });
        assert_eq!(network, committed);
        assert!(
            matches!(level, Ok(BotSpec::Search { settings, network: Some(_), .. }) if settings == SearchSettings::HARD),
            "{level:?}"
        );
        assert!(basic.is_err(), "only a search bot takes a network: {basic:?}");
        let spec = BotSpec::parse("hard:worlds=40/oracle").expect("a split player");
        let BotSpec::Split { name, bids, play } = spec else { panic!("a split player") };
        assert_eq!(name, "hard:worlds=40/oracle");
        assert_eq!(*play, BotSpec::Oracle);
        assert!(
            matches!(*bids, BotSpec::Search { settings, .. } if settings.worlds == 40),
            "{bids:?}"
        );
        for bad in [
            "genius",
            "basic:worlds=3",
            "hard:net_play=some",
            "policy:/no/such/weights",
            "hard:net=/no/such/weights",
            "hard:worlds",
            "hard:depth=3",
            "hard:worlds=x",
            "hard:bid_rollout=2",
            "oracle:worlds=3",
            "hard/",
            "hard/basic/oracle",
        ] {
            assert!(BotSpec::parse(bad).is_err(), "{bad}");
        }
    }
}
