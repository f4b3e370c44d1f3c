// The client's model without a browser: the display order of a hand, and
// the hand of docs/protocol.md's transcript applied event by event.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './support.mjs';

// web/js is served as ES modules; Node needs to be told so: a copy with a
// package.json saying "module".
const copy = mkdtempSync(join(tmpdir(), 'euchre-web-'));
cpSync(join(ROOT, 'web', 'js'), copy, { recursive: true });
writeFileSync(join(copy, 'package.json'), '{"type":"module"}');
const cards = await import(pathToFileURL(join(copy, 'cards.js')));
const model = await import(pathToFileURL(join(copy, 'model.js')));
// The views' words (no DOM needed to import them or for these functions).
const tableText = await import(pathToFileURL(join(copy, 'text.js')));
const historyView = await import(pathToFileURL(join(copy, 'history.js')));
const seal = await import(pathToFileURL(join(copy, 'seal.js')));
const witness = await import(pathToFileURL(join(copy, 'witness.js')));
const analysis = await import(pathToFileURL(join(copy, 'analysis.js')));
// The lobby's list as the server pages it (the view's DOM is built only when drawn).
const lobby = await import(pathToFileURL(join(copy, 'lobby.js')));
rmSync(copy, { recursive: true, force: true });

test('a hand is shown trump first, bowers on top, as the server sorts it', () => {
  const hand = ['9h', 'Jd', 'As', 'Jh', 'Qd', 'Tc'];
  assert.deepEqual(cards.sortForDisplay(hand, 'hearts'), ['Jh', 'Jd', '9h', 'As', 'Tc', 'Qd']);
  assert.deepEqual(cards.sortForDisplay(hand, null), ['As', 'Jh', '9h', 'Tc', 'Qd', 'Jd']);
  assert.equal(cards.effectiveSuit('Jc', 'spades'), 'spades');
  assert.equal(cards.cardName('Tc'), 'Ten of clubs');
});

const rules = {
  players: 4, deck: 'nine_to_ace', points_to_win: 10, all_pass: 'redeal',
  scoring: { made: 1, march: 2, lone_march: 4, euchre: 2, lone_euchre: 2 },
  dealer_may_discard_up_card: true, dealer_picks_up_for_partner_loner: true,
  turned_down_suit: 'rejected', loner_lead: 'left_of_dealer', farmers_hand: false, first_dealer: 'first_jack',
};

function snapshot() {
  return {
    type: 'snapshot', table: 't1', seq: 1,
    state: {
      summary: { table: 't1', host: 'Ann', preset: 'standard', rules, private: false, seated: 4, status: 'open', chat: true },
      seats: [
        { kind: 'player', player: { id: 'p1', name: 'Ann' }, connected: true },
        { kind: 'bot', bot: 'basic' }, { kind: 'bot', bot: 'basic' }, { kind: 'bot', bot: 'basic' },
      ],
      your_seat: 0,
      actions: [],
    },
  };
}

// The events of docs/protocol.md's transcript, seq 2 to 33.
const EVENTS = [
  { event: 'game_started', game: 1, rules },
  { event: 'hand_dealt', number: 0, dealer: 2, up_card: 'Td', hands: [['Th', 'Jh', 'Qh', 'Kh', '9d'], null, null, null] },
  { event: 'passed', seat: 3 },
  { event: 'trump_made', seat: 0, suit: 'diamonds', alone: false },
  { event: 'up_card_picked_up', dealer: 2, card: 'Td' },
  { event: 'discarded', seat: 2, card: null },
  { event: 'card_played', seat: 3, card: 'Ah' },
  { event: 'card_played', seat: 0, card: 'Th' },
  { event: 'card_played', seat: 1, card: '9c' },
  { event: 'card_played', seat: 2, card: '9h' },
  { event: 'trick_won', seat: 3, number: 1 },
  { event: 'card_played', seat: 3, card: 'Ts' },
  { event: 'card_played', seat: 0, card: 'Jh' },
  { event: 'card_played', seat: 1, card: 'Qs' },
  { event: 'card_played', seat: 2, card: 'Tc' },
  { event: 'trick_won', seat: 0, number: 2 },
  { event: 'card_played', seat: 0, card: 'Qh' },
  { event: 'card_played', seat: 1, card: 'Kc' },
  { event: 'card_played', seat: 2, card: 'Td' },
  { event: 'card_played', seat: 3, card: 'Qd' },
  { event: 'trick_won', seat: 3, number: 3 },
  { event: 'card_played', seat: 3, card: 'Js' },
  { event: 'card_played', seat: 0, card: 'Kh' },
  { event: 'card_played', seat: 1, card: 'Ks' },
  { event: 'card_played', seat: 2, card: 'Ad' },
  { event: 'trick_won', seat: 2, number: 4 },
  { event: 'card_played', seat: 2, card: 'Qc' },
  { event: 'card_played', seat: 3, card: 'Jc' },
  { event: 'card_played', seat: 0, card: '9d' },
  { event: 'card_played', seat: 1, card: 'As' },
  { event: 'trick_won', seat: 0, number: 5 },
  {
    event: 'hand_ended',
    outcome: { ending: 'played', maker: 0, trump: 'diamonds', alone: false, tricks: [3, 2], points: [1, 0] },
    scores: [1, 0],
  },
];

test("the transcript's hand, applied event by event", () => {
  const table = model.fromSnapshot(snapshot());
  const at = (seq) => EVENTS.slice(0, seq - 1).forEach((event, i) => {
    if (i + 2 > table.seq) model.applyEvent(table, { type: 'event', table: 't1', seq: i + 2, event });
  });
  at(3);
  assert.equal(table.summary.status, 'playing');
  assert.deepEqual(table.game.hand, ['Kh', 'Qh', 'Jh', 'Th', '9d']);
  assert.equal(table.game.turn, 3);
  at(4);
  assert.equal(table.game.turn, 0, 'after seat 3 passes, seat 0 bids');
  at(5);
  // Trump is diamonds: the jack of hearts is the left bower and goes first.
  assert.deepEqual(table.game.hand, ['Jh', '9d', 'Kh', 'Qh', 'Th']);
  at(6);
  assert.equal(table.game.phase, 'dealer_discard');
  assert.equal(table.game.turn, 2);
  at(7);
  assert.equal(table.game.phase, 'playing');
  assert.equal(table.game.turn, 3, 'left of the dealer leads');
  at(12);
  assert.equal(table.game.tricks[0].winner, 3);
  assert.deepEqual(table.game.tricks_won, [0, 1]);
  assert.equal(table.game.turn, 3);
  assert.equal(model.applyEvent(table, { type: 'event', table: 't1', seq: 12, event: EVENTS[10] }), false, 'a repeated seq is skipped');
  assert.deepEqual(table.game.tricks_won, [0, 1]);
  at(33);
  assert.deepEqual(table.game.hand, []);
  assert.deepEqual(table.game.tricks_won, [3, 2]);
  assert.deepEqual(table.game.scores, [1, 0]);
  assert.equal(table.game.phase, 'finished');
  assert.equal(table.game.last_outcome.maker, 0);
});

test('hints are offered at a practice table only, and a hint goes with the next move', () => {
  const table = model.fromSnapshot(snapshot());
  assert.equal(model.practiceTable(table), true, 'every other seat a bot');
  const withPerson = model.fromSnapshot(snapshot());
  withPerson.seats[2] = { kind: 'player', player: { id: 'p2', name: 'Bo' }, connected: true };
  assert.equal(model.practiceTable(withPerson), false, 'another person seated');
  const watching = model.fromSnapshot({ ...snapshot(), state: { ...snapshot().state, your_seat: undefined } });
  assert.equal(model.practiceTable(watching), false, 'a spectator asks no hints');
  // Refused once (a tournament's table): not offered again, even after a snapshot.
  table.noHints = true;
  assert.equal(model.practiceTable(model.fromSnapshot(snapshot(), table)), false);

  const playing = model.fromSnapshot(snapshot());
  EVENTS.slice(0, 2).forEach((event, i) => model.applyEvent(playing, { type: 'event', table: 't1', seq: i + 2, event }));
  playing.hint = { action: { action: 'order_up', alone: false }, why: 'because' };
  assert.equal(tableText.actionText(playing, playing.hint.action), 'Order up ♦ Diamonds');
  assert.equal(tableText.actionText(playing, { action: 'call', suit: 'spades', alone: true }), '♠ Spades alone');
  assert.equal(tableText.actionText(playing, { action: 'play', card: 'Jh' }), 'Play Jack of hearts');
  model.applyEvent(playing, { type: 'event', table: 't1', seq: 4, event: EVENTS[2] });
  assert.equal(playing.hint, null, 'a move ends the hint');
});

