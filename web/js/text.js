// The table's words: who sits where and what each side is called, a bid,
// a hand's or a game's or a rubber's result, the score, a seal's check, and
// the log's line for each event. Pure functions of the model's table
// (js/model.js), with no DOM, so the model tests (tests/browser) run them
// under Node; js/table.js draws with them.

import { SUIT_SYMBOLS, cardName, isJoker, suitName, upSuit } from './cards.js';
import { DUMMY_SIZE, contractMade, gamesWon, hasPartners, isRubber, playersOf, teamOf } from './model.js';

// Where each seat sits on screen, from the viewer's clockwise, by the
// number of players: never an empty place at a two- or three-seat table.
const LAYOUTS = { 4: ['bottom', 'left', 'top', 'right'], 3: ['bottom', 'left', 'right'], 2: ['bottom', 'top'] };

// The rules in play: the game's once one has begun, else the table's.
export const rulesOf = (table) => table.game?.rules ?? table.summary.rules;
export const seatCount = (table) => playersOf(rulesOf(table));
// The side `seat` scores for at this table.
export const sideOf = (table, seat) => teamOf(seat, rulesOf(table));

// Where `seat` sits on screen: the viewer at the bottom, play going left.
export function position(table, seat) {
  const players = seatCount(table);
  const bottom = table.yourSeat ?? 0;
  return LAYOUTS[players][(seat - bottom + players) % players];
}

export function seatName(table, seat) {
  if (seat === table.yourSeat) return 'You';
  const occupant = table.seats[seat];
  if (occupant?.kind === 'player') return occupant.player.name;
  const across = seatCount(table) === 4 ? 'Partner' : 'Opponent';
  const where = table.yourSeat === null ? `Seat ${seat + 1}` : { left: 'Left', top: across, right: 'Right' }[position(table, seat)];
  return occupant?.kind === 'bot' ? `${where} bot` : `${where} (empty)`;
}

// "Us" and "Them" for a seated player; compass pairs for a spectator.
// Without partners a side is one player, named as his seat is.
export function teamName(table, team) {
  if (!hasPartners(rulesOf(table))) return seatName(table, team);
  if (table.yourSeat === null) return team === 0 ? 'North–South' : 'East–West';
  return team === sideOf(table, table.yourSeat) ? 'Us' : 'Them';
}

// The sides in the order the score board lists them: the viewer's first,
// then (without partners) the others clockwise from the viewer's left.
export function sideOrder(table) {
  const rules = rulesOf(table);
  const me = table.yourSeat ?? 0;
  if (hasPartners(rules)) {
    const mine = teamOf(me, rules);
    return [mine, 1 - mine];
  }
  const players = playersOf(rules);
  return Array.from({ length: players }, (_, i) => (me + i) % players);
}

// "alone", or in the games with a dummy "without the dummy".
export function aloneWords(table) {
  return rulesOf(table)?.dummy ? 'without the dummy' : 'alone';
}

export function verb(table, seat, you, other) {
  return seat === table.yourSeat ? you : other;
}

// What a bid was, in words.
export function bidText(table, seat, action) {
  const alone = action.alone ? ' alone' : '';
  switch (action.action) {
    case 'pass': return contractMade(table.game) ? 'not alone' : 'passed';
    case 'order_up':
      return seat === table.game?.dealer ? `picked it up${alone}` : `ordered it up${alone}`;
    case 'call': return `called ${action.suit}${alone}`;
    case 'call_no_trump': return `called no trump${alone}`;
    case 'farmers_hand': return "threw in a farmer's hand";
    case 'defend_alone': return 'defends alone';
    case 'name_suit': return `named ${action.suit}`;
    default: return action.action;
  }
}

// A choice in words, as the table's buttons say it, from the seat of
// `table.yourSeat`: "Order up ♠ spades alone", "Play Jack of hearts". The
// hint at the table and the puzzle trainer say a choice this way.
export function actionText(table, action) {
  const game = table.game;
  const alone = action.alone ? ` ${aloneWords(table)}` : '';
  switch (action.action) {
    case 'pass': return 'Pass';
    case 'order_up': {
      const suit = upSuit(game.up_card, game.joker_suit);
      return `${game.dealer === table.yourSeat ? 'Pick up' : 'Order up'} ${SUIT_SYMBOLS[suit]} ${suitName(suit)}${alone}`;
    }
    case 'call': return `${SUIT_SYMBOLS[action.suit]} ${suitName(action.suit)}${alone}`;
    case 'call_no_trump': return `No trump${alone}`;
    case 'farmers_hand': return "Farmer's hand (throw in)";
    case 'defend_alone': return 'Defend alone';
    case 'name_suit': return `${SUIT_SYMBOLS[action.suit]} ${suitName(action.suit)}`;
    case 'play': return `Play ${cardName(action.card)}`;
    case 'discard': return `Discard ${cardName(action.card)}`;
    case 'pass_card': return `Pass ${cardName(action.card)} to your partner`;
    case 'claim': return 'Claim the rest';
    case 'concede': return 'Concede the hand';
    default: return action.card ? `${action.action} ${cardName(action.card)}` : action.action;
  }
}

