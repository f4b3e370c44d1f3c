// Match history: the signed-in player's past matches (GET /api/matches),
// and a hand-by-hand replay of one (GET /api/matches/{id}) at
// #/history/<id>?hand=<n>&step=<m>. Within a hand the steps are the deal,
// the bidding, then each trick; the arrows (or the buttons) move through
// them, across hands too.

import { h, replaceChildren } from './dom.js';
import { AnalysisLoader, analysisPanel, cardMark, cardMarkWords } from './analysis.js';
import { cardFace, cardName, cardShort, isJoker, sortForDisplay, SUIT_SYMBOLS, suitName, upSuit } from './cards.js';
import { botLevelName, hasPartners, playersOf, seatsOfSide, teamOf } from './model.js';
import { PRESETS, goal, tableName } from './rules.js';
import { canHash, opens } from './seal.js';
import { partsOf } from './witness.js';

const PAGE_SIZE = 20;
// Where each seat sits, from the viewer's clockwise, by the number of
// players (as at the table, js/text.js).
const LAYOUTS = { 4: ['bottom', 'left', 'top', 'right'], 3: ['bottom', 'left', 'right'], 2: ['bottom', 'top'] };

// The options shown apart from the preset's title (see `rulesNote`).
const SHOWN_APART = new Set(['points_to_win', 'game_hands', 'rubber', 'allow_no_trump', 'joker']);

// The preset whose rules these are (whatever the options shown apart), or
// "Custom rules".
export function presetTitle(rules) {
  const same = (client, server) => Object.entries(client).every(([key, value]) => (
    SHOWN_APART.has(key) || (value !== null && typeof value === 'object' ? same(value, server?.[key] ?? {}) : server?.[key] === value)));
  const found = Object.values(PRESETS).find((preset) => same(preset.rules, rules ?? {}));
  return found ? found.title : 'Custom rules';
}

async function getJson(url) {
  const response = await fetch(url, { headers: { accept: 'application/json' } });
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new Error(body?.message ?? `${response.status} ${response.statusText}`);
  return body;
}

// Who is who in a match, from the viewer's side (their seat at the bottom):
// names, sides (a partnership, or one player where there are no partners)
// and where each seat is drawn. `sides` lists the sides the viewer's first.
export function people(match, me) {
  const rules = match.rules ?? {};
  const players = playersOf(rules);
  const partners = hasPartners(rules);
  const mine = match.seats.find((s) => me && s.player_id === me);
  const mySeat = mine ? mine.seat : null;
  const seats = Array.from({ length: players }, (_, seat) => seat);
  const position = (seat) => LAYOUTS[players][(seat - (mySeat ?? 0) + players) % players];
  const sideOf = (seat) => teamOf(seat, rules);
  const myTeam = mySeat === null ? 0 : sideOf(mySeat);
  const nameOf = (seat) => {
    if (seat === mySeat) return 'You';
    const occupant = match.seats.find((s) => s.seat === seat);
    if (!occupant) return `Seat ${seat + 1}`;
    if (!occupant.bot) return occupant.name;
    // Bots as the table names them: by where they sit.
    const across = partners ? 'Partner' : 'Opponent';
    const where = mySeat === null ? `Seat ${seat + 1}` : { left: 'Left', top: across, right: 'Right' }[position(seat)];
    return `${where} bot`;
  };
  const teamName = (team) => {
    if (!partners) return nameOf(team);
    if (mySeat === null) return team === 0 ? 'North–South' : 'East–West';
    return team === myTeam ? 'Us' : 'Them';
  };
  const sides = partners ? [myTeam, 1 - myTeam] : seats.map((i) => ((mySeat ?? 0) + i) % players);
  // "Us 7–10 Them" from the viewer's side; "You 6 · Left bot 10 · Right bot 4" without partners.
  const scoreLine = (scores, joiner = ' · ') => (partners
    ? `${teamName(myTeam)} ${scores?.[myTeam] ?? 0}–${scores?.[1 - myTeam] ?? 0} ${teamName(1 - myTeam)}`
    : sides.map((side) => `${teamName(side)} ${scores?.[side] ?? 0}`).join(joiner));
  // The same in words for a screen reader: "Us 7, Them 10".
  const scoreWords = (scores) => sides.map((side) => `${teamName(side)} ${scores?.[side] ?? 0}`).join(', ');
  // Which bot sat where, by level ("Left bot: hard"); empty without bots.
  const bots = seats.map((seat) => [seat, match.seats.find((s) => s.seat === seat)])
    .filter(([seat, occupant]) => seat !== mySeat && occupant?.bot)
    .map(([seat, occupant]) => `${nameOf(seat)}: ${botLevelName(occupant.bot)}`);
  // Who left the match in progress, and the bot that played on for them:
  // "You left in hand 2: an easy bot played your seat to the end."
  const standIns = match.seats.filter((s) => s.stand_in).sort((a, b) => a.seat - b.seat).map((s) => {
    const level = botLevelName(s.stand_in.bot);
    const bot = `${/^[aeiou]/.test(level) ? 'an' : 'a'} ${level} bot`;
    const whose = s.seat === mySeat ? 'your' : 'the';
    return `${s.seat === mySeat ? 'You' : s.name} left in hand ${s.stand_in.from_hand + 1}: ${bot} played ${whose} seat to the end.`;
  });
  return { mySeat, myTeam, nameOf, teamName, position, seats, sides, partners, players, sideOf, scoreLine, scoreWords, bots, standIns, dummy: Boolean(rules.dummy) };
}