test("a hand's review in words: the mistake and the better choice, or none; kept across a snapshot", () => {
  const playing = model.fromSnapshot(snapshot());
  EVENTS.slice(0, 2).forEach((event, i) => model.applyEvent(playing, { type: 'event', table: 't1', seq: i + 2, event }));
  assert.equal(tableText.reviewText(playing, null), 'No mistake this hand.');
  const mistake = { index: 1, chosen: { action: 'pass' }, better: { action: 'order_up', alone: false }, points_lost: 0.83, mark: 'blunder' };
  assert.equal(tableText.reviewText(playing, mistake),
    'Your biggest mistake this hand (a blunder): you chose “Pass”; “Order up ♦ Diamonds” was better (−0.8 points expected).');
  const played = { ...mistake, chosen: { action: 'play', card: '9d' }, better: { action: 'play', card: 'Jh' }, points_lost: 1.26, mark: 'inaccuracy' };
  assert.equal(tableText.reviewText(playing, played),
    'Your biggest mistake this hand (an inaccuracy): you chose “Play Nine of diamonds”; “Play Jack of hearts” was better (−1.3 points expected).');
  playing.review = { hand: 0, text: 'No mistake this hand.', at: 1 };
  assert.equal(model.fromSnapshot(snapshot(), playing).review, playing.review, 'a snapshot keeps the review on screen');
});

test('a placeholder takes its seq and changes nothing else', () => {
  const table = model.fromSnapshot(snapshot());
  assert.equal(model.applyEvent(table, { type: 'event', table: 't1', seq: 2 }), true);
  assert.equal(table.seq, 2);
  assert.equal(table.game, null);
});

test('a lone maker: the partner sits out and play skips that seat', () => {
  const table = model.fromSnapshot(snapshot());
  const events = [
    { event: 'game_started', game: 1, rules },
    { event: 'hand_dealt', number: 0, dealer: 3, up_card: 'Ad', hands: [['9s', 'Ts', 'Js', 'Qs', 'Ks'], null, null, null] },
    { event: 'passed', seat: 0 },
    { event: 'passed', seat: 1 },
    { event: 'passed', seat: 2 },
    { event: 'passed', seat: 3 },
    { event: 'up_card_turned_down', card: 'Ad' },
    { event: 'trump_made', seat: 0, suit: 'spades', alone: true },
    { event: 'sits_out', seat: 2 },
    { event: 'card_played', seat: 0, card: 'Js' },
    { event: 'card_played', seat: 1, card: '9h' },
  ];
  events.forEach((event, i) => model.applyEvent(table, { type: 'event', table: 't1', seq: i + 2, event }));
  assert.equal(table.game.sitting_out, 2);
  assert.equal(table.game.turn, 3, 'seat 2 sits out: seat 3 plays next');
  assert.deepEqual(table.game.bids.at(-1), [0, { action: 'call', suit: 'spades', alone: true }]);
});

// The events of a hand as the engine sends them (crates/engine/src/hand.rs),
// from seq 2, to a fresh table seen from `yourSeat`.
function play(events, { yourSeat = 0, options = {} } = {}) {
  const snap = snapshot();
  snap.state.your_seat = yourSeat;
  const table = model.fromSnapshot(snap);
  const withOptions = { ...rules, ...options };
  const all = [{ event: 'game_started', game: 1, rules: withOptions }, ...events];
  all.forEach((event, i) => model.applyEvent(table, { type: 'event', table: 't1', seq: i + 2, event }));
  return table;
}

const DEAL = { event: 'hand_dealt', number: 0, dealer: 3, up_card: 'Ad', hands: [['9s', 'Ts', 'Js', 'Qs', 'Ks'], null, null, null] };

test('defend alone: a lone defender, both partners sit out, play alternates between the two', () => {
  const events = [
    DEAL,
    { event: 'trump_made', seat: 0, suit: 'diamonds', alone: true },
    { event: 'up_card_picked_up', dealer: 3, card: 'Ad' },
  ];
  let table = play(events, { options: { defend_alone: true } });
  assert.equal(table.game.phase, 'dealer_discard');
  assert.equal(table.game.turn, 3);
  events.push({ event: 'discarded', seat: 3, card: null }, { event: 'sits_out', seat: 2 });
  table = play(events, { options: { defend_alone: true } });
  assert.equal(table.game.phase, 'defending_alone');
  assert.equal(table.game.turn, 1, "the loner's left answers first");
  events.push({ event: 'defends_alone', seat: 1 }, { event: 'sits_out', seat: 3 });
  table = play(events, { options: { defend_alone: true } });
  assert.equal(table.game.phase, 'playing');
  assert.deepEqual([...model.sittingOut(table.game)].sort(), [2, 3]);
  assert.equal(table.game.lone_defender, 1);
  assert.equal(table.game.turn, 0, 'left of the dealer, skipping nobody: seat 0 leads');
  events.push({ event: 'card_played', seat: 0, card: 'Js' });
  table = play(events, { options: { defend_alone: true } });
  assert.equal(table.game.turn, 1);
  events.push({ event: 'card_played', seat: 1, card: '9h' });
  table = play(events, { options: { defend_alone: true } });
  assert.equal(table.game.turn, 0);
});

test('defend alone: both defenders pass, then the loner plays against two', () => {
  const events = [
    DEAL,
    { event: 'passed', seat: 0 }, { event: 'passed', seat: 1 }, { event: 'passed', seat: 2 }, { event: 'passed', seat: 3 },
    { event: 'up_card_turned_down', card: 'Ad' },
    { event: 'passed', seat: 0 },
    { event: 'trump_made', seat: 1, suit: 'spades', alone: true },
    { event: 'sits_out', seat: 3 },
  ];
  let table = play(events, { options: { defend_alone: true } });
  assert.equal(table.game.phase, 'defending_alone');
  assert.equal(table.game.turn, 2, "seat 1's left answers first");
  events.push({ event: 'passed', seat: 2 });
  table = play(events, { options: { defend_alone: true } });
  assert.equal(table.game.turn, 0, 'then his right');
  events.push({ event: 'passed', seat: 0 });
  table = play(events, { options: { defend_alone: true } });
  assert.equal(table.game.phase, 'playing');
  assert.equal(table.game.turn, 0, 'left of the dealer leads');
  assert.deepEqual([...model.sittingOut(table.game)], [3]);
});

test('call for best: the partner passes a card only the two of them see, the loner discards one of six', () => {
  const events = [
    DEAL,
    { event: 'trump_made', seat: 0, suit: 'diamonds', alone: true },
    { event: 'up_card_picked_up', dealer: 3, card: 'Ad' },
    { event: 'discarded', seat: 3, card: null },
  ];
  let table = play(events, { options: { call_for_best: true } });
  assert.equal(table.game.phase, 'passing_best');
  assert.equal(table.game.turn, 2, "the loner's partner passes");
  assert.deepEqual([...model.sittingOut(table.game)], [], 'nobody sits out yet');
  // Seen by the loner: the card joins his hand.
  const loner = [...events, { event: 'card_passed', from: 2, to: 0, card: 'Jd' }];
  table = play(loner, { options: { call_for_best: true } });
  assert.equal(table.game.phase, 'loner_discard');
  assert.equal(table.game.turn, 0);
  assert.equal(table.game.passed_card, 'Jd');
  assert.equal(table.game.hand.length, 6);
  assert.equal(table.game.hand[0], 'Jd', 'the right bower goes first');
  assert.deepEqual(table.game.hand_sizes, [6, 5, 4, 5]);
  loner.push({ event: 'discarded', seat: 0, card: '9s' }, { event: 'sits_out', seat: 2 });
  table = play(loner, { options: { call_for_best: true } });
  assert.equal(table.game.phase, 'playing');
  assert.equal(table.game.loner_discard, '9s');
  assert.equal(table.game.discard, null, "the loner's discard is not the dealer's");
  assert.equal(table.game.hand.length, 5);
  assert.deepEqual([...model.sittingOut(table.game)], [2]);
  assert.equal(table.game.turn, 0, 'left of the dealer leads');
  // Seen by a defender: a card went, face down.
  const defender = [...events, { event: 'card_passed', from: 2, to: 0, card: null }, { event: 'discarded', seat: 0, card: null }, { event: 'sits_out', seat: 2 }];
  table = play(defender, { yourSeat: 1, options: { call_for_best: true } });
  assert.equal(table.game.passed_card, null);
  assert.equal(table.game.phase, 'playing');
  assert.deepEqual(table.game.hand_sizes, [5, 5, 4, 5]);
});

