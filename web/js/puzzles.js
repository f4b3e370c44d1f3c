// The puzzle trainer (#/puzzles, and #/puzzles/daily for the puzzle of the
// day): a position from a real hand as the seat saw it, its options as
// buttons, and the verdict on an answer (right or not, the best answers,
// why, and the rest of the hand played both ways). Read from
// /api/puzzles; an account's answers are rated, a guest's only judged.
// Also the lobby's "Puzzle of the day" link.

import { h, replaceChildren } from './dom.js';
import { api } from './account.js';
import { SUIT_SYMBOLS, cardFace, cardName, suitName } from './cards.js';
import { actionText as optionText, aloneWords, outcomeText, scoreText, signedChange, trumpWords } from './text.js';
import { playersOf } from './model.js';

export const PUZZLES_HASH = '#/puzzles';
export const DAILY_HASH = '#/puzzles/daily';

const KIND = { bid: 'Bid or pass?', discard: 'Which card to discard?', card: 'Which card to play?' };
const PLACES = { 4: ['You', 'Left', 'Partner', 'Right'], 3: ['You', 'Left', 'Right'], 2: ['You', 'Opponent'] };

// A table as js/text.js reads one, from the puzzle's seat: the other seats
// named by where they sit, as the table calls them.
function tableOf(puzzle) {
  const view = puzzle.view;
  const players = playersOf(view.rules);
  const places = PLACES[players] ?? PLACES[4];
  const seats = Array.from({ length: players }, (_, seat) =>
    ({ kind: 'player', player: { name: places[(seat - puzzle.seat + players) % players] } }));
  return { yourSeat: puzzle.seat, game: view, seats, summary: { rules: view.rules } };
}

function seatWord(table, seat) {
  return table.seats[seat]?.player.name ?? `Seat ${seat + 1}`;
}

const sameAction = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// "See it played": a line's first action, the trump made, each trick's
// cards, and how the hand ends.
function lineItems(table, line) {
  if (!line || typeof line !== 'object') return [];
  const players = table.seats.length;
  const items = [`${optionText(table, line.first)}.`];
  if (line.made) {
    const trump = line.made.trump ? trumpWords(line.made.trump) : 'no trump';
    items.push(`${seatWord(table, line.made.maker)} made ${trump}${line.made.alone ? ` ${aloneWords(table)}` : ''}.`);
  }
  // The cards in tricks: a new line at each lead (a trick holds one card
  // a seat in play, fewer when someone sits out).
  const perTrick = players - (table.game.sitting_out !== null || line.made?.alone ? 1 : 0);
  const done = table.game.tricks.at(-1)?.winner === null ? table.game.tricks.at(-1).cards.length : 0;
  let trick = [];
  let count = done;
  for (const [seat, card] of line.plays ?? []) {
    trick.push(`${seatWord(table, seat)} ${cardName(card)}`);
    count += 1;
    if (count % perTrick === 0) {
      items.push(`${trick.join(', ')}.`);
      trick = [];
    }
  }
  if (trick.length > 0) items.push(`${trick.join(', ')}.`);
  if (line.outcome) items.push(outcomeText(table, line.outcome));
  const points = Number(line.points);
  items.push(`Your side: ${line.tricks} trick${line.tricks === 1 ? '' : 's'}, ${signedChange(Math.round(points * 100) / 100)} points against the other side.`);
  return items;
}

// The lobby's link to the puzzle of the day. Not fetched here: before any
// puzzle is stored the daily one is a 404, which the browser's console
// would report on every visit to the lobby; the page says so instead.
export function dailyLink() {
  return h('section', { class: 'daily-puzzle', 'aria-labelledby': 'daily-heading' },
    h('h2', { id: 'daily-heading' }, 'Puzzle of the day'),
    h('p', {}, 'A position from a real hand, the same for everyone today: ',
      h('a', { href: DAILY_HASH }, 'solve the puzzle of the day'), ', or train on more under ',
      h('a', { href: PUZZLES_HASH }, 'Puzzles'), '.'));
}

// The trainer. `app` gives: identity(), go(hash).
export class PuzzleView {
  constructor(app, { daily = false } = {}) {
    this.app = app;
    this.daily = daily;
    this.puzzle = null;
    this.busy = false;
    this.heading = h('h1', { tabindex: '-1' }, daily ? 'Puzzle of the day' : 'Puzzles');
    this.body = h('div', { class: 'puzzle-body' }, h('p', { class: 'muted' }, 'Loading…'));
    this.verdict = h('div', { class: 'puzzle-verdict', 'aria-live': 'polite' });
    // Where the solver stands: an account's puzzle rating and streak, kept
    // up to date by each rated answer; a guest is told answers are not rated.
    this.standing = h('p', { class: 'puzzle-standing' });
    this.root = h('section', { class: 'puzzles card-panel' }, this.heading, this.standing, this.body, this.verdict);
  }