// A hand's review in words, from the seat of `table.yourSeat` as the hand
// was dealt (an order-up's words name that hand's up-card): the seat's
// biggest mistake and the better choice, or none.
const MARKS = { inaccuracy: 'an inaccuracy', mistake: 'a mistake', blunder: 'a blunder' };
export function reviewText(table, mistake) {
  if (!mistake) return 'No mistake this hand.';
  const mark = MARKS[mistake.mark] ? ` (${MARKS[mistake.mark]})` : '';
  return `Your biggest mistake this hand${mark}: you chose “${actionText(table, mistake.chosen)}”; `
    + `“${actionText(table, mistake.better)}” was better (−${mistake.points_lost.toFixed(1)} points expected).`;
}

// A hand's trump in words: a suit, or no trump (`null` in an outcome).
export function trumpWords(trump) {
  return trump ?? 'no trump';
}

// "Game 1 to Us, 10–6; game 2 begins": a rubber's game just won.
export function gameBreakText(table, rubber = table.rubber) {
  const game = rubber?.games.at(-1);
  if (!game) return '';
  const number = rubber.known ? `Game ${rubber.games.length}` : 'A game';
  const text = `${number} to ${teamName(table, game.winner)}, ${game.scores[game.winner]}–${game.scores[1 - game.winner]}`;
  // The deciding game (its `rubber_won` follows at once): two games won.
  if (rubber.result || (rubber.known && gamesWon(rubber)[game.winner] >= 2)) return `${text}: the rubber is decided.`;
  return rubber.known ? `${text}; game ${rubber.games.length + 1} begins.` : `${text}.`;
}

// "Rubber: 1–0", the viewer's side first (North–South for a spectator).
export function rubberTally(table) {
  const won = gamesWon(table.rubber);
  const mine = table.yourSeat === null ? 0 : sideOf(table, table.yourSeat);
  return { text: `${won[mine]}–${won[1 - mine]}`, label: `Rubber, games won: ${teamName(table, mine)} ${won[mine]}, ${teamName(table, 1 - mine)} ${won[1 - mine]}` };
}

// The rubber's end: games, rubber points and the winners' margin.
export function rubberResultText(table) {
  const rubber = table.rubber;
  const winner = rubber?.winner;
  if (!rubber?.result || winner === null || winner === undefined) return '';
  const won = gamesWon(rubber);
  const points = rubber.result.rubber_points;
  const games = rubber.known ? `${won[winner]} games to ${won[1 - winner]}` : 'two games';
  return `${games}; rubber points ${points[winner]} to ${points[1 - winner]}, a margin of ${rubber.result.margin}.`;
}

// A hand's result, told from the viewer's side.
export function outcomeText(table, outcome) {
  if (!outcome) return '';
  if (outcome.ending === 'thrown_in') {
    if (outcome.reason === 'farmers_hand') {
      return `${seatName(table, outcome.seat)} threw in a farmer's hand: the same dealer deals again.`;
    }
    return 'Everybody passed: the hand is thrown in and the deal moves on.';
  }
  const makers = outcome.makers ?? sideOf(table, outcome.maker);
  const made = outcome.tricks[makers];
  const who = seatName(table, outcome.maker);
  const alone = outcome.alone ? ` ${aloneWords(table)}` : '';
  // Who scored: one side, or (a euchre without partners) every defender.
  const scorers = sideOrder(table).filter((side) => outcome.points[side] > 0);
  const points = scorers.map((side) => `${teamName(table, side)} +${outcome.points[side]}`).join(', ');
  const what = made < 3 ? 'Euchred!' : made === 5 ? (outcome.alone ? 'Lone march!' : 'March!') : 'Made it.';
  const defender = outcome.lone_defender ?? null;
  const against = defender === null ? '' : ` against ${defender === table.yourSeat ? 'you' : seatName(table, defender)} defending alone`;
  return `${what} ${who} called ${trumpWords(outcome.trump)}${alone}${against} and took ${made} trick${made === 1 ? '' : 's'}: ${points}.`;
}

// A rating change as shown, at the table and on a profile: "+12", "−8", "±0".
export const signedChange = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : '±0');