test('call for best and defend alone together: the exchange first, then the defenders answer', () => {
  const events = [
    DEAL,
    { event: 'passed', seat: 0 }, { event: 'passed', seat: 1 }, { event: 'passed', seat: 2 }, { event: 'passed', seat: 3 },
    { event: 'up_card_turned_down', card: 'Ad' },
    { event: 'trump_made', seat: 0, suit: 'spades', alone: true },
  ];
  const options = { call_for_best: true, defend_alone: true, loner_lead: 'left_of_loner' };
  let table = play(events, { options });
  assert.equal(table.game.phase, 'passing_best');
  events.push({ event: 'card_passed', from: 2, to: 0, card: 'Ah' }, { event: 'discarded', seat: 0, card: 'Ah' }, { event: 'sits_out', seat: 2 });
  table = play(events, { options });
  assert.equal(table.game.phase, 'defending_alone');
  assert.equal(table.game.turn, 1);
  events.push({ event: 'passed', seat: 1 }, { event: 'defends_alone', seat: 3 }, { event: 'sits_out', seat: 1 });
  table = play(events, { options });
  assert.equal(table.game.phase, 'playing');
  assert.deepEqual([...model.sittingOut(table.game)].sort(), [1, 2]);
  assert.equal(table.game.turn, 3, 'left of the loner, skipping seats out: the lone defender leads');
});

test('a trick won is remembered past the next deal, for the view to hold', () => {
  const table = model.fromSnapshot(snapshot());
  EVENTS.forEach((event, i) => model.applyEvent(table, { type: 'event', table: 't1', seq: i + 2, event }));
  model.applyEvent(table, { type: 'event', table: 't1', seq: 34, event: { ...DEAL, number: 1 } });
  assert.equal(table.game.tricks.length, 0);
  assert.equal(table.game.last_trick.key, '0-5');
  assert.equal(table.game.last_trick.trick.winner, 0);
});

test('from a snapshot taken while the defenders answer, the events carry on', () => {
  const snap = snapshot();
  snap.seq = 20;
  snap.state.your_seat = 1;
  snap.state.summary.status = 'playing';
  snap.state.summary.rules = { ...rules, defend_alone: true };
  snap.state.game = {
    viewer: { seat: 1 }, rules: { ...rules, defend_alone: true }, hand_number: 0, dealer: 3, phase: 'defending_alone', turn: 1,
    scores: [0, 0], winner: null, up_card: 'Ad', up_card_picked_up: false, turned_down: 'diamonds', trump: 'spades', maker: 0,
    alone: true, sitting_out: 2, lone_defender: null, hand: ['Js', 'As', '9h', 'Th', 'Qc'], hand_sizes: [5, 5, 5, 5],
    discard: null, passed_card: null, loner_discard: null, bids: [], tricks: [], tricks_won: [0, 0], last_outcome: null,
  };
  snap.state.actions = [{ action: 'pass' }, { action: 'defend_alone' }];
  const table = model.fromSnapshot(snap);
  assert.deepEqual(table.prompt.actions.map((a) => a.action), ['pass', 'defend_alone']);
  const events = [{ event: 'passed', seat: 1 }, { event: 'defends_alone', seat: 3 }, { event: 'sits_out', seat: 1 }];
  events.forEach((event, i) => model.applyEvent(table, { type: 'event', table: 't1', seq: 21 + i, event }));
  assert.equal(table.game.phase, 'playing');
  assert.deepEqual([...model.sittingOut(table.game)].sort(), [1, 2]);
  assert.equal(table.game.turn, 0, 'seats 1 and 2 sit out: after the dealer (3) comes the loner');
  assert.equal(table.prompt, null);
});

test('the joker: the highest trump, first in the hand before trump and after, named "Joker"', () => {
  const hand = ['9h', 'Jd', 'JK', 'As', 'Jh', 'Qd'];
  assert.deepEqual(cards.sortForDisplay(hand, 'hearts'), ['JK', 'Jh', 'Jd', '9h', 'As', 'Qd']);
  assert.deepEqual(cards.sortForDisplay(hand, 'spades'), ['JK', 'As', 'Jh', '9h', 'Qd', 'Jd']);
  assert.deepEqual(cards.sortForDisplay(hand, null), ['JK', 'As', 'Jh', '9h', 'Qd', 'Jd']);
  assert.equal(cards.effectiveSuit('JK', 'clubs'), 'clubs', 'it follows trump');
  assert.equal(cards.effectiveSuit('JK', null), null, 'before trump it has no suit');
  assert.equal(cards.suitOf('JK'), null);
  assert.equal(cards.cardName('JK'), 'Joker');
  assert.equal(cards.cardShort('JK'), '★Joker');
  assert.equal(cards.suitClass('JK'), 'joker');
  assert.equal(cards.suitClass('Qd'), 'suit-diamonds');
  assert.equal(cards.upSuit('JK', null), null);
  assert.equal(cards.upSuit('JK', 'spades'), 'spades');
  assert.equal(cards.upSuit('Td', null), 'diamonds');
});

const JOKER_UP = { event: 'hand_dealt', number: 0, dealer: 3, up_card: 'JK', hands: [null, null, null, ['9s', 'Ts', 'Jc', 'Qh', 'Ad']] };

test('a joker turned up: the dealer names its suit, round one is about that suit, he picks the joker up', () => {
  const options = { joker: true };
  const events = [JOKER_UP];
  let table = play(events, { yourSeat: 3, options });
  assert.equal(table.game.phase, 'naming_joker_suit');
  assert.equal(table.game.turn, 3, 'the dealer names it');
  assert.equal(table.game.joker_suit, null);
  events.push({ event: 'joker_suit_named', dealer: 3, suit: 'hearts' });
  table = play(events, { yourSeat: 3, options });
  assert.equal(table.game.phase, 'ordering_up');
  assert.equal(table.game.joker_suit, 'hearts');
  assert.equal(table.game.turn, 0, "then round one from the dealer's left");
  assert.deepEqual(table.game.bids, [], 'naming is not a bid');
  events.push({ event: 'passed', seat: 0 }, { event: 'trump_made', seat: 1, suit: 'hearts', alone: false });
  table = play(events, { yourSeat: 3, options });
  assert.equal(table.game.phase, 'dealer_discard');
  assert.equal(table.game.turn, 3);
  assert.deepEqual(table.game.bids.at(-1), [1, { action: 'order_up', alone: false }]);
  events.push({ event: 'up_card_picked_up', dealer: 3, card: 'JK' });
  table = play(events, { yourSeat: 3, options });
  assert.deepEqual(table.game.hand, ['JK', 'Qh', 'Ts', '9s', 'Jc', 'Ad'], 'the joker tops the trumps');
  assert.deepEqual(table.game.hand_sizes, [5, 5, 5, 6]);
  events.push({ event: 'discarded', seat: 3, card: '9s' }, { event: 'card_played', seat: 0, card: 'Ah' });
  table = play(events, { yourSeat: 3, options });
  assert.equal(table.game.phase, 'playing');
  assert.equal(table.game.turn, 1);
  assert.equal(table.game.joker_suit, 'hearts', 'still known through the hand');
  // The next deal forgets it.
  events.push({ event: 'hand_dealt', number: 1, dealer: 0, up_card: '9c', hands: [null, null, null, ['9s', 'Ts', 'Jc', 'Qh', 'Ad']] });
  table = play(events, { yourSeat: 3, options });
  assert.equal(table.game.joker_suit, null);
  assert.equal(table.game.phase, 'ordering_up');
});

test('a joker turned down: the named suit is the turned-down one', () => {
  const events = [
    JOKER_UP,
    { event: 'joker_suit_named', dealer: 3, suit: 'clubs' },
    { event: 'passed', seat: 0 }, { event: 'passed', seat: 1 }, { event: 'passed', seat: 2 }, { event: 'passed', seat: 3 },
    { event: 'up_card_turned_down', card: 'JK' },
  ];
  const table = play(events, { yourSeat: 1, options: { joker: true } });
  assert.equal(table.game.phase, 'calling');
  assert.equal(table.game.turned_down, 'clubs');
  assert.equal(table.game.turn, 0);
  assert.equal(table.game.hand.length, 0, 'seat 1 was dealt nothing in this test');
});

test('from a snapshot taken while the dealer names the joker\'s suit, the events carry on', () => {
  const snap = snapshot();
  snap.seq = 5;
  snap.state.your_seat = 2;
  snap.state.summary.status = 'playing';
  snap.state.summary.rules = { ...rules, joker: true };
  snap.state.game = {
    viewer: { seat: 2 }, rules: { ...rules, joker: true }, hand_number: 0, dealer: 2, phase: 'naming_joker_suit', turn: 2,
    scores: [0, 0], winner: null, up_card: 'JK', joker_suit: null, up_card_picked_up: false, turned_down: null, trump: null, maker: null,
    alone: false, sitting_out: null, lone_defender: null, hand: ['As', 'Ks', '9h', 'Th', 'Qc'], hand_sizes: [5, 5, 5, 5],
    discard: null, passed_card: null, loner_discard: null, bids: [], tricks: [], tricks_won: [0, 0], last_outcome: null,
  };
  snap.state.actions = ['spades', 'hearts', 'clubs', 'diamonds'].map((suit) => ({ action: 'name_suit', suit }));
  const table = model.fromSnapshot(snap);
  assert.equal(table.prompt.actions.length, 4);
  model.applyEvent(table, { type: 'event', table: 't1', seq: 6, event: { event: 'joker_suit_named', dealer: 2, suit: 'spades' } });
  assert.equal(table.prompt, null);
  assert.equal(table.game.joker_suit, 'spades');
  assert.equal(table.game.phase, 'ordering_up');
  assert.equal(table.game.turn, 3);
  model.applyEvent(table, { type: 'event', table: 't1', seq: 7, event: { event: 'trump_made', seat: 3, suit: 'spades', alone: false } });
  model.applyEvent(table, { type: 'event', table: 't1', seq: 8, event: { event: 'up_card_picked_up', dealer: 2, card: 'JK' } });
  assert.deepEqual(table.game.hand, ['JK', 'As', 'Ks', 'Th', '9h', 'Qc']);
});