  mount(container) {
    replaceChildren(container, this.root);
    this.showStanding();
    this.load(this.daily ? '/api/puzzles/daily' : '/api/puzzles/next');
  }

  async showStanding() {
    const me = this.app.identity();
    if (!me.account) {
      replaceChildren(this.standing, 'As a guest your answers are judged, not rated: ',
        h('a', { href: '#/account' }, 'keep your name'), ' for a puzzle rating.');
      return;
    }
    try {
      const { rating } = await api('GET', `/api/players/${encodeURIComponent(me.id)}/puzzles`);
      if (this.gone || this.rated) return;
      this.setStanding(rating ? { after: rating.rating, streak: rating.streak, best_streak: rating.best_streak } : null);
    } catch {
      // The trainer works without it: the verdict tells the change.
    }
  }

  // `rating`: { after, streak, best_streak }, or null before a first answer.
  setStanding(rating) {
    replaceChildren(this.standing, rating
      ? ['Your puzzle rating: ', h('strong', { class: 'puzzle-standing-rating' }, String(rating.after)),
        `, streak ${rating.streak} (best ${rating.best_streak}).`]
      : 'Your puzzle rating starts at 1500: your first answer to each puzzle moves it.');
  }

  unmount() {
    this.gone = true;
  }

  token() {
    return this.app.identity().token ?? null;
  }

  async load(path) {
    replaceChildren(this.verdict);
    try {
      this.puzzle = await api('GET', path, { token: this.token() });
    } catch (error) {
      if (this.gone) return;
      replaceChildren(this.body, h('p', { role: 'alert' }, error.code === 'not_found'
        ? 'No puzzles yet: they are found in finished games once analysed. Play a game and come back.'
        : `The puzzle could not be loaded: ${error.message}`));
      return;
    }
    if (this.gone) return;
    this.table = tableOf(this.puzzle);
    this.render();
  }

  render() {
    const { puzzle, table } = this;
    const game = puzzle.view;
    const hand = game.hand ?? [];
    const cardOptions = new Map(puzzle.options.filter((a) => a.card).map((a) => [a.card, a]));
    const otherOptions = puzzle.options.filter((a) => !a.card);
    const answered = this.answer !== undefined;
    // Once answered, the best answers and the one chosen are marked on
    // their buttons (by a ring, and in their names).
    const marks = (option) => {
      if (!answered) return { classes: [], words: '' };
      const best = this.answers.some((a) => sameAction(a, option));
      const chosen = sameAction(option, this.answer);
      return {
        classes: [best && 'best', chosen && 'chosen'].filter(Boolean),
        words: `${best ? ', best' : ''}${chosen ? ', your answer' : ''}`,
      };
    };
    const trumpLine = game.trump || game.no_trump
      ? h('p', { class: 'puzzle-trump' }, `Trump: ${game.no_trump ? 'no trump' : `${SUIT_SYMBOLS[game.trump]} ${suitName(game.trump)}`}`,
        game.maker !== null ? `, made by ${seatWord(table, game.maker)}${game.alone ? ` ${aloneWords(table)}` : ''}` : '')
      : h('div', { class: 'puzzle-up-card' }, h('p', {}, `Up-card (${seatWord(table, game.dealer)} dealt):`),
        cardFace(game.up_card, { label: `Up-card: ${cardName(game.up_card)}` }));
    const bids = game.bids.length > 0 && h('p', { class: 'puzzle-bids' },
      `Bids: ${game.bids.map(([seat, action]) => `${seatWord(table, seat)} ${optionText(table, action).toLowerCase()}`).join('; ')}.`);
    const current = game.tricks.at(-1)?.winner === null ? game.tricks.at(-1) : null;
    const trick = current && current.cards.length > 0 && h('div', { class: 'puzzle-trick' },
      h('h3', {}, 'This trick'),
      h('div', { class: 'puzzle-cards' }, current.cards.map(([seat, card]) =>
        cardFace(card, { label: `${cardName(card)}, played by ${seatWord(table, seat)}`, trump: game.trump }))),
      h('p', { class: 'muted' }, current.cards.map(([seat, card]) => `${seatWord(table, seat)}: ${cardName(card)}`).join(', ')));
    const taken = game.tricks.filter((t) => t.winner !== null);
    const tricks = taken.length > 0 && h('div', { class: 'puzzle-tricks' },
      h('h3', {}, 'Tricks so far'),
      h('ol', {}, taken.map((t) => h('li', {},
        `${t.cards.map(([seat, card]) => `${seatWord(table, seat)} ${cardName(card)}`).join(', ')}: won by ${seatWord(table, t.winner)}`))),
      h('p', {}, `Tricks: ${scoreText(table, game.tricks_won)}`));
    const handCards = h('div', { class: 'puzzle-cards puzzle-hand', role: 'group', 'aria-label': 'Your hand' },
      hand.map((card) => {
        const option = cardOptions.get(card);
        if (!option) return cardFace(card, { label: cardName(card), trump: game.trump, class: 'idle' });
        const { classes, words } = marks(option);
        return cardFace(card, {
          tag: 'button',
          trump: game.trump,
          class: ['in-hand', 'legal', ...classes].join(' '),
          label: `${optionText(table, option)}${words}`,
          'data-card': card,
          'data-option': JSON.stringify(option),
          disabled: answered,
          onclick: () => this.submit(option),
        });
      }));
    const buttons = otherOptions.length > 0 && h('div', { class: 'bids', role: 'group', 'aria-label': 'Your bid' },
      otherOptions.map((action) => h('button', {
        type: 'button',
        class: ['bid', action.suit && `suit-${action.suit}`, action.action !== 'pass' && 'primary', ...marks(action).classes],
        'aria-label': answered ? `${optionText(table, action)}${marks(action).words}` : undefined,
        'data-action': action.action,
        'data-option': JSON.stringify(action),
        disabled: answered,
        onclick: () => this.submit(action),
      }, optionText(table, action))));
    replaceChildren(this.body,
      h('p', { class: 'puzzle-question', 'data-puzzle': puzzle.id },
        h('strong', {}, KIND[puzzle.kind] ?? 'Your move'), ` Puzzle rated ${puzzle.rating}.`),
      h('p', { class: 'puzzle-score' }, `Score: ${scoreText(table, game.scores)} (to ${game.rules.points_to_win ?? '?'}). ${seatWord(table, game.dealer)} dealt.`),
      trumpLine, bids, trick, tricks,
      h('h2', {}, 'Your hand'), handCards, buttons);
  }

