// This page's own check of a revealed deal (docs/security.md, "Provably
// fair deals"): what this client saw of a hand, held against the deck and
// salt the server reveals when the hand ends. A matching hash alone proves
// little: a dishonest server could commit to one deck, deal another and
// reveal the first. So a reveal is 'verified' only if
//   - the deck is exactly the game's pack, each card once;
//   - the commitment came before anything else of the hand (the first bid);
//   - the up-card and the hand this client was dealt are the deck's;
//   - every card seen leave a seat (played, discarded where shown, passed,
//     claimed) was that seat's to give: its part of the deck, with what
//     came its way (the up-card for the dealer who picked it up, the dummy
//     for its taker, a card passed to it), and none is seen twice;
//   - the deck and salt hash to the commitment.
// Otherwise it is 'mismatch' (worse: the reveal contradicts what was seen
// or sent) or 'not_checked', each with the reason in words. The same check
// as the engine's (crates/engine/src/fairness/witness.rs). No DOM: node's
// tests run it (tests/browser/model.test.mjs).

import { JOKER } from './cards.js';
import { canHash, opens } from './seal.js';

const HAND_SIZE = 5;
const DUMMY_SIZE = 3;
const LOWEST_RANK = { ten_to_ace: 'T', nine_to_ace: '9', eight_to_ace: '8', seven_to_ace: '7' };
const RANKS = '789TJQKA';

// Every card of the rules' pack, as the protocol writes them.
export function packOf(rules) {
  const ranks = RANKS.slice(RANKS.indexOf(LOWEST_RANK[rules?.deck ?? 'nine_to_ace'] ?? '9'));
  const cards = [...'shcd'].flatMap((suit) => [...ranks].map((rank) => rank + suit));
  return rules?.joker ? [...cards, JOKER] : cards;
}

// The parts of a deck in the committed order: each seat's hand, the dummy
// (where the rules deal one), the up-card, the rest of the kitty. Returns
// { parts } or, if it is not exactly the pack, { error } in words.
export function partsOf(rules, deck) {
  const pack = packOf(rules);
  if (!Array.isArray(deck) || deck.length !== pack.length) {
    return { error: `the revealed deck holds ${deck?.length ?? 0} cards, not the pack's ${pack.length}` };
  }
  const seen = new Set();
  for (const card of deck) {
    if (!pack.includes(card)) return { error: `${card} is not in this pack` };
    if (seen.has(card)) return { error: `${card} is in the revealed deck twice` };
    seen.add(card);
  }
  const players = rules?.players ?? 4;
  const hands = Array.from({ length: players }, (_, seat) => deck.slice(seat * HAND_SIZE, (seat + 1) * HAND_SIZE));
  const dummyAt = players * HAND_SIZE;
  const dummy = deck.slice(dummyAt, dummyAt + (rules?.dummy ? DUMMY_SIZE : 0));
  return { parts: { hands, dummy, upCard: deck[dummyAt + dummy.length] } };
}

export const newWitness = () => ({ watched: null });

function watch(witness, hand) {
  if (witness.watched?.hand !== hand) {
    witness.watched = { hand, dealt: null, commitment: null, late: false, events: [] };
  }
  return witness.watched;
}

// A game event this client was sent (as the protocol has it). A deal
// starts a new hand.
export function saw(witness, event) {
  if (event.event === 'hand_dealt') {
    witness.watched = {
      hand: event.number,
      dealt: { dealer: event.dealer, upCard: event.up_card, shown: event.hands ?? [] },
      commitment: null,
      late: false,
      events: [],
    };
  } else if (witness.watched) {
    witness.watched.events.push(event);
  }
}

// The commitment to `hand`'s deal came (`deal_committed`).
export function committed(witness, hand, commitment) {
  const watched = watch(witness, hand);
  if (watched.commitment) return;
  watched.late = watched.events.length > 0;
  watched.commitment = commitment;
}

// A snapshot's game view and commitment (on joining, or after events were
// lost). A hand nobody has acted in yet is as good as seen dealt;
// otherwise what was seen of it stands, and a commitment first known now
// came late.
export function joined(witness, view, commitment) {
  if (!view) return;
  // The same number but another deal: a new game's hand.
  const dealt = witness.watched?.dealt;
  if (dealt && (dealt.dealer !== view.dealer || dealt.upCard !== view.up_card)) witness.watched = null;
  const watched = watch(witness, view.hand_number);
  const untouched = (view.bids ?? []).length === 0 && !view.joker_suit && (view.tricks ?? []).length === 0;
  if (untouched && !watched.dealt) {
    const shown = [];
    const seat = view.viewer === 'spectator' ? null : view.viewer?.seat;
    if (seat !== null && seat !== undefined && view.hand) shown[seat] = view.hand;
    watched.dealt = { dealer: view.dealer, upCard: view.up_card, shown };
  }
  if (!watched.commitment && commitment) {
    watched.commitment = commitment;
    watched.late = !untouched;
  }
}