// Whether the viewer won a finished match: by the winning seats where the
// API lists them, else by the winning side.
export function wonBy(match, who) {
  if (who.mySeat === null || match.winner === null || match.winner === undefined) return null;
  if (match.winners?.length) return match.winners.includes(who.mySeat);
  return match.winner === who.myTeam;
}

// A rubber's games (`match.rubber`, once it has ended): games won and
// rubber points per team, and the winners' margin (sheet 003: 2, plus
// their rubber points, less the losers').
export function rubberSummary(match) {
  const games = match.rubber ?? [];
  if (games.length === 0) return null;
  const won = [0, 0];
  const points = [0, 0];
  for (const game of games) {
    won[game.winner] += 1;
    points[game.winner] += game.rubber_points;
  }
  const winner = match.winner ?? (won[0] > won[1] ? 0 : 1);
  const margin = Math.max(0, 2 + points[winner] - points[1 - winner]);
  return { games, won, points, winner, margin };
}

// The game of the rubber each hand belongs to (0, 1, 2), as the server
// counts them: a game ends at the hand whose running score is its final one.
export function gameOfHands(match) {
  const games = match.rubber ?? [];
  let game = 0;
  return match.hands.map((hand, index) => {
    const mine = game;
    const end = games[game]?.scores;
    if (end && hand.scores?.[0] === end[0] && hand.scores?.[1] === end[1] && index + 1 < match.hands.length) game += 1;
    return mine;
  });
}

