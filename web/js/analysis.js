// The solver's analysis of a finished match in the replay:
// fetched from GET /api/matches/{id}/analysis and asked for again after the
// server's hint while it is being computed (202); then the marks on each
// decision of the step shown ("best: A♠, one more trick"; "with what you
// knew: order up, +0.4"), a small graph of the expected score through the
// hand, and each player's accuracy and points lost over the match.

import { h, replaceChildren } from './dom.js';
import { cardShort } from './cards.js';

// How long to wait before asking again when the server gives no hint, and
// the longest wait whatever it says (seconds).
const DEFAULT_RETRY = 5;
const LONGEST_RETRY = 60;

const MARK_NAMES = { best: 'Best', good: 'Good', inaccuracy: 'Inaccuracy', mistake: 'Mistake', blunder: 'Blunder' };
const MARK_ORDER = ['best', 'good', 'inaccuracy', 'mistake', 'blunder'];

// Fetches one match's analysis, asking again while it is queued.
// `state` is { status: 'loading' | 'queued' | 'ready' | 'failed', analysis, message };
// `onChange` is called each time it changes.
export class AnalysisLoader {
  constructor(id, onChange) {
    this.id = id;
    this.onChange = onChange;
    this.state = { status: 'loading' };
    this.timer = null;
    this.stopped = false;
  }

