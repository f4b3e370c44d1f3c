// A link to a table the server no longer has (#/table/<id>): what became of
// it, from GET /api/tables/{id}: when and why it closed, whether its last
// game finished or was abandoned, and a link to that game in history. And
// the lobby's recently closed tables of the player: each table that left
// their list of live tables, for two hours, with how its game ended.

import { h, replaceChildren } from './dom.js';
import { matchResult, people, wonBy } from './history.js';
import { tableName } from './rules.js';

const REASONS = {
  everyone_left: 'after everyone left',
  lost: 'because the server could not bring it back after a restart',
};

function when(ms) {
  return new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

// The sentences a closed table's page says, from the API's table (pure, for
// the page and its tests).
export function closedTableLines(table) {
  // Of a private table the server says only that it is private and closed.
  if (table.private) return ['This private table has closed.'];
  const lines = [];
  const why = REASONS[table.closed_reason];
  const at = table.closed_at ? ` on ${when(table.closed_at)}` : '';
  lines.push(`${table.host}'s table closed${at}${why ? `, ${why}` : ''}.`);
  const game = table.last_match;
  if (!game) lines.push('No game was played at it.');
  else if (game.finished) lines.push(`Its game ${game.number > 1 ? `(the ${ordinal(game.number)}) ` : ''}was played to the end.`);
  else lines.push('Its game was abandoned before the end: nobody won it.');
  return lines;
}

function ordinal(n) {
  const tail = n % 100 >= 11 && n % 100 <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] ?? 'th');
  return `${n}${tail}`;
}

export class ClosedTableView {
  constructor(id) {
    this.id = id;
  }

  async mount(container) {
    const panel = h('section', { class: 'closed-table card-panel' }, h('h1', {}, 'This table has closed'), h('p', { class: 'muted' }, 'Looking it up…'));
    replaceChildren(container, panel);
    let table = null;
    let problem = null;
    try {
      const response = await fetch(`/api/tables/${encodeURIComponent(this.id)}`, { headers: { accept: 'application/json' } });
      if (response.status === 404) problem = 'There is no table at this link: it may be mistyped.';
      else if (!response.ok) problem = `The table could not be looked up (${response.status}).`;
      else table = await response.json();
    } catch (error) {
      problem = `The table could not be looked up: ${error.message}`;
    }
    // An open table here is private and the link lacks its invite.
    if (table?.state === 'open') problem = 'This table is private: ask its host for the invite link.';
    const game = table?.last_match;
    replaceChildren(panel,
      h('h1', {}, table?.state === 'open' ? 'A private table' : 'This table has closed'),
      problem ? h('p', { role: 'alert' }, problem) : closedTableLines(table).map((line) => h('p', { class: 'closed-line' }, line)),
      h('p', { class: 'closed-actions' },
        game && table.state === 'closed' ? h('a', { class: 'button', href: `#/history/${encodeURIComponent(game.id)}` }, game.finished ? 'Replay the game' : 'See the game in history') : null,
        ' ',
        h('a', { class: 'button secondary', href: '#/' }, 'Back to the lobby')));
  }

  unmount() {}
}

// ---- the lobby's recently closed tables ----

const KNOWN = 'euchre.mine';
const RECENT = 'euchre.closed';
const KEEP_MS = 2 * 60 * 60 * 1000;

const read = (key, fallback) => {
  try {
    return JSON.parse(localStorage.getItem(key) ?? 'null') ?? fallback;
  } catch {
    return fallback;
  }
};
const write = (key, value) => {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // storage full or off: the list is a nicety
  }
};

// The player's live tables as the server lists them (`yours`): one listed
// before and not now has closed, or was left; it is kept a while.
export function noteYourTables(tables) {
  const known = read(KNOWN, {});
  const recent = read(RECENT, {});
  const now = Date.now();
  const live = new Set(tables.map((t) => t.table));
  for (const [id, name] of Object.entries(known)) {
    if (!live.has(id) && !(id in recent)) recent[id] = { at: now, name };
  }
  for (const [id, entry] of Object.entries(recent)) {
    if (now - entry.at > KEEP_MS || live.has(id)) delete recent[id];
  }
  write(KNOWN, Object.fromEntries(tables.slice(0, 50).map((t) => [t.table, tableName(t)])));
  write(RECENT, recent);
}

// The player's matches, looked up once for the tables listed.
let lookup = { key: '', matches: null, at: 0, polls: 0 };

// The recently closed tables whose game has an end state (finished or
// abandoned), newest first: { id, name, match, line }. The player's
// matches are fetched once for them; `onLoad` is called when they come.
export function recentlyClosed(me, onLoad) {
  const now = Date.now();
  const recent = Object.entries(read(RECENT, {}))
    .filter(([, entry]) => now - entry.at <= KEEP_MS)
    .sort((a, b) => b[1].at - a[1].at)
    .slice(0, 5);
  if (!me || recent.length === 0) return [];
  const key = `${me}:${recent.map(([id]) => id).join(',')}`;
  const ended = (id) => lookup.matches?.some((m) => m.table_id === id && (m.finished || m.abandoned));
  // Asked again now and then while a table's game has no end yet (bots
  // may still be finishing it).
  const stale = lookup.matches && recent.some(([id]) => !ended(id)) && now - lookup.at > 3000;
  if (lookup.key !== key || stale) {
    const polls = lookup.key === key ? lookup.polls + 1 : 0;
    lookup = { key, matches: lookup.key === key ? lookup.matches : null, at: now, polls };
    fetch(`/api/matches?player=${encodeURIComponent(me)}&limit=50`, { headers: { accept: 'application/json' } })
      .then((response) => (response.ok ? response.json() : null))
      .then((page) => {
        if (lookup.key !== key) return;
        lookup.matches = page?.matches ?? [];
        onLoad();
        // A game without its end yet: look again in a moment (a few times).
        const open = recent.some(([id]) => !ended(id));
        if (open && lookup.polls < 20) setTimeout(onLoad, 3500);
      })
      .catch(() => {});
  }
  return recent.flatMap(([id, entry]) => {
    const match = lookup.matches?.find((m) => m.table_id === id);
    if (!match || !(match.finished || match.abandoned)) return [];
    const who = people(match, me);
    const line = `${matchResult(match, wonBy(match, who))} — ${who.scoreLine(match.scores, ', ')}`;
    return [{ id, name: entry.name, match, line }];
  });
}