test('no trump: called in round two, no trump suit, the hand keeps its suit-by-suit order', () => {
  const options = { allow_no_trump: true };
  const deal = { event: 'hand_dealt', number: 0, dealer: 3, up_card: 'Ad', hands: [['Jh', '9s', 'Qh', 'Js', 'Th'], null, null, null] };
  const events = [
    deal,
    { event: 'passed', seat: 0 }, { event: 'passed', seat: 1 }, { event: 'passed', seat: 2 }, { event: 'passed', seat: 3 },
    { event: 'up_card_turned_down', card: 'Ad' },
    { event: 'no_trump_called', seat: 0, alone: false },
  ];
  let table = play(events, { options });
  assert.equal(table.game.no_trump, true);
  assert.equal(table.game.trump, null);
  assert.equal(table.game.maker, 0);
  assert.equal(model.contractMade(table.game), true);
  assert.equal(table.game.phase, 'playing');
  assert.equal(table.game.turn, 0, 'left of the dealer leads');
  assert.deepEqual(table.game.bids.at(-1), [0, { action: 'call_no_trump', alone: false }]);
  // Jacks stay in their suits, between ten and queen.
  assert.deepEqual(table.game.hand, ['Js', '9s', 'Qh', 'Jh', 'Th']);
  assert.deepEqual(cards.sortForDisplay(['Jh', '9s', 'Qh', 'Js', 'Th', 'Jd'], null), ['Js', '9s', 'Qh', 'Jh', 'Th', 'Jd']);
  assert.equal(cards.effectiveSuit('Jd', null), 'diamonds', 'no left bower');
  events.push(
    { event: 'card_played', seat: 0, card: 'Qh' }, { event: 'card_played', seat: 1, card: 'Kh' },
    { event: 'card_played', seat: 2, card: 'Jd' }, { event: 'card_played', seat: 3, card: '9h' },
    { event: 'trick_won', seat: 1, number: 1 },
    { event: 'conceded', seat: 0 },
    { event: 'hand_ended', outcome: { ending: 'played', maker: 0, makers: 0, trump: null, alone: false, tricks: [0, 5], points: [0, 2] }, scores: [0, 2] },
  );
  table = play(events, { options });
  assert.equal(table.game.phase, 'finished');
  assert.equal(table.game.last_outcome.trump, null);
  // A lone call: the partner sits out.
  const alone = play([...events.slice(0, 6), { event: 'no_trump_called', seat: 1, alone: true }, { event: 'sits_out', seat: 3 }], { options });
  assert.equal(alone.game.alone, true);
  assert.deepEqual([...model.sittingOut(alone.game)], [3]);
  // The next deal forgets it.
  table = play([...events, { ...deal, number: 1, dealer: 0 }], { options });
  assert.equal(table.game.no_trump, false);
});

// A hand made by seat 0's side, its events from `number`'s deal to its end.
function madeHand(number, dealer, scores) {
  return [
    { event: 'hand_dealt', number, dealer, up_card: '9c', hands: [['Jc', 'Js', 'Ac', 'Kc', 'Qc'], null, null, null] },
    { event: 'trump_made', seat: 0, suit: 'clubs', alone: false },
    { event: 'up_card_picked_up', dealer, card: '9c' },
    { event: 'discarded', seat: dealer, card: null },
    { event: 'conceded', seat: 1 },
    { event: 'hand_ended', outcome: { ending: 'played', maker: 0, makers: 0, trump: 'clubs', alone: false, tricks: [5, 0], points: [2, 0] }, scores },
  ];
}

test('a rubber: a game won is not the end; the scores start again; rubber_won ends it', () => {
  const options = { rubber: true, points_to_win: 2 };
  const events = [
    ...madeHand(0, 3, [2, 0]),
    { event: 'game_won', team: 0, scores: [2, 0] },
  ];
  let table = play(events, { options });
  assert.equal(table.summary.status, 'playing', 'one game of three');
  assert.equal(table.game.winner, null);
  assert.deepEqual(model.gamesWon(table.rubber), [1, 0]);
  assert.equal(table.rubber.fresh, true);
  assert.equal(table.rubber.known, true);
  assert.deepEqual(table.game.scores, [2, 0], 'the game\'s final score until the next deal');
  events.push(...madeHand(1, 0, [2, 0]).slice(0, 1));
  table = play(events, { options });
  assert.deepEqual(table.game.scores, [0, 0], 'the next game starts at 0');
  assert.equal(table.rubber.fresh, true, 'the banner stays through the next game\'s first hand');
  events.push(...madeHand(1, 0, [2, 0]).slice(1));
  table = play(events, { options });
  assert.equal(table.rubber.fresh, false);
  events.push(
    { event: 'game_won', team: 0, scores: [2, 0] },
    { event: 'rubber_won', team: 0, result: { rubber_points: [6, 0], margin: 8 } },
  );
  table = play(events, { options });
  assert.equal(table.summary.status, 'finished');
  assert.equal(table.game.winner, 0);
  assert.deepEqual(model.gamesWon(table.rubber), [2, 0]);
  assert.deepEqual(table.rubber.result, { rubber_points: [6, 0], margin: 8 });
  // Without rubbers the game's end is the match's end, as before.
  const single = play([...madeHand(0, 3, [2, 0]), { event: 'game_won', team: 0, scores: [2, 0] }], { options: { points_to_win: 2 } });
  assert.equal(single.summary.status, 'finished');
  assert.equal(single.game.winner, 0);
});

test('a rubber seen again by a snapshot keeps its games; one first seen mid-rubber knows them from the view', () => {
  const options = { rubber: true, points_to_win: 2 };
  const before = play([...madeHand(0, 3, [2, 0]), { event: 'game_won', team: 0, scores: [2, 0] }, madeHand(1, 0, [0, 0])[0]], { options });
  const snap = snapshot();
  snap.seq = 40;
  snap.state.summary.status = 'playing';
  snap.state.summary.rules = { ...rules, ...options };
  snap.state.game = { ...before.game, hand_number: 1 };
  const again = model.fromSnapshot(snap, before);
  assert.deepEqual(model.gamesWon(again.rubber), [1, 0]);
  assert.equal(again.rubber.known, true);
  const fresh = model.fromSnapshot(snap);
  assert.equal(fresh.rubber.known, false);
  assert.deepEqual(model.gamesWon(fresh.rubber), [0, 0]);
  // The server's game view lists the games finished: a page loaded
  // mid-rubber knows them.
  snap.state.game = { ...snap.state.game, games: [{ winner: 1, scores: [1, 2], rubber_points: 2 }] };
  const reloaded = model.fromSnapshot(snap);
  assert.equal(reloaded.rubber.known, true);
  assert.deepEqual(model.gamesWon(reloaded.rubber), [0, 1]);
});

