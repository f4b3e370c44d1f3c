// A table as this client knows it: a snapshot from the server, then every
// event applied in seq order. The server is the authority on what is legal
// (`your_turn` lists it); this file only keeps the picture up to date: the
// hand, the tricks, whose turn it is, the score. No DOM: `node --test` runs
// it directly (tests/browser/model.test.mjs).

import { isJoker, sortForDisplay, upSuit } from './cards.js';
import { committed, joined, newWitness, saw } from './witness.js';

// The game's forms (crates/engine/src/rules.rs): four players in two
// partnerships (seats 0 & 2 against 1 & 3), or two or three each playing
// for himself, where side `i` is seat `i`. Rules from before the forms
// (no `players`) are the four-handed game.
export const playersOf = (rules) => rules?.players ?? 4;
// A bot's level as people know it (`basic` is the easy level's wire name).
const BOT_LEVEL_NAMES = { expert: 'expert', hard: 'hard', medium: 'medium', basic: 'easy', naive: 'naive', random: 'random' };
export const botLevelName = (bot) => BOT_LEVEL_NAMES[bot] ?? bot;
export const hasPartners = (rules) => playersOf(rules) === 4;
// How many sides score: the two partnerships, or one per player.
export const sidesOf = (rules) => (hasPartners(rules) ? 2 : playersOf(rules));
export const nextSeat = (seat, players = 4) => (seat + 1) % players;
export const partnerOf = (seat) => (seat + 2) % 4;
// The side `seat` scores for.
export const teamOf = (seat, rules = null) => (hasPartners(rules) ? seat % 2 : seat);
// The seats of a side: a partnership's two, or one player.
export const seatsOfSide = (side, rules = null) => (hasPartners(rules) ? [side, side + 2] : [side]);
// The dummy's cards, in the games that deal one.
export const DUMMY_SIZE = 3;

const HAND_SIZE = 5;
const zeros = (n) => Array.from({ length: n }, () => 0);

// A fresh table from a `snapshot` message. What only this client keeps
// (the chat and the log of plays) is carried over from `previous`.
export function fromSnapshot(message, previous = null) {
  const { state } = message;
  return {
    id: message.table,
    seq: message.seq,
    summary: state.summary,
    seats: state.seats,
    yourSeat: state.your_seat ?? null,
    game: fromView(state.game ?? null),
    // The legal actions, while it is this client's turn.
    prompt: state.actions.length > 0 ? { seq: message.seq, actions: state.actions, deadline: null } : null,
    chat: previous?.chat ?? [],
    log: previous?.log ?? [],
    rubber: rubberFromSnapshot(state.game ?? null, previous),
    // The current hand's deal commitment, and once revealed its check.
    seal: sealFromSnapshot(state, previous),
    // What this client saw of the hand, to check its reveal against.
    witness: witnessFromSnapshot(state, previous),
    // At a table without a host (quick play's), who asked for a rematch
    // ({ asked: seats, deadline: ms since the epoch or null }); null at a
    // hosted table, where the host starts one.
    rematch: rematchVote(state.rematch_vote ?? null),
    // The hint for the decision waiting ({ action, why }, or { asking:
    // true } while it is worked out), gone with the next move; and whether
    // the server refused hints here (a tournament's table).
    hint: null,
    noHints: previous?.noHints ?? false,
    // The review of the last hand over, when the player asked for one
    // ({ hand, text, at }: js/main.js), shown for a moment.
    review: previous?.review ?? null,
  };
}

function rematchVote(vote) {
  if (!vote) return null;
  return { asked: vote.asked ?? [], deadline: vote.deadline_ms === undefined ? null : Date.now() + vote.deadline_ms };
}

function witnessFromSnapshot(state, previous) {
  const witness = previous?.witness ?? newWitness();
  joined(witness, state.game ?? null, state.deal_commitment ?? null);
  return witness;
}

// A deal's seal as this client knows it: the commitment sent before the
// bidding ({ hand, commitment }), and once the hand is over what hashing
// the revealed deck gave (`check`: 'checking', then 'verified', 'mismatch'
// or 'not_checked', with `why` in words: web/js/witness.js).
function sealFromSnapshot(state, previous) {
  if (!state.deal_commitment) return null;
  const hand = state.game?.hand_number ?? 0;
  const before = previous?.seal;
  if (before && before.hand === hand && before.commitment === state.deal_commitment) return before;
  return { hand, commitment: state.deal_commitment, check: null };
}