// The commitment to the hand being played, if one came: { hand, commitment }.
export function commitmentOf(witness) {
  const watched = witness.watched;
  return watched?.commitment ? { hand: watched.hand, commitment: watched.commitment } : null;
}

const sameCards = (a, b) => a.length === b.length && a.every((card) => b.includes(card));

// Whether what was seen of the hand fits the deck's parts: null if it does,
// else the contradiction in words.
function contradiction(parts, dealt, events) {
  const { hands, dummy, upCard } = parts;
  if (dealt.upCard !== upCard) return `the up-card was ${dealt.upCard}, the revealed deck says ${upCard}`;
  for (const [seat, shown] of dealt.shown.entries()) {
    if (shown && !sameCards(shown, hands[seat] ?? [])) {
      return `seat ${seat} was dealt other cards than the revealed deck gives it`;
    }
  }
  // What each seat may still give: its part, and what came its way.
  const held = hands.map((hand) => new Set(hand));
  const give = (seat, card) => {
    if (!held[seat]?.has(card)) return `seat ${seat} gave ${card}, which the revealed deck did not give it`;
    held.forEach((cards) => cards.delete(card)); // a card is given once
    return null;
  };
  for (const event of events) {
    let wrong = null;
    switch (event.event) {
      case 'up_card_turned_down':
      case 'up_card_picked_up':
        if (event.card !== upCard) return `the up-card was ${event.card}, the revealed deck says ${upCard}`;
        if (event.event === 'up_card_picked_up') held[event.dealer]?.add(event.card);
        break;
      case 'dummy_taken':
        if (event.cards && !sameCards(event.cards, dummy)) {
          return `seat ${event.seat} took another dummy than the revealed deck holds`;
        }
        dummy.forEach((card) => held[event.seat]?.add(card));
        break;
      case 'discarded':
        if (event.card) wrong = give(event.seat, event.card);
        break;
      case 'card_played':
        wrong = give(event.seat, event.card);
        break;
      case 'card_passed':
        if (event.card) {
          wrong = give(event.from, event.card);
          held[event.to]?.add(event.card);
        } else {
          // Unseen here: any card the passer held may have come.
          held[event.from]?.forEach((card) => held[event.to]?.add(card));
        }
        break;
      case 'claimed': {
        const card = event.cards.find((c) => !held[event.seat]?.has(c));
        if (card) return `seat ${event.seat} gave ${card}, which the revealed deck did not give it`;
        break;
      }
      default:
        break;
    }
    if (wrong) return wrong;
  }
  return null;
}

// The verdict on hand `hand` revealed as `deck` and `salt`, without the
// hash: `opensCommitment` says whether they hash to the commitment (null:
// this page cannot hash). { check: 'verified' | 'mismatch' | 'not_checked', why }.
export function verdict(witness, rules, hand, deck, opensCommitment) {
  const { parts, error } = partsOf(rules, deck);
  if (error) return { check: 'mismatch', why: `the revealed deck is not the pack (${error})` };
  const watched = witness.watched?.hand === hand ? witness.watched : null;
  if (!watched) return { check: 'not_checked', why: 'this client did not see the hand dealt' };
  if (watched.commitment && opensCommitment === false) {
    return { check: 'mismatch', why: 'the revealed deck and salt do not hash to the commitment' };
  }
  const wrong = watched.dealt ? contradiction(parts, watched.dealt, watched.events) : null;
  if (wrong) return { check: 'mismatch', why: wrong };
  if (!watched.commitment) return { check: 'not_checked', why: 'no commitment to this hand was seen' };
  if (!watched.dealt) return { check: 'not_checked', why: 'this client did not see the hand dealt' };
  if (watched.late) return { check: 'not_checked', why: 'its commitment came after the bidding had begun' };
  if (opensCommitment === null) {
    return { check: 'not_checked', why: 'this page cannot hash (Web Crypto needs https or localhost)' };
  }
  return { check: 'verified', why: null };
}

// The whole check of a reveal, hashing it here when the page can.
// What was seen is taken now: the next deal may come while it hashes.
export async function revealed(witness, rules, hand, deck, salt) {
  const seen = { watched: witness.watched };
  const commitment = seen.watched?.hand === hand ? seen.watched.commitment : null;
  const hashes = commitment && canHash() ? await opens(deck, salt, commitment) : null;
  return verdict(seen, rules, hand, deck, hashes);
}