// "Rating 1662 (+162)" for the viewer after a rated game here, "Not rated"
// after one that did not count (the log says why), else null.
export function myRating(table) {
  if (table.unrated && table.yourSeat !== null) return 'Not rated';
  const mine = table.rated?.ratings.find((r) => r.seat === table.yourSeat);
  return mine ? `Rating ${mine.rating} (${signedChange(mine.change)})` : null;
}

// What the check of a revealed deal found, for the log.
// (`why`: what did not match, or why it could not be checked.)
export function sealText(hand, check, why = null) {
  const which = `Hand ${hand + 1}`;
  return {
    verified: `✓ ${which}: deal verified, it is the one committed to before the bidding and the one played.`,
    mismatch: `✗ ${which}: the revealed deal does not match: ${why}.`,
    not_checked: `${which}: deal not checked: ${why}.`,
  }[check];
}

// One line for the log (and the screen reader) about an event, if worth one.
export function describe(table, event) {
  const name = (seat) => seatName(table, seat);
  switch (event.event) {
    case 'hand_dealt': {
      const dealt = `Hand ${event.number + 1}: ${name(event.dealer)} ${verb(table, event.dealer, 'deal', 'deals')}. The up-card is the ${cardName(event.up_card)}.`;
      if (!isJoker(event.up_card)) return dealt;
      return `${dealt} ${name(event.dealer)} ${verb(table, event.dealer, 'name', 'names')} the suit it stands for.`;
    }
    case 'joker_suit_named':
      return `${name(event.dealer)} named ${event.suit} for the Joker: round one is about ${event.suit}.`;
    case 'passed':
      // After trump is made, a pass is a defender declining to play alone.
      return contractMade(table.game)
        ? `${name(event.seat)} ${verb(table, event.seat, 'do', 'does')} not defend alone.`
        : `${name(event.seat)} passed.`;
    case 'up_card_turned_down': {
      const named = isJoker(event.card) && table.game?.joker_suit ? ` (standing for ${table.game.joker_suit})` : '';
      return `The ${cardName(event.card)}${named} is turned down. Round two: name a suit.`;
    }
    case 'no_trump_called':
      return `${name(event.seat)} called no trump${event.alone ? ', going alone' : ''}. No trump: no bowers, the led suit wins.`;
    case 'trump_made': {
      const round1 = !table.game?.turned_down;
      const how = round1 ? (event.seat === table.game?.dealer ? 'picked up' : 'ordered up') : 'called';
      return `${name(event.seat)} ${how} ${event.suit}${event.alone ? `, going ${aloneWords(table)}` : ''}. Trump is ${event.suit}.`;
    }
    case 'dummy_taken':
      return event.cards
        ? `You took the dummy: ${event.cards.map(cardName).join(', ')}. Discard three.`
        : `${name(event.seat)} took the dummy and discards three.`;
    case 'up_card_picked_up':
      return `${name(event.dealer)} picked up the ${cardName(event.card)}.`;
    case 'discarded':
      return event.card ? `You discarded the ${cardName(event.card)}.` : `${name(event.seat)} discarded.`;
    case 'sits_out':
      return `${name(event.seat)} ${verb(table, event.seat, 'sit', 'sits')} this hand out.`;
    case 'defends_alone':
      return `${name(event.seat)} ${verb(table, event.seat, 'defend', 'defends')} alone.`;
    case 'card_passed':
      return `${name(event.from)} passed ${event.to === table.yourSeat ? 'you' : name(event.to)} ${event.card ? `the ${cardName(event.card)}` : 'a card, face down'}.`;
    case 'card_played':
      return `${name(event.seat)} played the ${cardName(event.card)}.`;
    case 'trick_won':
      return `${name(event.seat)} won trick ${event.number}.`;
    case 'claimed':
      return `${name(event.seat)} claimed the rest.`;
    case 'conceded':
      return `${name(event.seat)} conceded the rest of the hand.`;
    case 'hand_ended':
      return `${outcomeText(table, event.outcome)} Score: ${scoreText(table, event.scores)}.`;
    case 'game_won': {
      if (isRubber(table.game?.rules)) return gameBreakText(table);
      if (!hasPartners(rulesOf(table))) {
        const winner = event.team === table.yourSeat ? 'you win' : `${name(event.team)} wins`;
        return `Game over: ${winner}. ${scoreText(table, event.scores)}.`;
      }
      const score = `${event.scores[event.team]} to ${event.scores[1 - event.team]}`;
      if (table.yourSeat === null) return `Game over: ${teamName(table, event.team)} win ${score}.`;
      const [won, lost] = [event.scores[event.team], event.scores[1 - event.team]];
      return event.team === sideOf(table, table.yourSeat) ? `Game over: you win ${won} to ${lost}.` : `Game over: you lose ${lost} to ${won}.`;
    }
    case 'deal_committed':
      return `Hand ${event.hand + 1}'s deal is sealed: commitment ${event.commitment.slice(0, 8)}…, checked here when the hand ends.`;
    case 'rated': {
      const lines = event.ratings.map((r) => `${seatName(table, r.seat)} ${r.rating} (${signedChange(r.change)})`);
      return `Ratings: ${lines.join(', ')}.`;
    }
    case 'unrated':
      // A game at a rated table that did not count (a guest, a new account, the day's cap).
      return `Not rated: ${event.message}.`;
    case 'rubber_won': {
      const result = rubberResultText(table);
      if (table.yourSeat === null) return `Rubber over: ${teamName(table, event.team)} win, ${result}`;
      return `Rubber over: you ${event.team === sideOf(table, table.yourSeat) ? 'win' : 'lose'} the rubber, ${result}`;
    }
    case 'rematch_vote':
      return event.asked.length > 0
        ? `Asked for a rematch: ${event.asked.map(name).join(', ')}.`
        : 'Nobody is asking for a rematch now.';
    case 'game_started':
      return isRubber(event.rules) ? 'The rubber begins: the best of three games.' : 'The game begins.';
    case 'seat_taken':
      return event.occupant.kind === 'player'
        ? `${event.occupant.player.name} sat down in seat ${event.seat + 1}.`
        : `A bot took seat ${event.seat + 1}.`;
    case 'seat_left':
      return `A player left seat ${event.seat + 1}.`;
    case 'presence':
      return event.connected
        ? `${name(event.seat)} is back.`
        : `${name(event.seat)} lost connection${event.grace_ms ? `; a bot plays for them after ${Math.round(event.grace_ms / 1000)} s` : ''}.`;
    default:
      return null;
  }
}