// A snapshot's game view, with what the events keep that a view does not
// say outright: how many of his three the maker has put back after taking
// the dummy (his hand holds five more than that, and three more).
function fromView(game) {
  if (!game) return null;
  if (game.dummy_discarded === undefined) {
    const held = game.maker === null || game.maker === undefined ? HAND_SIZE : game.hand_sizes?.[game.maker] ?? HAND_SIZE;
    game.dummy_discarded = game.phase === 'dummy_discard' ? Math.max(0, HAND_SIZE + DUMMY_SIZE - held) : game.dummy_taken ? DUMMY_SIZE : 0;
  }
  return game;
}

// Playing rubbers (rules `rubber`): the games finished so far, as the
// events told them ({ winner, scores }), and the rubber's result once
// `rubber_won` has come. A snapshot's game view lists the games finished
// (`games`), so a table first seen mid-rubber knows them too.
function newRubber(known = true) {
  return { games: [], result: null, winner: null, known, fresh: false };
}

function rubberFromSnapshot(game, previous) {
  const before = previous?.rubber;
  const sameMatch = before && previous.game && game && game.hand_number >= previous.game.hand_number;
  if (Array.isArray(game?.games)) {
    const rubber = sameMatch ? before : newRubber();
    rubber.known = true;
    // The view's games, keeping the hand each ended on where we saw it.
    rubber.games = game.games.map((result, index) => ({
      winner: result.winner,
      scores: [...result.scores],
      hand: rubber.games[index]?.hand ?? null,
    }));
    return rubber;
  }
  if (sameMatch) return before;
  return newRubber(!game || game.hand_number === 0);
}

// Whether the rules make the match a rubber (best of three games).
export const isRubber = (rules) => Boolean(rules?.rubber);

// Games won so far by each team in the rubber (two sides: a rubber is
// played between two).
export function gamesWon(rubber) {
  const won = [0, 0];
  for (const game of rubber?.games ?? []) won[game.winner] += 1;
  return won;
}

// Whether a contract is made this hand: a trump suit, or no trump.
export const contractMade = (game) => Boolean(game?.trump || game?.no_trump);

// Applies one `event` message (a placeholder has no `event`). Returns false
// for a seq already seen (after a resume) so the caller can skip it.
export function applyEvent(table, message) {
  if (message.seq <= table.seq) return false;
  table.seq = message.seq;
  const event = message.event;
  if (!event) return true;
  switch (event.event) {
    case 'seat_taken':
      table.seats[event.seat] = event.occupant;
      table.summary.seated = table.seats.filter(Boolean).length;
      break;
    case 'seat_left':
      table.seats[event.seat] = null;
      if (table.yourSeat === event.seat) table.yourSeat = null;
      table.summary.seated = table.seats.filter(Boolean).length;
      break;
    case 'presence': {
      const occupant = table.seats[event.seat];
      if (occupant?.kind === 'player') occupant.connected = event.connected;
      break;
    }
    case 'game_started':
      table.summary.status = 'playing';
      table.summary.rules = event.rules;
      table.game = newGame(event.rules, table.yourSeat);
      table.rubber = newRubber();
      table.rated = null;
      table.unrated = null;
      table.witness = newWitness();
      if (table.rematch) table.rematch = { asked: [], deadline: null };
      break;
    case 'rematch_vote':
      table.rematch = rematchVote(event);
      break;
    case 'chat':
      table.chat.push({ from: event.from, text: event.text });
      break;
    case 'rated':
      // Each seat's new rating after a rated game.
      table.rated = event;
      break;
    case 'unrated':
      // A game at a rated table that did not count, and why.
      table.unrated = event;
      break;
    // A deal's seal: notices, not moves, so a waiting prompt stays.
    case 'deal_committed':
      table.seal = { hand: event.hand, commitment: event.commitment, check: null };
      committed(table.witness ??= newWitness(), event.hand, event.commitment);
      break;
    case 'deal_revealed':
      if (table.seal?.hand === event.hand) table.seal.check = 'checking';
      break;
    default:
      saw(table.witness ??= newWitness(), event);
      if (table.game) {
        applyGameEvent(table.game, event, table.yourSeat);
        table.prompt = null;
        table.hint = null;
        applyRubberEvent(table, event);
      }
  }
  return true;
}