test('the words for no trump and for a rubber\'s games, at the table and in history', () => {
  const table = play([...madeHand(0, 3, [2, 0]), { event: 'game_won', team: 0, scores: [2, 0] }], { options: { rubber: true, points_to_win: 2, allow_no_trump: true } });
  const outcome = { ending: 'played', maker: 0, makers: 0, trump: null, alone: true, tricks: [5, 0], points: [4, 0] };
  assert.equal(tableText.outcomeText(table, outcome), 'Lone march! You called no trump alone and took 5 tricks: Us +4.');
  assert.equal(tableText.describe(table, { event: 'no_trump_called', seat: 1, alone: false }), 'Left bot called no trump. No trump: no bowers, the led suit wins.');
  assert.equal(tableText.gameBreakText(table), 'Game 1 to Us, 2–0; game 2 begins.');
  assert.equal(tableText.describe(table, { event: 'game_won', team: 0, scores: [2, 0] }), 'Game 1 to Us, 2–0; game 2 begins.');
  const who = { nameOf: (seat) => ['You', 'Left bot', 'Partner bot', 'Right bot'][seat], teamName: (team) => (team === 0 ? 'Us' : 'Them') };
  assert.equal(historyView.outcomeLine({ ...outcome, alone: false, tricks: [3, 2], points: [1, 0] }, who), 'Made it. You called no trump and took 3 tricks: Us +1.');

  // A rubber in the history API: games won, rubber points, the margin, and
  // each hand's game (a game ends at the hand whose score is its final one).
  const match = {
    winner: 1, finished: true,
    rubber: [
      { winner: 1, scores: [0, 2], rubber_points: 3 },
      { winner: 0, scores: [2, 1], rubber_points: 2 },
      { winner: 1, scores: [1, 2], rubber_points: 2 },
    ],
    hands: [[0, 0], [0, 2], [1, 0], [1, 1], [2, 1], [1, 0], [1, 2]].map((scores) => ({ scores })),
  };
  const summary = historyView.rubberSummary(match);
  assert.deepEqual(summary.won, [1, 2]);
  assert.deepEqual(summary.points, [2, 5]);
  assert.equal(summary.margin, 5);
  assert.deepEqual(historyView.gameOfHands(match), [0, 0, 1, 1, 1, 2, 2]);
  assert.equal(historyView.rubberSummary({ rubber: [], hands: [] }), null);
});

// ---- the two- and three-handed games ----

// Every option, as the server sends a table's rules.
const FOUR = {
  ...rules, dummy: false, scoring: { ...rules.scoring, defender_alone_euchre: 4 },
  canadian_loner: false, defend_alone: false, call_for_best: false, joker: false, allow_no_trump: false, rubber: false,
};
const THREE_HANDED = {
  ...FOUR, players: 3, dummy: true, all_pass: 'stick_the_dealer', scoring: { ...FOUR.scoring, lone_euchre: 4 },
};
const CUTTHROAT = { ...FOUR, players: 3, scoring: { ...FOUR.scoring, march: 3 } };
const TWO_HANDED_PLAIN = { ...FOUR, players: 2 };

// A fresh table of `form` (its seats: you and bots) seen from `yourSeat`,
// with `events` applied from seq 2.
function playForm(form, events, { yourSeat = 0, preset = 'three_handed' } = {}) {
  const seats = Array.from({ length: form.players }, (_, seat) => (seat === 0
    ? { kind: 'player', player: { id: 'p1', name: 'Ann' }, connected: true }
    : { kind: 'bot', bot: 'basic' }));
  const table = model.fromSnapshot({
    type: 'snapshot', table: 't3', seq: 1,
    state: {
      summary: { table: 't3', host: 'Ann', preset, rules: form, private: false, seated: form.players, status: 'open', chat: true },
      seats, your_seat: yourSeat, actions: [],
    },
  });
  [{ event: 'game_started', game: 1, rules: form }, ...events]
    .forEach((event, i) => model.applyEvent(table, { type: 'event', table: 't3', seq: i + 2, event }));
  return table;
}

test('three-handed: the maker takes the dummy and discards three, seen by him alone; play goes round three seats', () => {
  const deal = { event: 'hand_dealt', number: 0, dealer: 2, up_card: 'Ad', hands: [['9s', 'Ts', 'Js', 'Qs', 'Ks'], null, null, null] };
  const events = [
    deal,
    { event: 'passed', seat: 0 },
    { event: 'passed', seat: 1 },
    { event: 'passed', seat: 2 },
    { event: 'up_card_turned_down', card: 'Ad' },
    { event: 'trump_made', seat: 0, suit: 'spades', alone: false },
    { event: 'dummy_taken', seat: 0, cards: ['As', '9h', 'Tc'] },
    { event: 'discarded', seat: 0, card: '9h' },
    { event: 'discarded', seat: 0, card: 'Tc' },
  ];
  const mine = playForm(THREE_HANDED, events);
  assert.equal(mine.game.phase, 'dummy_discard');
  assert.equal(mine.game.turn, 0);
  assert.deepEqual(mine.game.hand, ['Js', 'As', 'Ks', 'Qs', 'Ts', '9s']);
  assert.deepEqual(mine.game.hand_sizes, [6, 5, 5, 0]);
  assert.deepEqual(mine.game.dummy_discards, ['9h', 'Tc']);
  model.applyEvent(mine, { type: 'event', table: 't3', seq: 12, event: { event: 'discarded', seat: 0, card: '9s' } });
  assert.equal(mine.game.phase, 'playing');
  assert.equal(mine.game.turn, 0, 'left of the dealer (seat 2) is seat 0');
  assert.deepEqual(mine.game.hand_sizes, [5, 5, 5, 0]);

  // The same hand at seat 1: the dummy and the discards stay hidden.
  const hidden = events.map((event) => ({
    ...event,
    ...(event.event === 'hand_dealt' ? { hands: [null, ['9c', 'Qc', 'Kc', 'Ac', 'Jh'], null, null] } : {}),
    ...(event.event === 'dummy_taken' ? { cards: null } : {}),
    ...(event.event === 'discarded' ? { card: null } : {}),
  }));
  const theirs = playForm(THREE_HANDED, [...hidden, { event: 'discarded', seat: 0, card: null }], { yourSeat: 1 });
  assert.equal(theirs.game.dummy_taken, true);
  assert.equal(theirs.game.dummy_discards, null);
  assert.equal(theirs.game.phase, 'playing');
  for (const [seq, event] of [
    { event: 'card_played', seat: 0, card: 'Js' },
    { event: 'card_played', seat: 1, card: '9c' },
    { event: 'card_played', seat: 2, card: 'Qd' },
    { event: 'trick_won', seat: 0, number: 1 },
  ].entries()) model.applyEvent(theirs, { type: 'event', table: 't3', seq: 13 + seq, event });
  assert.equal(theirs.game.tricks[0].cards.length, 3, 'three cards to a trick');
  assert.deepEqual(theirs.game.tricks_won, [1, 0, 0], 'one count per player');
  assert.equal(tableText.seatName(theirs, 0), 'Ann');
  assert.equal(tableText.seatName(theirs, 2), 'Left bot');
  assert.equal(tableText.describe(theirs, hidden[6]), 'Ann took the dummy and discards three.');
});

test('three-handed: going alone means without the dummy; nobody sits out', () => {
  const table = playForm(THREE_HANDED, [
    { event: 'hand_dealt', number: 0, dealer: 2, up_card: 'Ad', hands: [['9s', 'Ts', 'Js', 'Qs', 'Ks'], null, null, null] },
    { event: 'passed', seat: 0 },
    { event: 'trump_made', seat: 1, suit: 'diamonds', alone: true },
    { event: 'up_card_picked_up', dealer: 2, card: 'Ad' },
    { event: 'discarded', seat: 2, card: null },
  ]);
  assert.equal(table.game.phase, 'playing');
  assert.equal(table.game.dummy_taken, false);
  assert.deepEqual([...model.sittingOut(table.game)], []);
  assert.equal(table.game.turn, 0);
  assert.equal(tableText.describe(table, { event: 'trump_made', seat: 1, suit: 'diamonds', alone: true }),
    'Left bot ordered up diamonds, going without the dummy. Trump is diamonds.');
});

test('cutthroat: one score per player, a euchre scores for both defenders, the winner named', () => {
  const table = playForm(CUTTHROAT, [
    { event: 'hand_dealt', number: 0, dealer: 0, up_card: 'Ad', hands: [['9s', 'Ts', 'Js', 'Qs', 'Ks'], null, null, null] },
  ], { preset: 'cutthroat' });
  assert.deepEqual(table.game.scores, [0, 0, 0]);
  assert.deepEqual(table.game.tricks_won, [0, 0, 0]);
  assert.equal(table.game.turn, 1);
  assert.deepEqual(tableText.sideOrder(table), [0, 1, 2]);
  assert.equal(tableText.teamName(table, 0), 'You');
  assert.equal(tableText.teamName(table, 2), 'Right bot');
  const outcome = { ending: 'played', maker: 0, makers: 0, trump: 'spades', alone: false, tricks: [2, 2, 1], points: [0, 2, 2] };
  assert.equal(tableText.outcomeText(table, outcome), 'Euchred! You called spades and took 2 tricks: Left bot +2, Right bot +2.');
  model.applyEvent(table, { type: 'event', table: 't3', seq: 4, event: { event: 'hand_ended', outcome, scores: [8, 10, 4] } });
  model.applyEvent(table, { type: 'event', table: 't3', seq: 5, event: { event: 'game_won', team: 1, scores: [8, 10, 4] } });
  assert.equal(table.game.winner, 1);
  assert.equal(table.summary.status, 'finished');
  assert.equal(tableText.describe(table, { event: 'game_won', team: 1, scores: [8, 10, 4] }),
    'Game over: Left bot wins. You 8, Left bot 10, Right bot 4.');
  // A concession by the maker goes to the next seat.
  const conceded = playForm(CUTTHROAT, [
    { event: 'hand_dealt', number: 0, dealer: 0, up_card: 'Ad', hands: [['9s', 'Ts', 'Js', 'Qs', 'Ks'], null, null, null] },
    { event: 'trump_made', seat: 1, suit: 'diamonds', alone: false },
    { event: 'up_card_picked_up', dealer: 0, card: 'Ad' },
    { event: 'discarded', seat: 0, card: '9s' },
    { event: 'conceded', seat: 1 },
  ], { preset: 'cutthroat' });
  assert.deepEqual(conceded.game.tricks_won, [0, 0, 5]);
});

