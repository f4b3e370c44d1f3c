// A link to a table the server no longer has (#/table/<id>): what became of
// it, from GET /api/tables/{id}: when and why it closed, whether its last
// game finished or was abandoned, and a link to that game in history.

import { h, replaceChildren } from './dom.js';

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