// Where the match ends: with the game, or (rubbers) only with `rubber_won`,
// which comes right after the deciding `game_won`. Between the games of a
// rubber the scores start again at the next deal.
function applyRubberEvent(table, event) {
  const rubber = table.rubber ?? (table.rubber = newRubber(false));
  const playingRubber = isRubber(table.game.rules);
  switch (event.event) {
    case 'game_won':
      if (!playingRubber) {
        table.summary.status = 'finished';
        break;
      }
      rubber.games.push({ winner: event.team, scores: [...event.scores], hand: table.game.hand_number });
      // A banner says so until the next game's first hand is over.
      rubber.fresh = true;
      // Not over yet: `winner` waits for `rubber_won`.
      table.game.winner = null;
      table.game.game_ended = true;
      break;
    case 'rubber_won':
      rubber.result = event.result;
      rubber.winner = event.team;
      rubber.fresh = false;
      table.game.winner = event.team;
      table.summary.status = 'finished';
      break;
    case 'hand_ended':
      // The first hand of the next game is over: the banner goes.
      if (rubber.fresh && rubber.games.at(-1)?.hand !== table.game.hand_number) rubber.fresh = false;
      break;
    default:
      break;
  }
}

// A game before its first deal (the `hand_dealt` that follows fills it in).
// What every hand starts with, as does a new game: nothing named, bid,
// made, passed, discarded or played yet.
function freshHand(rules) {
  return {
    joker_suit: null,
    up_card_picked_up: false,
    turned_down: null,
    trump: null,
    no_trump: false,
    maker: null,
    alone: false,
    sitting_out: null,
    lone_defender: null,
    passed_card: null,
    loner_discard: null,
    discard: null,
    bids: [],
    tricks: [],
    tricks_won: zeros(sidesOf(rules)),
    dummy_taken: false,
    dummy_discards: null,
    dummy_discarded: 0,
  };
}

function newGame(rules, yourSeat) {
  return {
    viewer: yourSeat === null ? 'spectator' : { seat: yourSeat },
    rules,
    hand_number: 0,
    dealer: 0,
    phase: 'ordering_up',
    turn: null,
    scores: zeros(sidesOf(rules)),
    winner: null,
    up_card: null,
    ...freshHand(rules),
    hand: yourSeat === null ? null : [],
    hand_sizes: [0, 0, 0, 0],
    last_outcome: null,
  };
}

const ownSeat = (game) => (game.viewer === 'spectator' ? null : game.viewer.seat);

function resort(game) {
  if (game.hand) game.hand = sortForDisplay(game.hand, game.trump);
}

function removeFromHand(game, card) {
  if (game.hand) game.hand = game.hand.filter((c) => c !== card);
}

// Seats sitting this hand out: a loner's partner, and (where the rules let
// a defender play alone against a loner) that defender's partner.
export function sittingOut(game) {
  const out = new Set(game.out ?? []);
  if (game.sitting_out !== null && game.sitting_out !== undefined) out.add(game.sitting_out);
  if (game.lone_defender !== null && game.lone_defender !== undefined) out.add(partnerOf(game.lone_defender));
  return out;
}

// The next seat clockwise (at this game's table).
const after = (game, seat) => nextSeat(seat, playersOf(game.rules));

// The next seat clockwise that takes part in play.
function nextActive(game, seat) {
  const out = sittingOut(game);
  let next = after(game, seat);
  for (let i = 0; i < 3 && out.has(next); i += 1) next = after(game, next);
  return next;
}

// Play begins: the first lead, by the rules' loner lead, skipping every
// seat that sits out (crates/engine/src/hand.rs, `begin_play`).
function beginPlay(game) {
  game.phase = 'playing';
  const leftOfLoner = game.rules.loner_lead === 'left_of_loner' && game.alone && game.maker !== null;
  game.turn = nextActive(game, leftOfLoner ? game.maker : game.dealer);
}

// Trump is made and the dealer has discarded (if he picked up). Against a
// loner: with call for best his partner passes him a card (`bestDone`: that
// is over, the loner has discarded), then the partner sits out and, where
// the rules let them, the defenders may answer alone; then play. The same
// order as the engine's `after_trump`, so `turn` and `phase` match the
// server's without a snapshot.
function afterTrump(game, bestDone = false) {
  // With a dummy the maker takes it (`dummy_taken` follows) and discards
  // three, unless he goes alone: then he plays without it.
  if (game.rules.dummy && !game.alone && game.maker !== null) {
    game.phase = 'dummy_discard';
    game.turn = game.maker;
    return;
  }
  if (game.alone && game.maker !== null && hasPartners(game.rules)) {
    const partner = partnerOf(game.maker);
    if (game.rules.call_for_best && !bestDone) {
      game.phase = 'passing_best';
      game.turn = partner;
      return;
    }
    game.sitting_out = partner; // a `sits_out` event says so too
    if (game.rules.defend_alone) {
      game.phase = 'defending_alone';
      game.turn = after(game, game.maker);
      return;
    }
  }
  beginPlay(game);
}

function tricksPlayed(game) {
  return game.tricks.filter((trick) => trick.winner !== null).length;
}