test('two-handed: two seats, you and one opposite, two cards to a trick', () => {
  const table = playForm(TWO_HANDED_PLAIN, [
    { event: 'hand_dealt', number: 0, dealer: 1, up_card: 'Ad', hands: [['9s', 'Ts', 'Js', 'Qs', 'Ks'], null, null, null] },
    { event: 'trump_made', seat: 0, suit: 'diamonds', alone: false },
    { event: 'up_card_picked_up', dealer: 1, card: 'Ad' },
    { event: 'discarded', seat: 1, card: null },
    { event: 'card_played', seat: 0, card: 'Js' },
    { event: 'card_played', seat: 1, card: 'Ad' },
    { event: 'trick_won', seat: 1, number: 1 },
  ], { preset: 'two_handed_plain' });
  assert.deepEqual(table.game.hand_sizes, [4, 4, 0, 0]);
  assert.equal(table.game.tricks[0].cards.length, 2);
  assert.deepEqual(table.game.tricks_won, [0, 1]);
  assert.equal(table.game.turn, 1);
  assert.equal(tableText.seatName(table, 1), 'Opponent bot');
  assert.deepEqual(tableText.sideOrder(table), [0, 1]);
});

test('history: per-player scores and the winning seats in the two- and three-handed games', () => {
  const seats = [
    { seat: 0, player_id: 'p1', name: 'Ann', bot: null },
    { seat: 1, player_id: null, name: 'basic', bot: 'basic' },
    { seat: 2, player_id: null, name: 'basic', bot: 'basic' },
  ];
  const three = { rules: THREE_HANDED, seats, scores: [10, 4, 7], winner: 0, winners: [0], finished: true };
  const who = historyView.people(three, 'p1');
  assert.deepEqual(who.sides, [0, 1, 2]);
  assert.equal(who.scoreLine(three.scores, ', '), 'You 10, Left bot 4, Right bot 7');
  assert.equal(historyView.wonBy(three, who), true);
  assert.equal(historyView.matchEndLine(three, who), 'You win the game: You 10, Left bot 4, Right bot 7.');
  const outcome = { ending: 'played', maker: 1, makers: 1, trump: 'hearts', alone: true, tricks: [1, 2, 2], points: [4, 0, 4] };
  assert.equal(historyView.outcomeLine(outcome, who), 'Euchred! Left bot called hearts without the dummy and took 2 tricks: You +4, Right bot +4.');
  assert.equal(historyView.presetTitle(THREE_HANDED), 'Three-handed, with a dummy');
  assert.equal(historyView.presetTitle(CUTTHROAT), 'Cutthroat');
  assert.equal(historyView.presetTitle(TWO_HANDED_PLAIN), 'Two-handed');
  assert.equal(historyView.presetTitle(FOUR), 'Standard');

  const two = { rules: TWO_HANDED_PLAIN, seats: seats.slice(0, 2), scores: [6, 10], winner: 1, winners: [1], finished: true };
  const them = historyView.people(two, 'p1');
  assert.equal(them.nameOf(1), 'Opponent bot');
  assert.equal(historyView.wonBy(two, them), false);
  assert.equal(historyView.matchEndLine(two, them), 'Opponent bot wins the game: You 6, Opponent bot 10.');
  // The four-handed game: the winning seats, as the API lists them.
  const four = { rules: FOUR, seats: [...seats, { seat: 3, player_id: null, name: 'basic', bot: 'basic' }], scores: [10, 7], winner: 0, winners: [0, 2], finished: true };
  const us = historyView.people(four, 'p1');
  assert.equal(historyView.wonBy(four, us), true);
  assert.equal(historyView.matchEndLine(four, us), 'You and Partner bot win the game: 10–7.');
  // History's score says which side is the player's.
  assert.equal(us.scoreLine(four.scores, ', '), 'Us 10–7 Them');
  assert.equal(us.scoreWords(four.scores), 'Us 10, Them 7');
  assert.equal(historyView.people(four, 'nobody').scoreLine([4, 6]), 'North–South 4–6 East–West');
});

test("replay: after the bidding the dealer holds the up-card, and his discard is out of his hand", () => {
  const dealt = [['9s', 'Ts', 'Js', 'Qs', 'Ks'], ['As', '9h', 'Th', 'Jh', 'Qh'], ['Kh', 'Ah', '9c', 'Tc', 'Jc'], ['Qc', 'Kc', 'Ac', '9d', 'Td']];
  const hand = {
    hands: dealt, dealer: 3, up_card: 'Jd',
    actions: [{ seat: 0, action: 'order_up', alone: false }, { seat: 3, action: 'discard', card: 'Qc' }, { seat: 0, action: 'play', card: '9s' }],
    outcome: null,
  };
  const after = historyView.handsAfterBidding(hand);
  assert.deepEqual(after.held[3], ['Kc', 'Ac', '9d', 'Td', 'Jd']);
  assert.deepEqual(after.discarded, [[], [], [], ['Qc']]);
  assert.deepEqual(after.picked, { seat: 3, card: 'Jd' });
  assert.deepEqual(after.held[0], dealt[0], 'the others keep their cards (plays are faded, not removed)');
  assert.deepEqual(hand.hands[3], ['Qc', 'Kc', 'Ac', '9d', 'Td'], 'the API answer is not changed');
  // His partner alone without him: nobody picks it up.
  const partnerAlone = { ...hand, actions: [{ seat: 1, action: 'order_up', alone: true }] };
  assert.equal(historyView.handsAfterBidding(partnerAlone).picked, null);
  assert.deepEqual(historyView.handsAfterBidding(partnerAlone).held[3], dealt[3]);
  // Call for best: the partner's card moves to the loner, who discards one.
  const best = {
    ...hand,
    actions: [{ seat: 0, action: 'call', suit: 'spades', alone: true }, { seat: 2, action: 'pass_card', card: 'Jc' }, { seat: 0, action: 'discard', card: '9s' }],
    outcome: { maker: 0 },
  };
  const loner = historyView.handsAfterBidding(best);
  assert.deepEqual(loner.held[0], ['Ts', 'Js', 'Qs', 'Ks', 'Jc']);
  assert.deepEqual(loner.held[2], ['Kh', 'Ah', '9c', 'Tc']);
  assert.deepEqual(loner.discarded[0], ['9s']);
});

test("a replayed hand's deal is checked against its commitment in the browser", async () => {
  // The engine's own test vector (crates/engine/src/fairness.rs), as the
  // history API lists the hand: each part of the deck in the committed order.
  const hand = {
    hands: [['9s', 'Ts', 'Js', 'Qs', 'Ks'], ['As', '9h', 'Th', 'Jh', 'Qh'], ['Kh', 'Ah', '9c', 'Tc', 'Jc'], ['Qc', 'Kc', 'Ac', '9d', 'Td']],
    dummy: null,
    up_card: 'Jd',
    kitty: ['Qd', 'Kd', 'Ad'],
    salt: 'ab'.repeat(32),
    commitment: '3104dd3e8e0bbc6fb46da716e3ecec60b800a5ec67a7c6680d6b7c8e0db845ca',
  };
  const standard = { deck: 'nine_to_ace', players: 4 };
  assert.equal(await historyView.checkDeal(hand, standard), 'verified');
  // It opens its commitment, but it is not this match's pack (no joker).
  assert.equal(await historyView.checkDeal(hand, { ...standard, joker: true }), 'mismatch');
  assert.equal(await historyView.checkDeal(hand), 'verified', 'no rules: the standard pack');
  assert.equal(await historyView.checkDeal({ ...hand, salt: `ac${'ab'.repeat(31)}` }), 'mismatch');
  const swapped = { ...hand, hands: [['As', 'Ts', 'Js', 'Qs', 'Ks'], ['9s', '9h', 'Th', 'Jh', 'Qh'], ...hand.hands.slice(2)] };
  assert.equal(await historyView.checkDeal(swapped), 'mismatch');
  assert.equal(await historyView.checkDeal({ ...hand, salt: null, hands: null }), 'pending');
  assert.equal(await historyView.checkDeal({ ...hand, commitment: null }), 'unsealed');
});