function when(ms) {
  return new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

// ---- the list ----

// A match not won: abandoned (its table closed first), or still going.
function unfinishedWord(match) {
  return match.abandoned ? 'Abandoned' : 'Unfinished';
}

// A listed match's result for the viewer: Won or Lost, Abandoned (its table
// closed before the end: it never will be over), or In progress.
export function matchResult(match, won) {
  if (match.abandoned) return 'Abandoned';
  if (!match.finished) return 'In progress';
  return won ? 'Won' : 'Lost';
}

// The live tables where the player holds a seat, first, each with Resume.
function yourGames(app) {
  const tables = app.yours?.() ?? [];
  if (tables.length === 0) return null;
  return h('section', { class: 'your-games', 'aria-label': 'Your games' },
    h('h2', {}, 'Your games'),
    h('ul', { class: 'tables' }, tables.map((t) => h('li', { class: 'table-row mine', dataset: { table: t.id } },
      h('strong', {}, tableName(t.summary)), ' ',
      h('span', { class: 'muted' }, { open: 'waiting for players', playing: 'playing', finished: 'game over' }[t.summary.status] ?? ''), ' ',
      h('button', { type: 'button', class: 'primary', onclick: () => app.open(t.id) }, 'Resume')))));
}

export class HistoryView {
  constructor(app) {
    this.app = app; // { me(): player id or null, open(id) }
    this.matches = [];
    this.cursor = null;
    this.loading = false;
    this.error = null;
    this.done = false;
  }

  mount(container) {
    this.container = container;
    this.render();
    this.load();
  }

  unmount() {
    this.container = null;
  }

  async load() {
    const me = this.app.me();
    if (!me) {
      this.error = 'Your history appears once you are connected.';
      this.render();
      return;
    }
    this.loading = true;
    this.render();
    const query = new URLSearchParams({ player: me, limit: String(PAGE_SIZE) });
    if (this.cursor) query.set('cursor', this.cursor);
    try {
      const page = await getJson(`/api/matches?${query}`);
      this.matches.push(...page.matches);
      this.cursor = page.next_cursor ?? null;
      this.done = !this.cursor;
      this.error = null;
    } catch (error) {
      this.error = `The history could not be loaded: ${error.message}`;
    }
    this.loading = false;
    this.render();
  }

  render() {
    if (!this.container) return;
    const me = this.app.me();
    const rows = this.matches.map((match) => {
      const who = people(match, me);
      const { mySeat, myTeam, nameOf } = who;
      const partner = mySeat === null || !who.partners ? null : nameOf((mySeat + 2) % 4);
      const opponents = who.seats.filter((s) => who.sideOf(s) !== myTeam).map(nameOf);
      const won = wonBy(match, who);
      const result = matchResult(match, won);
      const rubber = rubberSummary(match);
      // A rubber: the games won, and each game's score with its rubber points.
      // Which side is the player's: "Us 10–6 Them", "You 10, Left bot 4, …".
      const score = who.scoreLine(rubber ? rubber.won : match.scores, ', ');
      const games = rubber && h('span', { class: 'match-games' },
        rubber.games.map((game, i) => `Game ${i + 1}: ${game.scores[myTeam]}–${game.scores[1 - myTeam]}`).join(', '),
        ` · rubber points ${rubber.points[myTeam]}–${rubber.points[1 - myTeam]}`);
      return h('li', { class: ['match-row', `result-${result.toLowerCase().replace(' ', '-')}`], dataset: { match: match.id } },
        // The separator is for whoever reads the row as text (a screen
        // reader, a copy): "Abandoned — Us 1–3 Them".
        h('span', { class: 'match-result' }, result),
        h('span', { class: 'separator' }, ' — '),
        h('span', { class: ['match-score', !who.partners && 'per-player'], 'aria-label': `${rubber ? 'Games won' : 'Score'}: ${who.scoreWords(rubber ? rubber.won : match.scores)}` },
          rubber ? 'Games: ' : '', score),
        h('span', { class: 'match-people' },
          partner ? h('span', {}, `With ${partner}`) : null,
          h('span', {}, `against ${opponents.join(' and ')}`)),
        h('span', { class: 'match-meta' },
          h('time', { datetime: new Date(match.started_at).toISOString() }, when(match.started_at)),
          ` · ${presetTitle(match.rules)}${who.partners ? '' : `, ${who.players} players`}, ${goal(match.rules)}${rulesNote(match.rules)}`,
          games),
        match.finished || match.abandoned
          ? h('a', { class: 'button', href: `#/history/${encodeURIComponent(match.id)}`, 'aria-label': `Replay the game of ${when(match.started_at)}` }, 'Replay')
          : h('span', { class: 'match-meta' }, 'Replay once it is over'));
    });
    replaceChildren(this.container, h('section', { class: 'history card-panel' },
      h('h1', {}, 'Match history'),
      yourGames(this.app),
      this.error ? h('p', { class: 'error', role: 'alert' }, this.error) : null,
      rows.length ? h('ol', { class: 'match-list' }, rows)
        : (!this.loading && !this.error ? h('p', {}, 'No games yet: finished games are listed here, with every hand to replay.') : null),
      this.loading ? h('p', { role: 'status' }, 'Loading…') : null,
      !this.done && !this.loading && this.matches.length
        ? h('button', { type: 'button', 'data-action': 'load-more', 'data-focus': 'load-more', onclick: () => this.load() }, 'Load more')
        : null));
  }
}

// ---- the replay ----

// The steps of one hand: 'deal', 'bidding', then one per trick.
// The options that change how a match reads, after its preset's title.
function rulesNote(rules) {
  const notes = [];
  if (rules?.rubber) notes.push('a rubber');
  if (rules?.allow_no_trump) notes.push('no trump');
  if (rules?.joker) notes.push('joker');
  return notes.length ? `, ${notes.join(', ')}` : '';
}

// A provably fair deal (docs/security.md): the deck in the order the
// server committed to before the hand's first bid. The API lists each part
// of the deck in that order already.
export const dealDeck = (hand) => [...hand.hands.flat(), ...(hand.dummy ?? []), hand.up_card, ...hand.kitty];

// Checks one hand's deal here, in the browser: the deck is exactly the
// pack of the match's `rules` and opens the hand's commitment. 'verified',
// 'mismatch', 'unsealed' (dealt before deals were sealed) or 'pending' (the
// match is in progress: no salt yet). Where the page has no Web Crypto
// (plain http on another host), it says what the server found, marked as
// the server's ('server-verified', …). A replay's cards all come from the
// server's record, so this cannot show that the cards dealt at the table
// were these: the seats' own check at the table does (witness.js).
export async function checkDeal(hand, rules) {
  if (!hand.commitment) return 'unsealed';
  if (!hand.salt || !hand.hands) return 'pending';
  if (!canHash()) return `server-${hand.deal_check}`;
  if (partsOf(rules, dealDeck(hand)).error) return 'mismatch';
  return (await opens(dealDeck(hand), hand.salt, hand.commitment)) ? 'verified' : 'mismatch';
}

const DEAL_CHECK_TEXT = {
  verified: '✓ Deal verified: the whole pack, and it opens its commitment',
  mismatch: '✗ Deal is not the whole pack, or does not match its commitment',
  unsealed: 'Deal not sealed (dealt before commitments)',
  pending: 'Deal sealed: checked once the match ends',
  'server-verified': '✓ Deal verified by the server (this page cannot hash)',
  'server-mismatch': '✗ The server finds this deal does not match its commitment',
};

function stepsOf(hand) {
  return ['deal', 'bidding', ...hand.tricks.map((_, i) => i)];
}

export class ReplayView {
  constructor(app, id, { hand = 0, step = 0 } = {}) {
    this.app = app; // { me(), social }
    this.id = id;
    this.hand = hand;
    this.step = step;
    this.match = null;
    this.error = null;
    this.onKey = (event) => this.key(event);
  }

  async mount(container) {
    this.container = container;
    addEventListener('keydown', this.onKey);
    this.render();
    try {
      this.match = await getJson(`/api/matches/${encodeURIComponent(this.id)}`);
      this.dealChecks = await Promise.all(this.match.hands.map((hand) => checkDeal(hand, this.match.rules)));
      this.hand = Math.min(Math.max(0, this.hand), Math.max(0, this.match.hands.length - 1));
      const hand = this.match.hands[this.hand];
      this.step = hand ? Math.min(Math.max(0, this.step), stepsOf(hand).length - 1) : 0;
      if (this.match.finished && this.container) {
        this.analysis = new AnalysisLoader(this.id, () => this.render());
        this.analysis.start();
      }
    } catch (error) {
      this.error = `This match could not be loaded: ${error.message}`;
    }
    this.render();
  }

  unmount() {
    removeEventListener('keydown', this.onKey);
    this.analysis?.stop();
    this.container = null;
  }

  key(event) {
    if (!this.match || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.target.closest?.('input, textarea, select')) return;
    const moves = { ArrowRight: () => this.move(1), ArrowLeft: () => this.move(-1), PageDown: () => this.jump(1), PageUp: () => this.jump(-1) };
    const move = moves[event.key];
    if (!move) return;
    event.preventDefault();
    move();
  }

  // One step on or back, across hands.
  move(delta) {
    const hands = this.match.hands;
    let { hand, step } = this;
    step += delta;
    if (step < 0) {
      if (hand === 0) return;
      hand -= 1;
      step = stepsOf(hands[hand]).length - 1;
    } else if (step >= stepsOf(hands[hand]).length) {
      if (hand + 1 >= hands.length) return;
      hand += 1;
      step = 0;
    }
    this.go(hand, step);
  }

  jump(delta) {
    const hand = this.hand + delta;
    if (hand < 0 || hand >= this.match.hands.length) return;
    this.go(hand, 0);
  }

  go(hand, step) {
    this.hand = hand;
    this.step = step;
    // The URL names the step, so it can be linked (no new history entry each step).
    history.replaceState(null, '', `#/history/${encodeURIComponent(this.id)}?hand=${hand + 1}&step=${step + 1}`);
    this.render();
  }

  render() {
    if (!this.container) return;
    const back = h('a', { href: '#/history', class: 'back-link' }, '← All matches');
    if (this.error || !this.match) {
      replaceChildren(this.container, h('section', { class: 'replay card-panel' },
        back, h('h1', {}, 'Replay'),
        this.error ? h('p', { class: 'error', role: 'alert' }, this.error) : h('p', { role: 'status' }, 'Loading…')));
      return;
    }
    const match = this.match;
    const who = people(match, this.app.me());
    const title = `Replay: ${when(match.started_at)}`;
    if (!match.hands.length) {
      replaceChildren(this.container, h('section', { class: 'replay' }, back, h('h1', {}, title), h('p', {}, 'No hand was dealt.')));
      return;
    }
    const hand = match.hands[this.hand];
    const steps = stepsOf(hand);
    const step = steps[this.step];
    const last = this.hand === match.hands.length - 1 && this.step === steps.length - 1;
    const first = this.hand === 0 && this.step === 0;
    const stepName = step === 'deal' ? 'The deal' : step === 'bidding' ? 'The bidding' : `Trick ${step + 1} of ${hand.tricks.length}`;

    const nav = h('div', { class: 'replay-nav', role: 'group', 'aria-label': 'Replay controls' },
      h('button', { type: 'button', 'data-action': 'prev-hand', 'data-focus': 'prev-hand', disabled: this.hand === 0, onclick: () => this.jump(-1) }, '« Previous hand'),
      h('button', { type: 'button', 'data-action': 'prev', 'data-focus': 'prev', disabled: first, onclick: () => this.move(-1), 'aria-keyshortcuts': 'ArrowLeft' }, '◀ Previous'),
      h('span', { class: 'replay-where', 'aria-live': 'polite' }, `${this.gameLabel(match)}Hand ${this.hand + 1} of ${match.hands.length} · ${stepName}`),
      h('button', { type: 'button', 'data-action': 'next', 'data-focus': 'next', disabled: last, onclick: () => this.move(1), 'aria-keyshortcuts': 'ArrowRight' }, 'Next ▶'),
      h('button', { type: 'button', 'data-action': 'next-hand', 'data-focus': 'next-hand', disabled: this.hand + 1 >= match.hands.length, onclick: () => this.jump(1) }, 'Next hand »'));

    replaceChildren(this.container, h('section', { class: 'replay', dataset: { hand: String(this.hand), step: String(this.step), last: String(last) } },
      back,
      h('h1', {}, title),
      h('p', { class: 'replay-summary' }, this.summaryLine(match, who)),
      this.reporting(match),
      who.bots.length > 0 ? h('p', { class: 'replay-bots muted' }, `Bots: ${who.bots.join(', ')}`) : null,
      who.standIns.map((line) => h('p', { class: 'replay-stand-in muted' }, line)),
      nav,
      h('p', { class: 'hint' }, 'Use the ← and → keys to step, Page Up and Page Down to change hands.'),
      h('div', { class: 'replay-main' },
        this.felt(match, hand, step, who),
        this.sidebar(match, hand, step, who)),
      analysisPanel(this.analysis?.state, match, this.hand, step, who)));
  }

  // A Report button for each other person who played: the report names
  // this match, whose replay the moderators open.
  reporting(match) {
    const me = this.app.me();
    const others = match.seats.filter((seat) => seat.player_id && seat.player_id !== me);
    if (!this.app.social || others.length === 0) return null;
    return h('p', { class: 'replay-report muted' }, 'Report a player: ', others.map((seat) => h('button', {
      type: 'button', class: 'link', 'data-report': seat.player_id,
      onclick: () => this.app.social.report({ player: { id: seat.player_id, name: seat.name }, match: this.id }),
    }, seat.name)));
  }

  // "Game 2 · " in a rubber's replay.
  gameLabel(match) {
    if (!match.rules?.rubber) return '';
    return `Game ${gameOfHands(match)[this.hand] + 1} · `;
  }

  summaryLine(match, who) {
    const { myTeam } = who;
    const rubber = rubberSummary(match);
    if (rubber) {
      const result = who.mySeat === null ? `${who.teamName(rubber.winner)} won the rubber` : rubber.winner === myTeam ? 'You won the rubber' : 'You lost the rubber';
      return `${result} ${rubber.won[rubber.winner]} games to ${rubber.won[1 - rubber.winner]}, rubber points ${rubber.points[rubber.winner]} to ${rubber.points[1 - rubber.winner]}, a margin of ${rubber.margin} · ${presetTitle(match.rules)}, games to ${match.rules?.points_to_win ?? '?'}`;
    }
    const over = match.winner !== null && match.winner !== undefined;
    const title = `${presetTitle(match.rules)}${who.partners ? '' : `, ${who.players} players`}, ${goal(match.rules)}`;
    if (!who.partners) {
      // Each player's score; the winner named.
      const winner = over ? (match.winners?.[0] ?? match.winner) : null;
      const result = !over ? unfinishedWord(match) : winner === who.mySeat ? 'You won' : `${who.nameOf(winner)} won`;
      return `${result} — ${who.scoreLine(match.scores, ', ')} · ${title}`;
    }
    const won = wonBy(match, who);
    const result = !over ? unfinishedWord(match)
      : who.mySeat === null ? `${who.teamName(match.winner)} won` : won ? 'You won' : 'You lost';
    return `${result} — ${who.scoreLine(match.scores, ', ')} · ${title}`;
  }

  felt(match, hand, step, who) {
    const trickIndex = typeof step === 'number' ? step : -1;
    // The cards played in earlier tricks are shown faded in the hands.
    const gone = new Set(hand.tricks.slice(0, Math.max(0, trickIndex)).flatMap((t) => t.plays.map((p) => p.card)));
    const current = trickIndex >= 0 ? hand.tricks[trickIndex] : null;
    if (current) for (const play of current.plays) gone.add(play.card);
    // From the bidding on (its list ends with the discards) each hand is
    // what it was played with: the up-card picked up, the card passed to a
    // loner moved, the discards out of it and listed apart.
    const cards = step === 'deal' ? { held: hand.hands ?? [], discarded: [], picked: null } : handsAfterBidding(hand);
    const pickedUp = (seat, card) => cards.picked?.seat === seat && cards.picked.card === card;
    // Only partners sit out (a loner's, a lone defender's).
    const out = new Set();
    if (who.partners && hand.outcome?.alone) out.add((hand.outcome.maker + 2) % 4);
    if (who.partners && hand.outcome?.lone_defender !== null && hand.outcome?.lone_defender !== undefined) out.add((hand.outcome.lone_defender + 2) % 4);
    const trump = hand.outcome ? hand.outcome.trump ?? null : trumpOf(hand);
    const knownTrump = step === 'deal' ? null : trump;
    const seats = who.seats.map((seat) => {
      const dealt = cards.held[seat];
      const discarded = cards.discarded[seat] ?? [];
      const badges = [seat === hand.dealer && h('span', { class: 'badge dealer' }, 'Dealer'),
        step !== 'deal' && hand.outcome?.maker === seat && h('span', { class: 'badge maker' },
          hand.outcome.alone ? (match.rules?.dummy ? 'Maker, without the dummy' : 'Maker, alone') : 'Maker'),
        step !== 'deal' && hand.outcome?.lone_defender === seat && h('span', { class: 'badge maker' }, 'Defends alone'),
        step !== 'deal' && out.has(seat) && h('span', { class: 'badge out' }, 'Sits out')];
      return h('div', { class: ['seat', `seat-${who.position(seat)}`], dataset: { seat: String(seat) } },
        h('span', { class: 'seat-name' }, who.nameOf(seat)),
        h('div', { class: 'badges' }, badges),
        dealt
          ? h('div', { class: 'replay-hand', role: 'list', 'aria-label': `${who.nameOf(seat)}: ${step === 'deal' ? 'the hand as dealt' : 'the hand played'}` },
            sortForDisplay(dealt, knownTrump).map((card) => h('div', { role: 'listitem' }, cardFace(card, {
              trump: knownTrump,
              'data-card': card,
              class: gone.has(card) ? 'spent' : pickedUp(seat, card) ? 'picked-up' : undefined,
              label: `${cardName(card)}${gone.has(card) ? ', played' : pickedUp(seat, card) ? ', picked up' : ''}`,
            }))))
          : h('p', { class: 'caption' }, 'Cards hidden until the match is over'),
        discarded.length > 0 && h('p', { class: 'caption replay-discard' }, `Discarded: ${discarded.map(cardShort).join(' ')}`));
    });

    const center = [];
    if (step === 'deal' || step === 'bidding') {
      // A joker turned up: the suit the dealer named for it, beside it.
      const named = isJoker(hand.up_card) ? jokerSuitOf(hand) : null;
      const label = `Up-card: ${cardName(hand.up_card)}${named ? `, standing for ${named}` : ''}`;
      center.push(h('div', { class: 'up-card' },
        h('div', { class: 'up-card-row' }, cardFace(hand.up_card, { label }),
          named && h('span', { class: ['joker-suit', `suit-${named}`], 'data-suit': named },
            h('span', { class: 'big', 'aria-hidden': 'true' }, SUIT_SYMBOLS[named]), ` ${suitName(named)}`)),
        h('span', { class: 'caption' }, step === 'bidding' && cards.picked ? 'Up-card, picked up by the dealer' : 'Up-card')));
      if (step === 'bidding') center.push(this.bids(hand, who, 'center-bids'));
    } else if (current) {
      const done = current.winner !== null && current.winner !== undefined;
      center.push(h('div', { class: ['trick', done && 'done'], 'aria-label': `Trick ${trickIndex + 1}` },
        current.plays.map((play, i) => cardFace(play.card, {
          trump,
          class: ['played', `at-${who.position(play.seat)}`, done && play.seat === current.winner && 'winner'].filter(Boolean).join(' '),
          label: `${cardName(play.card)}, ${i === 0 ? 'led' : 'played'} by ${who.nameOf(play.seat)}${done && play.seat === current.winner ? ', winning' : ''}${cardMarkWords(this.analysis?.state, this.hand, play.card)}`,
          'data-mark': cardMark(this.analysis?.state, this.hand, play.card),
        }))));
      if (done) center.push(h('p', { class: 'trick-winner' }, `${who.nameOf(current.winner)} ${current.winner === who.mySeat ? 'win' : 'wins'} trick ${trickIndex + 1}`));
    }
    const lastStep = this.step === stepsOf(hand).length - 1;
    if (lastStep && hand.outcome) center.push(h('p', { class: 'result' }, outcomeLine(hand.outcome, who)));
    const ended = lastStep && this.gameEnded(match, this.hand);
    if (ended) center.push(h('p', { class: 'game-break' }, gameEndLine(ended, who)));
    return h('div', { class: 'felt replay-felt', dataset: { players: String(who.players) } },
      seats, this.dummy(hand, step, who, new Set([...gone, ...cards.discarded.flat()]), knownTrump), h('div', { class: 'center' }, center));
  }

  // The dummy of the two- and three-handed games that deal one (the API's
  // `dummy`, once the match is over): face up where no seat is, with who
  // took it, or that the maker went without it. Its cards played are faded.
  dummy(hand, step, who, gone, trump) {
    if (!hand.dummy?.length) return null;
    const played = hand.outcome?.ending === 'played' && step !== 'deal';
    const maker = played ? who.nameOf(hand.outcome.maker) : null;
    const caption = !played ? 'The dummy'
      : hand.outcome.alone ? `The dummy: ${maker} ${maker === 'You' ? 'play' : 'plays'} without it` : `The dummy, taken by ${maker}`;
    return h('div', { class: ['dummy-pile', `dummy-at-${who.players === 3 ? 'top' : 'left'}`, played && hand.outcome.alone && 'unused'], role: 'group', 'aria-label': caption },
      h('div', { class: 'replay-hand', role: 'list' }, sortForDisplay(hand.dummy, trump).map((card) => h('div', { role: 'listitem' },
        cardFace(card, { trump, class: gone.has(card) ? 'spent' : undefined, label: `${cardName(card)}${gone.has(card) ? ', played or put back' : ''}` })))),
      h('span', { class: 'caption' }, caption));
  }

  bids(hand, who, extra) {
    const bids = hand.actions.filter((a) => a.action !== 'play');
    return h('ol', { class: ['replay-bids', extra] },
      bids.map((action) => h('li', {}, `${who.nameOf(action.seat)}: ${actionText(action, hand)}`)));
  }

  sidebar(match, hand, step, who) {
    // A rubber's next game starts again at 0.
    const games = gameOfHands(match);
    const firstOfGame = this.hand === 0 || games[this.hand] !== games[this.hand - 1];
    const before = firstOfGame ? [] : match.hands[this.hand - 1].scores;
    const lastStep = this.step === stepsOf(hand).length - 1;
    const score = lastStep ? hand.scores : before;
    const trickIndex = typeof step === 'number' ? step : -1;
    const trump = hand.outcome ? hand.outcome.trump ?? null : trumpOf(hand);
    const noTrump = noTrumpOf(hand);
    const ended = lastStep && this.gameEnded(match, this.hand);
    return h('aside', { class: 'replay-side card-panel' },
      h('h2', {}, `${this.gameLabel(match)}Hand ${this.hand + 1}`),
      h('dl', { class: 'scores', 'data-sides': who.sides.length }, who.sides.map((side) => [
        h('dt', {}, who.teamName(side)), h('dd', { 'data-team': side }, String(score?.[side] ?? 0))])),
      h('p', { class: 'caption' }, lastStep ? 'Score after this hand' : 'Score before this hand'),
      h('p', {}, `Dealer: ${who.nameOf(hand.dealer)} · Up-card: ${cardShort(hand.up_card)}`,
        isJoker(hand.up_card) && jokerSuitOf(hand) ? ` for ${SUIT_SYMBOLS[jokerSuitOf(hand)]} ${suitName(jokerSuitOf(hand))}` : ''),
      trump && step !== 'deal' ? h('p', {}, `Trump: ${SUIT_SYMBOLS[trump]} ${suitName(trump)}`) : null,
      noTrump && step !== 'deal' ? h('p', { class: 'no-trump-line' }, 'No trump: no bowers, the led suit wins') : null,
      h('h3', {}, 'Calls'),
      this.bids(hand, who),
      h('h3', {}, 'Tricks'),
      h('ol', { class: 'replay-tricks' }, hand.tricks.map((trick, i) => h('li', { class: i === trickIndex ? 'current' : undefined, 'aria-current': i === trickIndex ? 'step' : undefined },
        trick.plays.map((p) => cardShort(p.card)).join(' '),
        trick.winner !== null && trick.winner !== undefined ? ` → ${who.nameOf(trick.winner)}` : ''))),
      this.dealCheck(),
      lastStep && hand.outcome ? h('p', { class: 'outcome' }, outcomeLine(hand.outcome, who)) : null,
      ended ? h('p', { class: 'game-end' }, gameEndLine(ended, who)) : null,
      lastStep && this.hand === match.hands.length - 1 && match.finished ? h('p', { class: 'match-end' }, matchEndLine(match, who)) : null);
  }

  dealCheck() {
    const check = this.dealChecks?.[this.hand];
    const text = DEAL_CHECK_TEXT[check];
    return text ? h('p', { class: 'deal-check', dataset: { check } }, text) : null;
  }

  // The rubber's game that hand `index` ended, if it ended one:
  // { number, game, last }.
  gameEnded(match, index) {
    const games = match.rubber ?? [];
    if (!match.rules?.rubber || games.length === 0) return null;
    const of = gameOfHands(match);
    const number = of[index];
    const last = index + 1 === match.hands.length;
    if (!last && of[index + 1] === number) return null;
    const game = games[number];
    return game ? { number, game, last: last && match.finished } : null;
  }
}

// "Game 1 to Us, 10–6", and what follows it.
function gameEndLine({ number, game, last }, who) {
  const text = `Game ${number + 1} to ${who.teamName(game.winner)}, ${game.scores[game.winner]}–${game.scores[1 - game.winner]} (${game.rubber_points} rubber point${game.rubber_points === 1 ? '' : 's'})`;
  return last ? `${text}: the rubber is decided.` : `${text}; game ${number + 2} begins.`;
}

// Each seat's cards once the bidding is over (the API's `hands` are as
// dealt): the dealer holds the up-card he picked up, a loner the card his
// partner passed him, and each discard is out of its hand, listed apart.
// (A dummy taken stays in its own pile, js `dummy`.) `picked`: the
// up-card and who picked it up, if anyone did.
export function handsAfterBidding(hand) {
  const held = (hand.hands ?? []).map((cards) => [...cards]);
  const discarded = held.map(() => []);
  const take = (seat, card) => {
    const at = held[seat]?.indexOf(card) ?? -1;
    if (at >= 0) held[seat].splice(at, 1);
  };
  let picked = null;
  // The dealer picked the up-card up if he discarded after it was ordered
  // up (not when his partner went alone without him, by the rules).
  const ordered = hand.actions.some((a) => a.action === 'order_up');
  const dealerDiscards = hand.actions.some((a) => a.action === 'discard' && a.seat === hand.dealer);
  if (ordered && dealerDiscards && held[hand.dealer]) {
    held[hand.dealer].push(hand.up_card);
    picked = { seat: hand.dealer, card: hand.up_card };
  }
  for (const action of hand.actions) {
    if (!action.card) continue;
    if (action.action === 'pass_card' && hand.outcome?.maker !== undefined) {
      take(action.seat, action.card);
      held[hand.outcome.maker]?.push(action.card);
    } else if (action.action === 'discard') {
      take(action.seat, action.card);
      discarded[action.seat]?.push(action.card);
    }
  }
  return { held, discarded, picked };
}

// Whether the hand was called at no trump.
function noTrumpOf(hand) {
  return hand.actions.some((a) => a.action === 'call_no_trump');
}

// The suit the dealer named for a turned-up joker, if he did.
function jokerSuitOf(hand) {
  return hand.actions.find((a) => a.action === 'name_suit')?.suit ?? null;
}

// Trump from the calls when the hand has no outcome yet.
function trumpOf(hand) {
  const call = hand.actions.find((a) => a.action === 'call' || a.action === 'order_up');
  if (!call) return null;
  return call.action === 'call' ? call.suit : upSuit(hand.up_card, jokerSuitOf(hand));
}

function actionText(action, hand) {
  const alone = action.alone ? ' alone' : '';
  switch (action.action) {
    case 'pass': return 'pass';
    case 'order_up': return action.seat === hand.dealer ? `picks it up${alone}` : `orders it up${alone}`;
    case 'call': return `calls ${action.suit}${alone}`;
    case 'call_no_trump': return `calls no trump${alone}`;
    case 'discard': return action.card ? `discards ${cardShort(action.card)}` : 'discards';
    case 'farmers_hand': return "throws in a farmer's hand";
    case 'defend_alone': return 'defends alone';
    case 'pass_card': return action.card ? `passes ${cardShort(action.card)} to the loner` : 'passes a card to the loner';
    case 'name_suit': return action.suit ? `names ${action.suit} for the Joker` : "names the Joker's suit";
    default: return action.action.replaceAll('_', ' ');
  }
}

export function outcomeLine(outcome, who) {
  if (outcome.ending === 'thrown_in') {
    return outcome.reason === 'farmers_hand' ? `${who.nameOf(outcome.seat)} threw in a farmer's hand.` : 'Everybody passed: thrown in.';
  }
  const makers = outcome.makers ?? (who.sideOf ? who.sideOf(outcome.maker) : teamOf(outcome.maker));
  const made = outcome.tricks[makers];
  // Who scored: one side, or (a euchre without partners) every defender.
  const sides = who.sides ?? outcome.points.map((_, side) => side);
  const points = sides.filter((side) => outcome.points[side] > 0).map((side) => `${who.teamName(side)} +${outcome.points[side]}`).join(', ');
  const what = made < 3 ? 'Euchred!' : made === 5 ? (outcome.alone ? 'Lone march!' : 'March!') : 'Made it.';
  const alone = outcome.alone ? (who.dummy ? ' without the dummy' : ' alone') : '';
  return `${what} ${who.nameOf(outcome.maker)} called ${outcome.trump ?? 'no trump'}${alone} and took ${made} trick${made === 1 ? '' : 's'}: ${points}.`;
}

// The match's end in the replay: the winner(s) and the final score.
export function matchEndLine(match, who) {
  if (match.winner === null || match.winner === undefined) return '';
  const winners = (match.winners?.length ? match.winners : seatsOfSide(match.winner, match.rules)).map(who.nameOf);
  const verb = winners.length === 1 && winners[0] !== 'You' ? 'wins' : 'win';
  const score = who.partners ? `${match.scores[match.winner]}–${match.scores[1 - match.winner]}` : who.scoreLine(match.scores, ', ');
  return `${winners.join(' and ')} ${verb} the game: ${score}.`;
}