// The rest of the hand goes to side `team` (a claim or a concession).
function awardRest(game, team) {
  game.tricks_won[team] += HAND_SIZE - tricksPlayed(game);
  game.phase = 'finished';
  game.turn = null;
}

export function applyGameEvent(game, event, yourSeat) {
  const me = ownSeat(game) ?? yourSeat;
  switch (event.event) {
    case 'hand_dealt': {
      // A turned-up joker: the dealer first names the suit it stands for.
      const jokerUp = isJoker(event.up_card);
      Object.assign(game, {
        hand_number: event.number,
        dealer: event.dealer,
        phase: jokerUp ? 'naming_joker_suit' : 'ordering_up',
        turn: jokerUp ? event.dealer : nextSeat(event.dealer, playersOf(game.rules)),
        up_card: event.up_card,
        ...freshHand(game.rules),
        // Four entries whatever the form, an empty seat holding none.
        hand_sizes: [0, 1, 2, 3].map((seat) => (seat < playersOf(game.rules) ? HAND_SIZE : 0)),
        claim: null,
        out: [],
      });
      // A rubber's next game: the scores start again.
      if (game.game_ended) {
        game.scores = game.scores.map(() => 0);
        game.game_ended = false;
      }
      const own = me === null ? null : event.hands[me];
      game.hand = own ? sortForDisplay(own, null) : me === null ? null : [];
      break;
    }
    case 'joker_suit_named':
      // Round one goes on for the named suit, from the dealer's left.
      game.joker_suit = event.suit;
      game.phase = 'ordering_up';
      game.turn = after(game, event.dealer);
      break;
    case 'passed':
      game.bids.push([event.seat, { action: 'pass' }]);
      if (game.phase === 'defending_alone') {
        // The loner's left answers first, then his right; then play.
        if (event.seat === after(game, game.maker)) game.turn = partnerOf(event.seat);
        else beginPlay(game);
      } else if (event.seat !== game.dealer) game.turn = after(game, event.seat);
      else if (game.phase === 'calling') game.turn = null; // thrown in: hand_ended follows
      break;
    case 'up_card_turned_down':
      // A joker turned down: the suit named for it is the turned-down one.
      game.turned_down = upSuit(event.card, game.joker_suit);
      game.phase = 'calling';
      game.turn = after(game, game.dealer);
      break;
    case 'trump_made': {
      const round1 = game.phase === 'ordering_up';
      const bid = round1
        ? { action: 'order_up', alone: event.alone }
        : { action: 'call', suit: event.suit, alone: event.alone };
      game.bids.push([event.seat, bid]);
      Object.assign(game, { trump: event.suit, maker: event.seat, alone: event.alone });
      resort(game);
      // In round one the dealer picks up (`up_card_picked_up` follows) and
      // discards, unless his partner went alone where the rules spare him.
      const spared = event.alone && hasPartners(game.rules) && partnerOf(event.seat) === game.dealer
        && !game.rules.dealer_picks_up_for_partner_loner;
      if (round1 && !spared) {
        game.phase = 'dealer_discard';
        game.turn = game.dealer;
      } else {
        afterTrump(game);
      }
      break;
    }
    case 'no_trump_called':
      // Round two (rules `allow_no_trump`): no trump suit, no bowers; the
      // hand keeps its suit-by-suit order.
      game.bids.push([event.seat, { action: 'call_no_trump', alone: event.alone }]);
      Object.assign(game, { trump: null, no_trump: true, maker: event.seat, alone: event.alone });
      resort(game);
      afterTrump(game);
      break;
    case 'up_card_picked_up':
      game.up_card_picked_up = true;
      game.phase = 'dealer_discard';
      game.turn = event.dealer;
      game.hand_sizes[event.dealer] += 1;
      if (me === event.dealer && game.hand) {
        game.hand.push(event.card);
        resort(game);
      }
      break;
    case 'discarded': {
      // The dealer's discard, or (call for best) the loner's, or one of the
      // maker's three after taking the dummy: each is seen by the one who
      // made it only.
      game.hand_sizes[event.seat] -= 1;
      if (game.phase === 'dummy_discard') {
        game.dummy_discarded += 1;
        if (event.card && event.seat === me) {
          removeFromHand(game, event.card);
          game.dummy_discards = [...(game.dummy_discards ?? []), event.card];
        }
        if (game.dummy_discarded >= DUMMY_SIZE) beginPlay(game);
        break;
      }
      const loner = game.phase === 'loner_discard';
      if (event.card && event.seat === me) {
        removeFromHand(game, event.card);
        if (loner) game.loner_discard = event.card;
        else game.discard = event.card;
      }
      afterTrump(game, loner);
      break;
    }
    case 'sits_out':
      if (!(game.out ?? []).includes(event.seat)) game.out = [...(game.out ?? []), event.seat];
      if (game.turn === event.seat) game.turn = nextActive(game, event.seat);
      break;
    case 'defends_alone':
      game.lone_defender = event.seat;
      game.bids.push([event.seat, { action: 'defend_alone' }]);
      beginPlay(game);
      break;
    case 'card_passed':
      // Call for best: the loner's partner passes him a card, which only
      // those two see (the others get `card: null`).
      game.hand_sizes[event.from] -= 1;
      game.hand_sizes[event.to] += 1;
      if (event.card && event.from === me) removeFromHand(game, event.card);
      if (event.card && event.to === me && game.hand) {
        game.hand.push(event.card);
        resort(game);
      }
      if (event.card) game.passed_card = event.card;
      game.phase = 'loner_discard';
      game.turn = event.to;
      break;
    case 'dummy_taken':
      // The maker takes the dummy into his hand (its cards are his secret)
      // and discards as many, one at a time.
      game.dummy_taken = true;
      game.dummy_discarded = 0;
      game.hand_sizes[event.seat] += DUMMY_SIZE;
      if (event.cards && event.seat === me && game.hand) {
        game.hand.push(...event.cards);
        resort(game);
      }
      game.phase = 'dummy_discard';
      game.turn = event.seat;
      break;
    case 'card_played': {
      let trick = game.tricks.at(-1);
      if (!trick || trick.winner !== null) {
        trick = { leader: event.seat, cards: [], winner: null };
        game.tricks.push(trick);
      }
      trick.cards.push([event.seat, event.card]);
      game.hand_sizes[event.seat] -= 1;
      if (event.seat === me) removeFromHand(game, event.card);
      game.turn = nextActive(game, event.seat);
      break;
    }
    case 'trick_won': {
      const trick = game.tricks.at(-1);
      if (trick) {
        trick.winner = event.seat;
        // Kept past the next deal, so the view can hold the last trick of
        // a hand on the table a moment too, with that hand's trump (the
        // next deal clears the game's).
        game.last_trick = { key: `${game.hand_number}-${event.number}`, hand: game.hand_number, number: event.number, trick, trump: game.trump };
      }
      game.tricks_won[teamOf(event.seat, game.rules)] += 1;
      game.turn = event.number < HAND_SIZE ? event.seat : null;
      break;
    }
    case 'claimed':
      game.claim = { seat: event.seat, cards: event.cards };
      awardRest(game, teamOf(event.seat, game.rules));
      break;
    case 'conceded': {
      // To the other side; with three (only the maker may concede), to
      // the next seat, as only the makers' count decides the score.
      game.conceded = event.seat;
      const mine = teamOf(event.seat, game.rules);
      let taker = after(game, event.seat);
      while (teamOf(taker, game.rules) === mine) taker = after(game, taker);
      awardRest(game, teamOf(taker, game.rules));
      break;
    }
    case 'hand_ended':
      game.scores = event.scores;
      game.last_outcome = event.outcome;
      game.phase = 'finished';
      game.turn = null;
      break;
    case 'game_won':
      game.winner = event.team;
      game.scores = event.scores;
      game.turn = null;
      break;
    default:
      break;
  }
}

// A practice table: the player is seated and every other seat is a bot,
// so the game is never rated; there, and only there, hints are offered
// (the server also refuses them at a tournament's table, which the client
// learns from the refusal).
export function practiceTable(table) {
  if (table.yourSeat === null || table.noHints) return false;
  return table.seats.slice(0, playersOf(table.game?.rules ?? table.summary.rules))
    .every((occupant, seat) => seat === table.yourSeat || occupant?.kind === 'bot');
}

// The cards the prompt lets this client put down now, and how (any action
// naming a card: 'play', 'discard', 'pass_card'), keyed by card code.
export function cardChoices(prompt) {
  const choices = new Map();
  for (const action of prompt?.actions ?? []) {
    if (typeof action.card === 'string') choices.set(action.card, action);
  }
  return choices;
}

// The trick to show in the middle: the one in progress, or the last one
// completed while the next has not started.
export function trickOnTable(game) {
  return game?.tricks.at(-1) ?? null;
}

// The trick before the one on the table, for the "last trick" corner.
export function previousTrick(game) {
  if (!game) return null;
  const current = game.tricks.at(-1);
  if (current && current.winner !== null) return current;
  return game.tricks.length >= 2 ? game.tricks.at(-2) : null;
}