test("a live deal's seal: kept from the commitment, checked on the reveal, and never taken for a move", async () => {
  const table = model.fromSnapshot(snapshot());
  for (const [i, event] of EVENTS.slice(0, 2).entries()) model.applyEvent(table, { type: 'event', table: 't1', seq: i + 2, event });
  table.prompt = { seq: 3, actions: [{ action: 'pass' }], deadline: null };
  const commitment = '3104dd3e8e0bbc6fb46da716e3ecec60b800a5ec67a7c6680d6b7c8e0db845ca';
  model.applyEvent(table, { type: 'event', table: 't1', seq: 4, event: { event: 'deal_committed', hand: 0, commitment } });
  assert.deepEqual(table.seal, { hand: 0, commitment, check: null });
  assert.notEqual(table.prompt, null, 'a seal is a notice: the prompt still stands');
  assert.match(tableText.describe(table, { event: 'deal_committed', hand: 0, commitment }), /Hand 1's deal is sealed: commitment 3104dd3e…/);

  // The engine's test vector (crates/engine/src/fairness.rs), in the order the server reveals it.
  const deck = ['9s', 'Ts', 'Js', 'Qs', 'Ks', 'As', '9h', 'Th', 'Jh', 'Qh', 'Kh', 'Ah', '9c', 'Tc', 'Jc', 'Qc', 'Kc', 'Ac', '9d', 'Td', 'Jd', 'Qd', 'Kd', 'Ad'];
  const salt = 'ab'.repeat(32);
  model.applyEvent(table, { type: 'event', table: 't1', seq: 5, event: { event: 'deal_revealed', hand: 0, deck, salt } });
  assert.equal(table.seal.check, 'checking');
  assert.equal(await seal.opens(deck, salt, commitment), true);
  assert.equal(await seal.opens([deck[1], deck[0], ...deck.slice(2)], salt, commitment), false, 'two cards swapped');
  assert.equal(await seal.opens(deck, `ac${'ab'.repeat(31)}`, commitment), false, 'another salt');
  assert.match(tableText.sealText(0, 'verified'), /✓ Hand 1: deal verified/);
  assert.match(tableText.sealText(0, 'mismatch'), /✗ Hand 1: .*does not match/);
});

// The commitment to `deck` under `salt`, hashed here with node's crypto,
// independently of the page's Web Crypto.
const commitTo = (deck, salt) => createHash('sha256').update(seal.preimage(deck, salt)).digest('hex');

// docs/protocol.md's transcript of a real hand: Ann's events, the
// commitment before the first bid, the reveal after the hand ended.
function transcript() {
  const events = [];
  for (const line of readFileSync(join(ROOT, 'docs', 'protocol.md'), 'utf8').split('\n')) {
    if (!line.startsWith('← {"type":"event"')) continue;
    try {
      events.push(JSON.parse(line.slice(2)).event);
    } catch {
      // The game's start, its rules shortened: not JSON, not needed here.
    }
  }
  const reveal = events.find((event) => event.event === 'deal_revealed');
  return { events: events.filter((event) => event !== reveal), reveal };
}

// Follows `events` as a table model does and checks the reveal of hand 0.
async function checkAsSeen(events, { deck, salt }, yourSeat = 0) {
  const start = snapshot();
  start.state.your_seat = yourSeat;
  const table = model.fromSnapshot(start);
  events.forEach((event, i) => model.applyEvent(table, { type: 'event', table: 't1', seq: i + 2, event }));
  return witness.revealed(table.witness, rules, 0, deck, salt);
}

test("a live deal is verified only if the reveal fits its commitment and everything seen of the hand", async () => {
  const { events, reveal } = transcript();
  assert.equal(commitTo(reveal.deck, reveal.salt), events.find((e) => e.event === 'deal_committed').commitment);
  assert.deepEqual(await checkAsSeen(events, reveal), { check: 'verified', why: null });
  // As a spectator sees it: no hand of its own, every card played checked.
  const watched = events.map((e) => (e.event === 'hand_dealt' ? { ...e, hands: [null, null, null, null] } : e));
  assert.deepEqual(await checkAsSeen(watched, reveal, null), { check: 'verified', why: null });

  // A dishonest server: committed to deck A and revealed it (the hash
  // opens), but dealt deck B, seat 0's Qs and seat 1's 9s swapped.
  const other = [...reveal.deck];
  [other[0], other[5]] = [other[5], other[0]];
  const dishonest = events.map((e) => (e.event === 'deal_committed' ? { ...e, commitment: commitTo(other, reveal.salt) } : e));
  assert.deepEqual(await checkAsSeen(dishonest, { deck: other, salt: reveal.salt }), {
    check: 'mismatch', why: 'seat 0 was dealt other cards than the revealed deck gives it',
  });
  const spectated = dishonest.map((e) => (e.event === 'hand_dealt' ? { ...e, hands: [null, null, null, null] } : e));
  assert.deepEqual(await checkAsSeen(spectated, { deck: other, salt: reveal.salt }, null), {
    check: 'mismatch', why: 'seat 0 gave Qs, which the revealed deck did not give it',
  });

  // The commitment after the first bid: it fixed nothing.
  const committed = events.find((e) => e.event === 'deal_committed');
  const late = events.filter((e) => e !== committed);
  late.splice(late.findIndex((e) => e.event === 'trump_made') + 1, 0, committed);
  assert.deepEqual(await checkAsSeen(late, reveal), { check: 'not_checked', why: 'its commitment came after the bidding had begun' });
  // No commitment at all; another salt; not the pack.
  assert.equal((await checkAsSeen(events.filter((e) => e !== committed), reveal)).check, 'not_checked');
  assert.deepEqual(await checkAsSeen(events, { ...reveal, salt: 'ab'.repeat(32) }), {
    check: 'mismatch', why: 'the revealed deck and salt do not hash to the commitment',
  });
  assert.deepEqual(await checkAsSeen(events, { ...reveal, deck: reveal.deck.slice(1) }), {
    check: 'mismatch', why: "the revealed deck is not the pack (the revealed deck holds 23 cards, not the pack's 24)",
  });
  // What the page says of each.
  assert.match(tableText.sealText(0, 'mismatch', 'seat 0 gave Qs'), /^✗ Hand 1: the revealed deal does not match: seat 0 gave Qs\.$/);
  assert.match(tableText.sealText(2, 'not_checked', 'no commitment to this hand was seen'), /^Hand 3: deal not checked: no commitment/);
});

// Every form's deck laid out and a hand of it seen by seat 0, honestly:
// the dealer picks up (or the maker takes the dummy and puts three back),
// a card passed to a loner where the rules call for best, then every seat
// plays what it holds.
function formHand(rules) {
  const pack = witness.packOf(rules);
  // A fixed shuffle: every eleventh card (11 is prime to every pack's size).
  const deck = pack.map((_, i) => pack[(i * 11) % pack.length]);
  const { parts } = witness.partsOf(rules, deck);
  const players = rules.players;
  const dealer = players - 1;
  const hands = parts.hands.map((hand, seat) => (seat === 0 ? hand : null));
  const events = [
    { event: 'hand_dealt', number: 0, dealer, up_card: parts.upCard, hands },
    { event: 'deal_committed', hand: 0, commitment: commitTo(deck, 'cd'.repeat(32)) },
    { event: 'trump_made', seat: 0, suit: 'spades', alone: Boolean(rules.call_for_best) },
  ];
  const held = parts.hands.map((hand) => [...hand]);
  if (rules.dummy) {
    events.push({ event: 'dummy_taken', seat: 0, cards: parts.dummy });
    // Seat 0 puts the dummy back, one card at a time.
    for (const card of parts.dummy) events.push({ event: 'discarded', seat: 0, card });
  } else {
    events.push({ event: 'up_card_picked_up', dealer, card: parts.upCard });
    const hidden = held[dealer].shift();
    events.push({ event: 'discarded', seat: dealer, card: null }, { event: 'card_played', seat: dealer, card: parts.upCard });
    held[dealer] = held[dealer].filter((card) => card !== hidden);
  }
  if (rules.call_for_best) {
    // Unseen by seat 1's client: any card of seat 2's may have come to seat 0.
    const passed = held[2].shift();
    events.push({ event: 'card_passed', from: 2, to: 0, card: null }, { event: 'card_played', seat: 0, card: passed });
  }
  held.forEach((cards, seat) => cards.forEach((card) => events.push({ event: 'card_played', seat, card })));
  return { deck, events, salt: 'cd'.repeat(32) };
}

test('an honest deal is verified in every form, and the pack is the form\'s', async () => {
  const base = { points_to_win: 10, farmers_hand: false };
  const forms = {
    four: { ...base, players: 4, deck: 'nine_to_ace' },
    joker: { ...base, players: 4, deck: 'nine_to_ace', joker: true },
    piquet: { ...base, players: 4, deck: 'seven_to_ace' },
    eights: { ...base, players: 4, deck: 'eight_to_ace', farmers_hand: true },
    call_for_best: { ...base, players: 4, deck: 'nine_to_ace', call_for_best: true },
    three_handed: { ...base, players: 3, dummy: true, deck: 'nine_to_ace' },
    cutthroat: { ...base, players: 3, deck: 'nine_to_ace' },
    two_handed: { ...base, players: 2, dummy: true, deck: 'ten_to_ace' },
    two_handed_plain: { ...base, players: 2, deck: 'nine_to_ace' },
  };
  const sizes = { four: 24, joker: 25, piquet: 32, eights: 28, call_for_best: 24, three_handed: 24, cutthroat: 24, two_handed: 20, two_handed_plain: 24 };
  for (const [name, formRules] of Object.entries(forms)) {
    assert.equal(witness.packOf(formRules).length, sizes[name], name);
    const { deck, events, salt } = formHand(formRules);
    // Seat 1's view of the same hand: its own cards, seat 0's dummy unseen.
    for (const seat of [0, 1]) {
      const seen = witness.newWitness();
      for (const event of events) {
        if (event.event === 'deal_committed') witness.committed(seen, 0, event.commitment);
        else if (seat === 0 || event.event !== 'hand_dealt') saw(seen, event, seat);
        else saw(seen, { ...event, hands: witness.partsOf(formRules, deck).parts.hands.map((h, s) => (s === 1 ? h : null)) }, seat);
      }
      assert.deepEqual(await witness.revealed(seen, formRules, 0, deck, salt), { check: 'verified', why: null }, `${name}, seat ${seat}`);
      // The same deck short of a card, or with a card of another pack.
      assert.match(witness.verdict(seen, formRules, 0, deck.slice(1), true).why, /not the pack/, name);
      const foreign = witness.packOf({ deck: 'seven_to_ace', joker: true }).find((card) => !deck.includes(card));
      const notThePack = witness.verdict(seen, formRules, 0, [...deck.slice(1), foreign], true);
      assert.deepEqual(notThePack, { check: 'mismatch', why: `the revealed deck is not the pack (${foreign} is not in this pack)` }, name);
    }
  }
  // The joker's form without the joker in the deck is not its pack.
  const noJoker = witness.packOf(forms.four);
  assert.match(witness.verdict(witness.newWitness(), forms.joker, 0, noJoker, true).why, /holds 24 cards, not the pack's 25/);
});

// What a seat's client is sent of `event`: a dummy and discards only to
// the maker who holds them.
function saw(seen, event, seat) {
  const hidden = event.seat !== seat && (event.event === 'dummy_taken' || event.event === 'discarded');
  witness.saw(seen, hidden ? { ...event, [event.event === 'dummy_taken' ? 'cards' : 'card']: null } : event);
}

test("the analysis's marks in words, and the replay step of each decision", () => {
  const play = (card) => ({ action: 'play', card });
  // With every card shown: the best card and what it gains.
  const shown = { mark: 'mistake', tricks_lost: 1, points_lost: 0, options: [{ action: play('As'), tricks: 3, points: 1 }, { action: play('9h'), tricks: 2, points: 1 }] };
  assert.equal(analysis.shownNote(shown), 'best: A♠, one more trick');
  assert.equal(analysis.shownNote({ ...shown, mark: 'best' }), 'best with every card shown');
  const euchred = { mark: 'mistake', tricks_lost: 2, points_lost: 3, options: [{ action: play('Jd'), tricks: 3, points: 1 }, { action: play('Td'), tricks: 1, points: -2 }] };
  assert.equal(analysis.shownNote(euchred), 'best: J♦, 2 more tricks, +3.0 points');
  // With what the player knew: the best option in expectation and the gap.
  const known = { mark: 'inaccuracy', points_lost: 0.4, worlds: 200, options: [{ action: { action: 'pass' }, expected: -0.1 }, { action: { action: 'order_up', alone: false }, expected: 0.3 }] };
  assert.equal(analysis.knownNote(known, true), 'with what you knew: order up, +0.4');
  assert.equal(analysis.knownNote({ ...known, mark: 'best' }, false), 'with what they knew: best');
  // Bids before the first card; each card at its trick; a claim at the trick before it.
  const hand = {
    actions: [{ action: 'pass' }, { action: 'order_up' }, { action: 'discard', card: '9c' }, play('As'), play('Kh'), { action: 'claim' }],
    tricks: [{ plays: [{ card: 'As' }, { card: 'Kh' }] }],
  };
  assert.deepEqual(analysis.stepOfActions(hand), ['bidding', 'bidding', 'bidding', 0, 0, 0]);
});

test("the replay's graph is the viewer's side's own values: never another seat's private estimate", () => {
  const play = (card) => ({ action: 'play', card });
  const known = (chosen, other) => ({ mark: 'best', points_lost: 0, worlds: 8, options: [{ action: { action: 'pass' }, expected: chosen }, { action: { action: 'order_up', alone: false }, expected: other }] });
  const shown = (card, points) => ({ mark: 'best', tricks_lost: 0, points_lost: 0, options: [{ action: play(card), tricks: 3, points }] });
  // Four-handed, the viewer in seat 0 (partner: seat 2). The opponents'
  // own estimates (seats 1 and 3) are what the issue saw flipped to "us".
  const analysed = {
    number: 0,
    decisions: [
      { index: 0, seat: 1, chosen: { action: 'pass' }, known: known(-0.65, -0.9) },
      { index: 1, seat: 2, chosen: { action: 'pass' }, known: known(-0.2, -0.5) },
      { index: 2, seat: 3, chosen: { action: 'pass' }, known: known(0.8, 0.1) },
      { index: 3, seat: 0, chosen: { action: 'pass' }, known: known(0.4, 0.2) },
      { index: 4, seat: 1, chosen: play('As'), shown: shown('As', 1), known: { ...known(0.5, 0), options: [{ action: play('As'), expected: 0.5 }] } },
      { index: 5, seat: 2, chosen: play('Kh'), shown: shown('Kh', -1) },
      { index: 6, seat: 0, chosen: play('Qh'), shown: shown('Qh', -1), known: { ...known(-0.7, 0), options: [{ action: play('Qh'), expected: -0.7 }] } },
    ],
  };
  const who = { mySeat: 0, partners: true, sideOf: (seat) => seat % 2 };
  const values = (mode) => analysis.graphSeries(analysed, who, mode).map((p) => [p.seat, p.value]);
  // With what you knew: the viewer's own decisions, as the viewer valued them.
  assert.deepEqual(values('known'), [[0, 0.4], [0, -0.7]]);
  // With every card shown (the same from any seat): every card, for the viewer's side.
  assert.deepEqual(values('shown'), [[1, -1], [2, -1], [0, -1]]);
  // Without partners, only the viewer's own.
  const alone = { ...who, partners: false };
  assert.deepEqual(analysis.graphSeries(analysed, alone, 'shown').map((p) => p.seat), [0]);
});

test("the lobby's list: pages added, changes past the pages left for a later one, a filter starting again", () => {
  const pages = new lobby.LobbyPages();
  assert.equal(pages.list(), null, 'nothing listed before the first page');
  assert.deepEqual(pages.query(), { type: 'list_tables', status: 'open', free_seat: true });
  const summary = (table) => ({ table });
  pages.page({ tables: [summary('a'), summary('b')], next: 'b', total: 4 });
  assert.deepEqual(pages.query(pages.next), { type: 'list_tables', status: 'open', free_seat: true, after: 'b' });
  // Past the pages listed: it comes with the next page, and is not counted twice.
  pages.update(summary('c'));
  assert.deepEqual(pages.list().map((t) => t.table), ['a', 'b']);
  assert.equal(pages.total, 4);
  pages.page({ after: 'b', tables: [summary('c'), summary('d')], total: 4 });
  assert.equal(pages.next, null);
  assert.deepEqual(pages.list().map((t) => t.table), ['a', 'b', 'c', 'd']);
  // With every page listed, a new table is counted; a changed one is not.
  pages.update(summary('e'));
  pages.update({ table: 'a', status: 'playing' });
  assert.equal(pages.total, 5);
  assert.equal(pages.list()[0].status, 'playing');
  pages.remove('b');
  pages.remove('nope');
  assert.equal(pages.total, 4);
  // A first page starts the list again.
  pages.page({ tables: [summary('z')] });
  assert.deepEqual(pages.list().map((t) => t.table), ['z']);
  assert.equal(pages.total, 1, 'without a total, the tables listed');
  // The filter shown, or no filter, changes nothing; another clears the list.
  assert.equal(pages.choose('open'), false);
  assert.equal(pages.choose('nonsense'), false);
  assert.equal(pages.choose('playing'), true);
  assert.equal(pages.list(), null);
  assert.deepEqual(pages.query(), { type: 'list_tables', status: 'playing' });
});