  async submit(action) {
    if (this.busy || this.answer !== undefined) return;
    this.busy = true;
    let verdict;
    try {
      verdict = await api('POST', `/api/puzzles/${this.puzzle.id}/answer`, { token: this.token(), body: { action } });
    } catch (error) {
      replaceChildren(this.verdict, h('p', { role: 'alert' }, `The answer could not be sent: ${error.message}`));
      return;
    } finally {
      this.busy = false;
    }
    if (this.gone) return;
    this.answer = action;
    this.answers = verdict.answers;
    if (verdict.rating) {
      this.rated = true;
      this.setStanding(verdict.rating);
    }
    this.render();
    this.showVerdict(action, verdict);
  }

  showVerdict(action, verdict) {
    const table = this.table;
    const rating = verdict.rating && h('p', { class: 'puzzle-rating' },
      `Puzzle rating ${verdict.rating.after} (${signedChange(verdict.rating.after - verdict.rating.before)}), streak ${verdict.rating.streak} (best ${verdict.rating.best_streak}).`);
    const line = (title, data, cls) => h('section', { class: cls },
      h('h3', {}, title), h('ol', {}, lineItems(table, data).map((text) => h('li', {}, text))));
    const played = h('details', { class: 'puzzle-lines' },
      h('summary', {}, 'See it played'),
      line(`Best: ${optionText(table, verdict.best_line.first)}`, verdict.best_line, 'best-line'),
      !verdict.correct && line(`Yours: ${optionText(table, action)}`, verdict.answer_line, 'answer-line'));
    const next = h('button', { type: 'button', class: 'primary', 'data-focus': 'next-puzzle', onclick: () => this.next() }, 'Next puzzle');
    replaceChildren(this.verdict,
      h('h2', { class: ['puzzle-result', verdict.correct ? 'right' : 'wrong'], 'data-correct': String(verdict.correct) },
        verdict.correct ? 'Right' : 'Not the best'),
      h('p', { class: 'puzzle-answers' },
        `Best: ${verdict.answers.map((a) => optionText(table, a)).join(' or ')}. You chose: ${optionText(table, action)}.`),
      h('p', { class: 'puzzle-why' }, verdict.why),
      rating, played, next);
  }

  next() {
    this.answer = undefined;
    this.daily = false;
    this.heading.textContent = 'Puzzles';
    if (location.hash !== PUZZLES_HASH) {
      this.app.go(PUZZLES_HASH);
      return;
    }
    replaceChildren(this.body, h('p', { class: 'muted' }, 'Loading…'));
    this.load('/api/puzzles/next');
    this.heading.focus({ preventScroll: true });
  }
}
