//! Provably fair deals, checked by this client: the server commits to each
//! deal (`deal_committed`) before anyone bids and reveals its deck and salt
//! (`deal_revealed`) when the hand ends. A [`DealWatch`] follows one table's
//! updates and holds each reveal against the commitment and against
//! everything this client saw of the hand, with the engine's
//! [`Witness`] (which lists the checks). docs/security.md describes the scheme.

use euchre_engine::fairness::{Verdict, Witness};
use euchre_engine::{Commitment, Rules};
use euchre_protocol::{TableEvent, TableNotice, TableState};

/// One table's deals as this client saw them, and the last reveal's verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DealWatch {
    rules: Rules,
    witness: Witness,
    checked: Option<(u32, Verdict)>,
}

impl DealWatch {
    /// Starts from a table's snapshot (on joining, or after a reconnection
    /// whose missed events are gone).
    pub fn from_snapshot(state: &TableState) -> DealWatch {
        let mut watch =
            DealWatch { rules: state.summary.rules, witness: Witness::default(), checked: None };
        watch.snapshot(state);
        watch
    }

    /// A new snapshot of the same table: what was seen of the hand in play
    /// stands, and the last verdict is kept.
    pub fn snapshot(&mut self, state: &TableState) {
        self.rules = state.summary.rules;
        if let Some(game) = &state.game {
            self.witness.joined(game, state.deal_commitment);
        }
    }

    /// One of the table's events, in seq order (`None`: one this client may
    /// not see). Returns the verdict when it reveals a deal.
    pub fn event(&mut self, event: Option<&TableEvent>) -> Option<&(u32, Verdict)> {
        match event? {
            TableEvent::Game(event) => self.witness.saw(event),
            TableEvent::Table(TableNotice::GameStarted { rules, .. }) => {
                self.rules = *rules;
                self.witness = Witness::default();
            }
            TableEvent::Table(TableNotice::DealCommitted { hand, commitment }) => {
                self.witness.committed(*hand, *commitment);
            }
            TableEvent::Table(TableNotice::DealRevealed { hand, deck, salt }) => {
                let verdict = self.witness.revealed(&self.rules, *hand, deck, salt);
                return Some(self.checked.insert((*hand, verdict)));
            }
            TableEvent::Table(_) => {}
        }
        None
    }

    /// The commitment to the hand in play, if one came.
    pub fn commitment(&self) -> Option<(u32, Commitment)> {
        self.witness.commitment()
    }

    /// The last hand revealed, and what its check found.
    pub fn checked(&self) -> Option<&(u32, Verdict)> {
        self.checked.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use euchre_engine::fairness::{Mismatch, Unchecked, commit};
    use euchre_engine::{Action, Card, Event, Game, Preset, Salt, Seat, Viewer};

    use super::*;

    /// What `viewer` is sent of the first hand of a game of `preset`, played
    /// with trump made where it can be, in the server's order: the deal,
    /// `commitment` (after `late` of the hand's events), the hand's events,
    /// the reveal of `revealed`. Returns the watch's verdict.
    fn watch_hand(
        preset: Preset,
        viewer: Viewer,
        late: usize,
        committed: impl Fn(&[Card]) -> Vec<Card>,
    ) -> Verdict {
        let rules = preset.rules();
        let mut game = Game::new(rules, 12).expect("valid rules");
        let dealt = game.hand().deal().deck();
        let salt = Salt([3; 32]);
        let deck = committed(&dealt);
        let commitment = TableEvent::Table(TableNotice::DealCommitted {
            hand: 0,
            commitment: commit(&deck, &salt),
        });
        let mut sent = vec![TableEvent::Game(game.current_deal_event().for_viewer(viewer))];
        while let Some(seat) = game.turn().filter(|_| game.hand_number() == 0) {
            let actions = game.legal_actions(seat);
            let plain = |a: &&Action| !matches!(a, Action::Pass | Action::OrderUp { alone: true });
            let action = *actions.iter().find(plain).unwrap_or(&actions[0]);
            let events = game.apply(seat, action).expect("legal");
            let this_hand = events.iter().take_while(|e| !matches!(e, Event::HandDealt { .. }));
            sent.extend(this_hand.map(|event| TableEvent::Game(event.for_viewer(viewer))));
        }
        sent.insert(1 + late.min(sent.len() - 1), commitment);
        sent.push(TableEvent::Table(TableNotice::DealRevealed { hand: 0, deck, salt }));
        let snapshot = table_state(rules);
        let mut watch = DealWatch::from_snapshot(&snapshot);
        let mut verdicts: Vec<Verdict> = sent
            .iter()
            .filter_map(|event| watch.event(Some(event)).map(|(_, v)| v.clone()))
            .collect();
        assert_eq!(verdicts.len(), 1, "one reveal");
        assert_eq!(watch.checked().map(|(_, verdict)| verdict), verdicts.last());
        verdicts.remove(0)
    }

    /// A table waiting for its first game.
    fn table_state(rules: Rules) -> TableState {
        TableState {
            summary: euchre_protocol::TableSummary {
                table: "t".into(),
                host: "Ann".into(),
                preset: Preset::Standard,
                rules,
                private: false,
                seated: rules.players,
                status: euchre_protocol::TableStatus::Open,
                turn_seconds: None,
                chat: true,
            },
            seats: Vec::new(),
            your_seat: None,
            game: None,
            deal_commitment: None,
            actions: Vec::new(),
            rematch_vote: None,
            stood_in: None,
        }
    }

    fn viewers(preset: Preset) -> Vec<Viewer> {
        let players = preset.rules().players;
        (0..players).map(|seat| Viewer::Seat(Seat(seat))).chain([Viewer::Spectator]).collect()
    }

    #[test]
    fn an_honest_deal_is_verified_in_every_form() {
        for preset in Preset::ALL {
            for viewer in viewers(preset) {
                let verdict = watch_hand(preset, viewer, 0, <[Card]>::to_vec);
                assert_eq!(verdict, Verdict::Verified, "{preset:?} {viewer:?}");
            }
        }
    }

    #[test]
    fn a_deal_committed_and_revealed_as_one_deck_but_dealt_as_another_is_a_mismatch() {
        // Committed to and revealed: seat 0's first card and seat 1's swapped.
        let swapped = |dealt: &[Card]| {
            let mut deck = dealt.to_vec();
            deck.swap(0, 5);
            deck
        };
        for preset in [Preset::Standard, Preset::Cutthroat, Preset::TwoHandedPlain] {
            for viewer in viewers(preset) {
                let verdict = watch_hand(preset, viewer, 0, swapped);
                assert!(
                    matches!(
                        verdict,
                        Verdict::Mismatch(Mismatch::Hand { .. } | Mismatch::NotHeld { .. })
                    ),
                    "{preset:?} {viewer:?}: {verdict:?}"
                );
                assert!(verdict.to_string().starts_with("deal does not match: seat"), "{verdict}");
            }
        }
    }

    #[test]
    fn a_commitment_that_came_after_the_first_bid_is_not_verified() {
        let verdict = watch_hand(Preset::Standard, Viewer::Seat(Seat(2)), 1, <[Card]>::to_vec);
        assert_eq!(verdict, Verdict::NotChecked(Unchecked::CommittedLate));
        assert_eq!(
            verdict.to_string(),
            "deal not checked: its commitment came after the bidding had begun"
        );
    }
}