  start() {
    this.fetch();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  async fetch() {
    let response;
    let body;
    try {
      response = await fetch(`/api/matches/${encodeURIComponent(this.id)}/analysis`, { headers: { accept: 'application/json' } });
      body = await response.json().catch(() => null);
    } catch (error) {
      return this.retry({ status: 'failed', message: `The analysis could not be loaded (${error.message}); trying again…` }, DEFAULT_RETRY);
    }
    if (this.stopped) return undefined;
    if (response.status === 200 && body) return this.set({ status: 'ready', analysis: body });
    if (response.status === 202 || response.status === 503) {
      const hint = Number(response.headers.get('retry-after') ?? body?.retry_after);
      const wait = Number.isFinite(hint) && hint > 0 ? Math.min(hint, LONGEST_RETRY) : DEFAULT_RETRY;
      const message = response.status === 202 ? 'Analysing…' : 'Many games are being analysed: waiting for a turn…';
      return this.retry({ status: 'queued', message }, wait);
    }
    return this.set({ status: 'failed', message: body?.message ?? `${response.status} ${response.statusText}` });
  }

  retry(state, seconds) {
    this.set(state);
    if (!this.stopped) this.timer = setTimeout(() => this.fetch(), seconds * 1000);
  }

  set(state) {
    if (this.stopped) return;
    this.state = state;
    this.onChange();
  }
}

// An option as a player would say it: "A♠", "order up alone", "pass".
export function optionText(action) {
  const alone = action.alone ? ' alone' : '';
  switch (action.action) {
    case 'play': return cardShort(action.card);
    case 'pass': return 'pass';
    case 'order_up': return `order up${alone}`;
    case 'call': return `call ${action.suit}${alone}`;
    case 'call_no_trump': return `call no trump${alone}`;
    case 'discard': return `discard ${cardShort(action.card)}`;
    case 'pass_card': return `pass ${cardShort(action.card)}`;
    case 'name_suit': return `name ${action.suit}`;
    case 'defend_alone': return 'defend alone';
    case 'farmers_hand': return "throw in a farmer's hand";
    default: return action.action.replaceAll('_', ' ');
  }
}

const sameAction = (a, b) => a.action === b.action && a.card === b.card && a.suit === b.suit && Boolean(a.alone) === Boolean(b.alone);
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
const signed = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(1)}`;

// With every card shown: "best" or "best: A♠, one more trick".
export function shownNote(shown) {
  if (shown.mark === 'best') return 'best with every card shown';
  const best = shown.options.reduce((a, b) => (b.points > a.points || (b.points === a.points && b.tricks > a.tricks) ? b : a));
  const tricks = shown.tricks_lost;
  const gain = tricks === 1 ? 'one more trick' : tricks > 1 ? `${tricks} more tricks` : '';
  const points = shown.points_lost > 0 ? `${signed(shown.points_lost)} ${shown.points_lost === 1 ? 'point' : 'points'}` : '';
  return `best: ${optionText(best.action)}, ${[gain, points].filter(Boolean).join(', ')}`;
}

// With what the player knew: "best", or "order up, +0.4".
export function knownNote(known, mine) {
  const who = mine ? 'you' : 'they';
  if (known.mark === 'best') return `with what ${who} knew: best`;
  const best = known.options.reduce((a, b) => (b.expected > a.expected ? b : a));
  return `with what ${who} knew: ${optionText(best.action)}, ${signed(known.points_lost)}`;
}

// The worse of a decision's two marks.
function worstMark(decision) {
  const marks = [decision.shown?.mark, decision.known?.mark].filter(Boolean);
  return marks.reduce((a, b) => (MARK_ORDER.indexOf(b) > MARK_ORDER.indexOf(a) ? b : a), 'best');
}

// The mark of `card` as played in hand `handIndex`, once the analysis is
// in, when it is below the tolerance: the felt's badge on the card.
export function cardMark(state, handIndex, card) {
  if (state?.status !== 'ready') return undefined;
  const hand = state.analysis.hands.find((a) => a.number === handIndex);
  const decision = hand?.decisions.find((d) => d.chosen.action === 'play' && d.chosen.card === card);
  const mark = decision ? worstMark(decision) : 'best';
  return mark === 'best' || mark === 'good' ? undefined : mark;
}

// The badge in words, for the card's label: ", a mistake".
export function cardMarkWords(state, handIndex, card) {
  const mark = cardMark(state, handIndex, card);
  return mark ? `, ${mark === 'inaccuracy' ? 'an' : 'a'} ${mark}` : '';
}

// The replay step each of a hand's actions is shown at: 'bidding' before
// the first card, else the trick its card went to (an action between
// cards, a claim, at the trick of the card before it).
export function stepOfActions(hand) {
  const trickOfCard = new Map();
  hand.tricks.forEach((trick, i) => trick.plays.forEach((play) => trickOfCard.set(play.card, i)));
  let step = 'bidding';
  return hand.actions.map((action) => {
    if (action.action === 'play' && trickOfCard.has(action.card)) step = trickOfCard.get(action.card);
    return step;
  });
}

// The analysis panel under the replay: its state, or, once ready, the
// step's marks, the hand's graph and the match's players.
export function analysisPanel(state, match, handIndex, step, who) {
  const heading = h('h2', {}, 'Analysis');
  if (!state) return null;
  if (state.status !== 'ready') {
    return h('section', { class: 'replay-analysis card-panel', dataset: { status: state.status } }, heading,
      h('p', { role: 'status', class: state.status === 'failed' ? 'error' : 'muted' },
        state.status === 'loading' ? 'Loading the analysis…' : state.message));
  }
  const analysis = state.analysis;
  const hand = match.hands[handIndex];
  const analysed = analysis.hands.find((a) => a.number === handIndex);
  return h('section', { class: 'replay-analysis card-panel', dataset: { status: 'ready' } }, heading,
    hand && analysed ? stepMarks(analysed, hand, step, who) : h('p', { class: 'muted' }, 'This hand was not played to the end: nothing to analyse.'),
    hand && analysed ? handGraph(analysed, hand, match, who, step) : null,
    playersTable(analysis, who),
    h('p', { class: 'caption' }, `Marks: with every card shown, a card that costs a trick or points is a mistake; with what the player knew (${analysis.worlds} deals consistent with what they had seen), a choice a quarter of a point below the best in expectation is an inaccuracy, half a point a mistake, a point a blunder.`));
}

// The decisions made at the step shown, each with its marks.
function stepMarks(analysed, hand, step, who) {
  const steps = stepOfActions(hand);
  const decisions = analysed.decisions.filter((d) => steps[d.index] === step);
  if (step === 'deal') return h('p', { class: 'muted' }, 'Step on to the bidding to see each decision marked.');
  if (decisions.length === 0) return h('p', { class: 'muted' }, 'No choice here: every action was forced.');
  return h('ol', { class: 'analysis-marks' }, decisions.map((decision) => {
    const mine = decision.seat === who.mySeat;
    const mark = worstMark(decision);
    const notes = [decision.shown && shownNote(decision.shown), decision.known && knownNote(decision.known, mine)].filter(Boolean);
    return h('li', { class: ['analysis-mark', `mark-${mark}`], dataset: { mark, index: String(decision.index) } },
      h('span', { class: 'mark-badge' }, MARK_NAMES[mark]),
      h('strong', {}, `${who.nameOf(decision.seat)}: ${optionText(decision.chosen)}`),
      notes.length ? ` — ${notes.join('; ')}` : '');
  }));
}

// What the hand brought the viewer's side, less the others' (their
// average without partners): the scale of the expected values.
function handResult(hand, who) {
  const outcome = hand.outcome;
  if (!outcome || outcome.ending !== 'played') return 0;
  const mine = who.sideOf(who.mySeat ?? 0);
  const others = outcome.points.filter((_, side) => side !== mine);
  return outcome.points[mine] - others.reduce((a, b) => a + b, 0) / Math.max(others.length, 1);
}

// The graph's points for the viewer's side, one per decision, by one
// yardstick. 'known' (with what you knew): only the viewer's own
// decisions, each valued over the deals the viewer's view allowed; another
// seat's estimate is private to that seat, so it is never drawn, flipped or
// not. 'shown' (every card shown): each card played with a choice, solved
// with every hand seen, which is the same from any seat, so an opponent's
// card counts the other way round (without partners: only the viewer's own).
export function graphSeries(analysed, who, mode = 'known') {
  const viewer = who.mySeat ?? 0;
  const sign = (seat) => {
    if (seat === viewer) return 1;
    if (mode === 'known' || !who.partners) return 0;
    return who.sideOf(seat) === who.sideOf(viewer) ? 1 : -1;
  };
  return analysed.decisions.flatMap((d) => {
    const valued = mode === 'known' ? d.known : d.shown;
    const s = sign(d.seat);
    if (!valued || s === 0) return [];
    const worth = (o) => (mode === 'known' ? o.expected : o.points);
    const chosen = valued.options.find((o) => sameAction(o.action, d.chosen));
    const best = Math.max(...valued.options.map(worth));
    const value = chosen ? worth(chosen) : best - valued.points_lost;
    return [{ index: d.index, seat: d.seat, value: s * value, best: s * best, mark: valued.mark }];
  });
}

// Which yardstick the graph draws, kept while the replay steps on.
let graphMode = 'known';

const SVG = 'http://www.w3.org/2000/svg';
function svg(tag, attributes, ...children) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  for (const child of children) if (child) element.append(child);
  return element;
}

// The value for the viewer's side through the hand, one point per
// decision (coloured by its mark, with a tick to where the best option
// stood), then the hand's result; a box switches between what the viewer
// knew and every card shown.
export function handGraph(analysed, hand, match, who, step) {
  const figure = h('figure', { class: 'analysis-graph', dataset: { mode: graphMode } });
  const draw = () => {
    figure.dataset.mode = graphMode;
    replaceChildren(figure, ...graphParts(analysed, hand, who, step, () => draw()));
  };
  draw();
  return figure;
}

function graphParts(analysed, hand, who, step, redraw) {
  const toggle = h('label', { class: 'graph-mode' },
    h('input', { type: 'checkbox', checked: graphMode === 'shown', onchange: (e) => { graphMode = e.target.checked ? 'shown' : 'known'; redraw(); } }),
    ' Every card shown');
  const steps = stepOfActions(hand);
  const points = graphSeries(analysed, who, graphMode).map((p) => ({ ...p, now: steps[p.index] === step }));
  const side = who.partners ? who.teamName(who.sideOf(who.mySeat ?? 0)) : who.nameOf(who.mySeat ?? 0);
  const how = graphMode === 'known' ? 'with what you knew, at each of your decisions' : 'with every card shown, card by card';
  if (points.length === 0) {
    return [toggle, h('figcaption', { class: 'caption' }, graphMode === 'known'
      ? 'None of your decisions in this hand was a choice to value.'
      : 'No card in this hand was played with a choice.')];
  }
  const result = handResult(hand, who);
  const values = [0, result, ...points.flatMap((p) => [p.value, p.best])];
  const [low, high] = [Math.min(...values), Math.max(...values)];
  const span = Math.max(high - low, 1);
  const [width, height, pad, left] = [320, 110, 10, 26];
  const x = (i) => left + (i * (width - left - pad)) / points.length;
  const y = (v) => height - pad - ((v - low) * (height - 2 * pad)) / span;
  const label = `Points for ${side} through the hand, ${how}: from ${signed(points[0].value)} to a result of ${signed(result)}`;
  const line = [...points.map((p, i) => `${x(i)},${y(p.value)}`), `${x(points.length)},${y(result)}`].join(' ');
  return [
    toggle,
    svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': label, 'data-values': points.map((p) => p.value.toFixed(2)).join(' ') },
      svg('line', { x1: left, x2: width - pad, y1: y(0), y2: y(0), class: 'zero' }),
      svg('text', { x: 2, y: y(high) + 4, class: 'axis' }, document.createTextNode(signed(high))),
      svg('text', { x: 2, y: y(low) + 4, class: 'axis' }, document.createTextNode(signed(low))),
      svg('polyline', { points: line, class: 'expected' }),
      ...points.map((p, i) => (p.best !== p.value ? svg('line', { x1: x(i), x2: x(i), y1: y(p.value), y2: y(p.best), class: `gap mark-${p.mark}` }) : null)),
      ...points.map((p, i) => svg('circle', { cx: x(i), cy: y(p.value), r: p.now ? 5 : 3.5, class: ['point', `mark-${p.mark}`, p.now && 'now'].filter(Boolean).join(' ') })),
      svg('rect', { x: x(points.length) - 4, y: y(result) - 4, width: 8, height: 8, class: 'result' })),
    h('figcaption', { class: 'caption' }, `Points for ${side}, ${how}, then the hand's result (■).`),
  ];
}