// A line for the middle of the felt while a loner's hand gets ready.
export function phaseNote(table, game) {
  const name = (seat) => seatName(table, seat);
  if (game.phase === 'naming_joker_suit') {
    return game.dealer === table.yourSeat
      ? 'The Joker is turned up: name the suit it stands for.'
      : `The Joker is turned up: ${name(game.dealer)} names the suit it stands for.`;
  }
  const loner = game.maker;
  if (loner === null || loner === undefined) return null;
  switch (game.phase) {
    case 'passing_best':
      if (game.turn === table.yourSeat) return `${name(loner)} goes alone: pass your partner your best card, face down.`;
      return `${name(loner)} ${verb(table, loner, 'go', 'goes')} alone: ${name(game.turn)} passes ${loner === table.yourSeat ? 'you' : name(loner)} a card, face down.`;
    case 'loner_discard':
      return `${name(loner)} ${verb(table, loner, 'discard', 'discards')} one of six cards.`;
    case 'defending_alone':
      return `${name(loner)} ${verb(table, loner, 'go', 'goes')} alone. ${name(game.turn)} may defend alone.`;
    case 'dummy_discard':
      if (loner === table.yourSeat) return null;
      return `${name(loner)} took the dummy and discards three (${Math.max(0, DUMMY_SIZE - (game.dummy_discarded ?? 0))} to go).`;
    default:
      return null;
  }
}

export function scoreText(table, scores) {
  if (!hasPartners(rulesOf(table))) return sideOrder(table).map((side) => `${teamName(table, side)} ${scores[side]}`).join(', ');
  return `${teamName(table, 0)} ${scores[0]}, ${teamName(table, 1)} ${scores[1]}`;
}

// A server's message as a sentence for a notice: the API and the protocol
// write them lowercase without a full stop ("unknown name or wrong
// password"); a person reads "Unknown name or wrong password."
export function sentence(message) {
  const text = String(message ?? '').trim();
  if (!text) return text;
  const first = text[0].toUpperCase() + text.slice(1);
  return /[.!?…]$/.test(first) ? first : `${first}.`;
}

// What a player coming back learns of the hands that ended while they were
// away (a bot plays a seat whose player is away past the grace, or that
// they left): `from` the last hand they saw end ({ hand, scores }), `to`
// the table now. Null when nothing ended meanwhile.
export function awayText(table, from, to) {
  if (!from || to.hand <= from.hand) return null;
  const first = from.hand + 2;
  const last = to.hand + 1;
  const hands = first === last ? `hand ${first} was` : `hands ${first} to ${last} were`;
  return `While you were away, ${hands} played, a bot in your seat once the grace ran out: ${scoreText(table, from.scores)} then, ${scoreText(table, to.scores)} now.`;
}