// Each player's figures over the match, one per yardstick, each named as
// the API names it (`accuracy`; `card_mistakes` of `card_plays`) and
// defined under the table.
function playersTable(analysis, who) {
  const percent = (x) => (x === null || x === undefined ? '–' : `${Math.round(x * 100)}%`);
  return h('div', { class: 'analysis-players-wrap' }, h('table', { class: 'analysis-players' },
    h('caption', {}, 'The whole match'),
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, 'Player'),
      h('th', { scope: 'col', dataset: { field: 'accuracy' } }, 'With what they knew: accuracy'),
      h('th', { scope: 'col', dataset: { field: 'points_lost' } }, 'Points lost'),
      h('th', { scope: 'col' }, 'Inaccuracies · mistakes · blunders'),
      h('th', { scope: 'col', dataset: { field: 'card_mistakes' } }, 'With every card shown: cards that cost tricks'))),
    h('tbody', {}, analysis.players.map((p) => h('tr', { dataset: { seat: String(p.seat) } },
      h('th', { scope: 'row' }, who.nameOf(p.seat)),
      h('td', { class: 'accuracy', dataset: { field: 'accuracy' } }, percent(p.accuracy)),
      h('td', {}, p.points_lost.toFixed(1)),
      h('td', {}, `${p.inaccuracies} · ${p.mistakes} · ${p.blunders}`),
      h('td', { dataset: { field: 'card_mistakes' } }, `${p.card_mistakes} of ${plural(p.card_plays, 'card')}`))))),
  h('dl', { class: 'analysis-definitions caption' },
    h('dt', {}, 'With what they knew: accuracy'),
    h('dd', {}, `The share of the player's decisions within a quarter of a point of the best choice, each valued over ${analysis.worlds} deals consistent with what the player had seen.`),
    h('dt', {}, 'With every card shown: cards that cost tricks'),
    h('dd', {}, 'Of the cards the player chose among several, those that gave up a trick or points against the best card, every hand seen (bids are not counted).')));
}
