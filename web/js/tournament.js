// Tournaments: the lobby's section (those upcoming and running, and a form
// for an account to organise one) and a tournament's page (its entries,
// each round's tables and results, the standings), both read from
// /api/tournaments. The page polls while open and, when a round seats the
// player, opens their table once.

import { h, replaceChildren } from './dom.js';
import { api } from './account.js';
import { PRESETS } from './rules.js';

const FORMATS = {
  swiss: 'Swiss (partnerships paired by score)',
  knockout: 'Knockout (partnerships in a bracket)',
  progressive: 'Progressive (partners change every round)',
};
const STATUS = { registering: 'Registering', running: 'Running', finished: 'Finished', cancelled: 'Cancelled' };
const LIST_EVERY_MS = 10000;
const VIEW_EVERY_MS = 2500;

export function tournamentHash(id) {
  return `#/tournament/${encodeURIComponent(id)}`;
}

function presetTitle(preset) {
  return PRESETS[preset]?.title ?? preset;
}

function when(ms) {
  return new Date(ms).toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });
}

// "in 4 min 05 s", or "now" once the time has come.
function countdown(ms) {
  const seconds = Math.max(0, Math.round((ms - Date.now()) / 1000));
  if (seconds === 0) return 'now';
  const [d, hr, min, s] = [Math.floor(seconds / 86400), Math.floor(seconds / 3600) % 24, Math.floor(seconds / 60) % 60, seconds % 60];
  if (d > 0) return `in ${d} d ${hr} h`;
  if (hr > 0) return `in ${hr} h ${min} min`;
  return min > 0 ? `in ${min} min ${String(s).padStart(2, '0')} s` : `in ${s} s`;
}

// The tables opened for this player already: a round's table is opened for
// them once, not again after they chose to come back to the page.
const OPENED_KEY = 'euchre.tournamentTablesOpened';
function openedTables() {
  try {
    return new Set(JSON.parse(sessionStorage.getItem(OPENED_KEY) ?? '[]'));
  } catch {
    return new Set();
  }
}
function markOpened(table) {
  const opened = openedTables();
  opened.add(table);
  try {
    sessionStorage.setItem(OPENED_KEY, JSON.stringify([...opened].slice(-200)));
  } catch {
    // storage full or off: the table may be opened again, nothing worse
  }
}

// Whether `table` is opened for the first time: marked opened if so (the
// round's notice and the page each open it once, whichever comes first).
export function firstOpening(table) {
  if (openedTables().has(table)) return false;
  markOpened(table);
  return true;
}

// The server answers a creation once it is durable, and its reads follow
// a moment later: the new tournament's page opens once the list has it
// (or after a few seconds anyway), not on a "no such tournament".
async function listed(id) {
  for (let tries = 0; tries < 20; tries += 1) {
    const answer = await api('GET', '/api/tournaments').catch(() => null);
    if (answer?.tournaments.some((t) => t.id === id)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

// The lobby's section. `app` gives: identity(), go(hash), failed(error).
export class TournamentsPanel {
  constructor(app) {
    this.app = app;
    this.timer = null;
    this.list = h('div', { class: 'tournament-list', 'aria-live': 'polite' }, h('p', { class: 'muted' }, 'Loading tournaments…'));
    this.organise = h('div', { class: 'organise' });
    this.root = h('section', { class: 'tournaments', 'aria-labelledby': 'tournaments-heading' },
      h('h2', { id: 'tournaments-heading' }, 'Tournaments'), this.list, this.organise);
  }

  start() {
    this.stop();
    this.load();
    this.timer = setInterval(() => this.load(), LIST_EVERY_MS);
    this.drawOrganise();
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
  }

  async load() {
    let answer;
    try {
      answer = await api('GET', '/api/tournaments');
    } catch (error) {
      this.drawn = null;
      replaceChildren(this.list, h('p', { class: 'muted' }, `Tournaments could not be loaded: ${error.message}`));
      return;
    }
    const shown = answer.tournaments.filter((t) => t.status === 'registering' || t.status === 'running');
    // Redrawn only when something changed: the list is a live region.
    const drawn = JSON.stringify(shown);
    if (drawn === this.drawn) return;
    this.drawn = drawn;
    if (shown.length === 0) {
      replaceChildren(this.list, h('p', { class: 'muted' }, 'No tournaments coming up.'));
      return;
    }
    replaceChildren(this.list, h('ul', { class: 'tables' }, shown.map((t) =>
      h('li', { class: 'table-row tournament-row', 'data-tournament': t.id },
        h('div', { class: 'who' }, h('a', { href: tournamentHash(t.id) }, h('strong', {}, t.name))),
        h('div', { class: 'what muted' }, `${FORMATS[t.format]?.split(' (')[0] ?? t.format} · ${presetTitle(t.preset)}`),
        h('div', {}, t.status === 'registering'
          ? `${t.players} of ${t.max_players} registered · starts ${when(t.starts_at)}`
          : `running · ${t.players} players`)))));
  }

  drawOrganise() {
    const { account, token } = this.app.identity();
    if (!account || !token) {
      replaceChildren(this.organise, h('p', { class: 'muted' }, 'With an account (Account) you can organise a tournament.'));
      return;
    }
    replaceChildren(this.organise, h('details', {}, h('summary', {}, 'Organise a tournament'), this.form()));
  }

  form() {
    const name = h('input', { id: 'tournament-name', name: 'name', required: true, maxlength: 64, autocomplete: 'off' });
    const format = h('select', { id: 'tournament-format', name: 'format' },
      Object.entries(FORMATS).map(([value, text]) => h('option', { value }, text)));
    const rounds = h('input', { id: 'tournament-rounds', name: 'rounds', type: 'number', min: 1, max: 20, value: '3', required: true });
    const roundsField = h('div', { class: 'field' }, h('label', { class: 'label', for: rounds.id }, 'Rounds'), rounds);
    const hands = h('input', { id: 'tournament-hands', name: 'round_hands', type: 'number', min: 0, max: 20, value: '8', required: true });
    const handsField = h('div', { class: 'field' }, h('label', { class: 'label', for: hands.id }, 'Hands a round (0: a game to 10)'), hands);
    const bestOf = h('select', { id: 'tournament-best-of', name: 'best_of' },
      h('option', { value: '1' }, 'One game'), h('option', { value: '3' }, 'Best of three'));
    const bestOfField = h('div', { class: 'field', hidden: true }, h('label', { class: 'label', for: bestOf.id }, 'Each match'), bestOf);
    const clock = h('input', { id: 'tournament-clock', name: 'round_minutes', type: 'number', min: 1, max: 1440, placeholder: 'none' });
    const clockField = h('div', { class: 'field' }, h('label', { class: 'label', for: clock.id }, 'Round clock (minutes; empty: none)'), clock);
    const minutes = h('input', { id: 'tournament-start', name: 'start', type: 'number', min: 0, max: 10080, value: '10', required: true });
    const rated = h('input', { id: 'tournament-rated', name: 'rated', type: 'checkbox' });
    // A knockout plays until one team is left: its rounds follow from the
    // field. Hands a round are a progressive night's; best of three a knockout's.
    const shown = (field, input, on) => {
      field.hidden = !on;
      input.disabled = !on;
    };
    format.addEventListener('change', () => {
      shown(roundsField, rounds, format.value !== 'knockout');
      shown(handsField, hands, format.value === 'progressive');
      shown(bestOfField, bestOf, format.value === 'knockout');
    });
    shown(bestOfField, bestOf, false);
    const submit = async (event) => {
      event.preventDefault();
      const body = {
        name: name.value.trim(),
        format: format.value,
        preset: 'standard',
        starts_in_seconds: Math.round(Number(minutes.value) * 60),
        ...(format.value === 'knockout' ? { best_of: Number(bestOf.value) } : { rounds: Number(rounds.value) }),
        ...(format.value === 'progressive' ? { round_hands: Number(hands.value) } : {}),
        ...(clock.value ? { round_seconds: Math.round(Number(clock.value) * 60) } : {}),
        rated: rated.checked,
      };
      try {
        const created = await api('POST', '/api/tournaments', { token: this.app.identity().token, body });
        await listed(created.id);
        this.app.go(tournamentHash(created.id));
      } catch (error) {
        this.app.failed(error);
      }
    };
    return h('form', { class: 'create-form tournament-form', onsubmit: submit },
      h('div', { class: 'field' }, h('label', { class: 'label', for: name.id }, 'Name'), name),
      h('div', { class: 'field' }, h('label', { class: 'label', for: format.id }, 'Format'), format),
      roundsField, handsField, bestOfField, clockField,
      h('div', { class: 'field' }, h('label', { class: 'label', for: minutes.id }, 'Starts in (minutes)'), minutes),
      h('label', { class: 'check', for: rated.id }, rated, ' Rated (a table with a bot in a seat never is)'),
      h('p', { class: 'muted' }, 'Standard rules. At the round clock a table still playing ends after the hand in play. Players register on its page until the start; you can start it early there.'),
      h('button', { type: 'submit', class: 'primary' }, 'Create tournament'));
  }
}

// A tournament's page. `app` gives: identity(), role() (a moderator's or
// admin's, else null), go(hash), open(table), notice(text), failed(error).
export class TournamentView {
  constructor(app, id) {
    this.app = app;
    this.id = id;
    this.view = null;
    this.missing = null;
    this.busy = false;
    this.matches = new Map(); // table id → its last match id, for the replay link
    this.heading = h('h1', {}, 'Tournament');
    this.body = h('div', { class: 'tournament-body' }, h('p', { class: 'muted' }, 'Loading…'));
    this.root = h('section', { class: 'tournament card-panel', 'data-tournament': id }, this.heading, this.body);
  }

  mount(container) {
    replaceChildren(container, this.root);
    this.load();
    this.poll = setInterval(() => this.load(), VIEW_EVERY_MS);
    this.tick = setInterval(() => this.drawCountdown(), 1000);
  }

  unmount() {
    clearInterval(this.poll);
    clearInterval(this.tick);
    this.gone = true;
  }

  async load() {
    let drawn;
    try {
      this.view = await api('GET', `/api/tournaments/${encodeURIComponent(this.id)}`);
      this.missing = null;
      drawn = JSON.stringify(this.view);
    } catch (error) {
      this.missing = error;
    }
    if (this.gone) return;
    // Redrawn only when the tournament changed, so the page holds still
    // for someone reading it.
    if (drawn === undefined || drawn !== this.drawn) this.render();
    this.drawn = drawn;
    this.openMyTable();
  }

  me() {
    return this.app.identity().id ?? null;
  }

  // The round in play seats this player (not a bot for them): their table,
  // opened once.
  openMyTable() {
    const round = this.view?.status === 'running' ? this.view.round_list.at(-1) : null;
    if (!round || round.finished || !this.me()) return;
    const mine = round.tables.find((t) => t.table && t.games === null
      && t.seats.some((s) => s.player_id === this.me() && !s.bot));
    if (!mine || !firstOpening(mine.table)) return;
    this.app.notice(`Round ${round.number}: your table is ready.`);
    this.app.open(mine.table);
  }

  async act(method, path, done) {
    if (this.busy) return;
    this.busy = true;
    try {
      await api(method, `/api/tournaments/${encodeURIComponent(this.id)}${path}`, { token: this.app.identity().token });
      if (done) this.app.notice(done);
    } catch (error) {
      this.app.failed(error);
    } finally {
      this.busy = false;
    }
    await this.load();
  }

  drawCountdown() {
    const box = this.root.querySelector('.countdown');
    if (box && this.view) box.textContent = countdown(this.view.starts_at);
  }

  render() {
    if (!this.view) {
      this.heading.textContent = 'Tournament';
      replaceChildren(this.body, h('p', { role: 'alert' },
        this.missing?.code === 'not_found' ? 'No such tournament.' : `The tournament could not be loaded: ${this.missing?.message}`));
      return;
    }
    const t = this.view;
    const me = this.me();
    if (this.heading.textContent !== t.name) {
      this.heading.textContent = t.name;
      document.title = `${t.name} · Euchre`;
    }
    const entered = t.entries.some((e) => e.player_id === me);
    const registering = t.status === 'registering';
    const organiser = me !== null && me === t.organiser_id;
    // A moderator or admin may cancel any tournament and remove any player
    // (written to the moderation log); the rest is the organiser's.
    const staff = Boolean(this.app.role?.());
    const open = registering || t.status === 'running';
    const about = h('dl', { class: 'tournament-about' },
      h('dt', {}, 'Format'), h('dd', {}, FORMATS[t.format] ?? t.format),
      h('dt', {}, 'Rules'), h('dd', {}, presetTitle(t.preset)),
      t.rounds && h('dt', {}, 'Rounds'), t.rounds && h('dd', {}, String(t.rounds)),
      t.round_hands > 0 && h('dt', {}, 'A round'), t.round_hands > 0 && h('dd', {}, `${t.round_hands} hands`),
      t.best_of === 3 && h('dt', {}, 'Each match'), t.best_of === 3 && h('dd', {}, 'Best of three games'),
      t.round_seconds && h('dt', {}, 'Round clock'), t.round_seconds && h('dd', {}, `${Math.round(t.round_seconds / 60)} min`,
        t.round_deadline ? [' (this round ends ', h('span', { class: 'round-countdown' }, countdown(t.round_deadline)), ')'] : null),
      h('dt', {}, 'Games'), h('dd', { class: 'tournament-rated' }, t.rated ? 'Rated' : 'Casual'),
      h('dt', {}, 'Organiser'), h('dd', {}, t.organiser),
      h('dt', {}, 'Status'), h('dd', { class: 'tournament-status', 'data-status': t.status }, STATUS[t.status] ?? t.status,
        t.cancelled ? `: ${t.cancelled}` : ''),
      h('dt', {}, registering ? 'Starts' : 'Started'),
      h('dd', {}, when(t.starts_at), registering ? [' (', h('span', { class: 'countdown' }, countdown(t.starts_at)), ')'] : null));
    const actions = registering && h('div', { class: 'tournament-actions' },
      entered
        ? h('button', { type: 'button', class: 'secondary', 'data-focus': 'withdraw', onclick: () => this.act('DELETE', '/entries/me', 'You have withdrawn.') }, 'Withdraw')
        : h('button', { type: 'button', class: 'primary', 'data-focus': 'register', onclick: () => this.act('POST', '/entries', 'You are registered.') }, 'Register'),
      organiser && h('button', { type: 'button', class: 'primary', 'data-focus': 'start', onclick: () => this.act('POST', '/start') }, 'Start now'),
      entered && h('p', { class: 'muted' }, 'You are registered: your table opens here when each round starts.'));
    const running = t.status === 'running';
    const organising = open && (organiser || staff) && h('div', { class: 'tournament-organise' },
      organiser && running && (t.paused
        ? h('button', { type: 'button', class: 'secondary', 'data-focus': 'resume', onclick: () => this.act('POST', '/resume', 'Resumed: the next round is seated when this one ends.') }, 'Resume')
        : h('button', { type: 'button', class: 'secondary', 'data-focus': 'pause', onclick: () => this.act('POST', '/pause', 'Paused: no next round until you resume.') }, 'Pause')),
      this.confirming
        ? [h('span', {}, 'Cancel the tournament for everyone? '),
          h('button', { type: 'button', class: 'danger', 'data-focus': 'cancel-yes', onclick: () => { this.confirming = false; this.act('POST', '/cancel', 'The tournament is cancelled.'); } }, 'Yes, cancel it'),
          h('button', { type: 'button', class: 'secondary', 'data-focus': 'cancel-no', onclick: () => { this.confirming = false; this.render(); } }, 'No')]
        : h('button', { type: 'button', class: 'secondary', 'data-focus': 'cancel', onclick: () => { this.confirming = true; this.render(); } },
          organiser ? 'Cancel tournament' : 'Cancel tournament (moderator)'));
    const removable = open && (organiser || staff);
    replaceChildren(this.body, about, actions, organising,
      this.standings(),
      t.round_list.length > 0 && h('section', { class: 'rounds', 'aria-labelledby': 'rounds-heading' },
        h('h2', { id: 'rounds-heading' }, 'Rounds'),
        [...t.round_list].reverse().map((round) => this.round(round))),
      h('section', { class: 'entries', 'aria-labelledby': 'entries-heading' },
        h('h2', { id: 'entries-heading' }, `Players (${t.entries.length} of ${t.max_players})`),
        t.entries.length === 0
          ? h('p', { class: 'muted' }, 'Nobody yet.')
          : h('ul', { class: 'entry-list' }, t.entries.map((e) =>
            h('li', { 'data-player': e.player_id }, e.name, e.player_id === me ? ' (you)' : '',
              removable && e.player_id !== me && h('button', { type: 'button', class: 'link remove-entry', 'aria-label': `Remove ${e.name}`,
                onclick: () => this.act('DELETE', `/entries/${encodeURIComponent(e.player_id)}`, `${e.name} is out of the tournament.`) }, 'Remove'))))));
  }

  round(round) {
    const t = this.view;
    const inPlay = !round.finished && t.status === 'running';
    const sides = (table, first) => [first, first + 2].map((i) => table.seats[i])
      .map((s) => `${s.name}${s.bot && s.player_id ? ' (bot for them)' : ''}`).join(' & ');
    return h('section', { class: 'round', 'data-round': round.number, 'aria-labelledby': `round-${round.number}` },
      h('h3', { id: `round-${round.number}` }, `Round ${round.number}`, inPlay ? ' (in play)' : ''),
      h('table', { class: 'round-tables' },
        h('thead', {}, h('tr', {},
          h('th', { scope: 'col' }, 'Table'), h('th', { scope: 'col' }, 'Seats 1 and 3'),
          h('th', { scope: 'col' }, 'Seats 2 and 4'), h('th', { scope: 'col' }, 'Result'), h('th', { scope: 'col' }, 'See it'))),
        h('tbody', {}, round.tables.map((table, index) => {
          const mine = table.seats.some((s) => s.player_id === this.me());
          return h('tr', { class: ['round-table', mine && 'mine'], 'data-table': table.table ?? '' },
            h('td', {}, String(index + 1)),
            h('td', { class: 'side', 'data-side': '0' }, sides(table, 0)),
            h('td', { class: 'side', 'data-side': '1' }, sides(table, 1)),
            h('td', { class: 'result' }, table.games ? table.games.map(([a, b]) => `${a}–${b}`).join(', ') : 'playing'),
            h('td', {}, this.links(table, mine)));
        }))),
      round.byes.length > 0 && h('p', { class: 'muted' }, `Bye: ${round.byes.map((team) => team.join(' & ')).join('; ')}`),
      round.resting.length > 0 && h('p', { class: 'muted' }, `Resting: ${round.resting.join(', ')}`));
  }

  links(table, mine) {
    if (!table.table) return null;
    if (table.games === null) {
      return h('button', { type: 'button', class: 'secondary', 'data-focus': `open-${table.table}`, onclick: () => this.app.open(table.table) },
        mine ? 'Your table' : 'Watch');
    }
    const match = this.matches.get(table.table);
    if (match === undefined) {
      this.findMatch(table.table);
      return null;
    }
    return match && h('a', { class: 'button secondary', 'data-focus': `replay-${table.table}`, href: `#/history/${encodeURIComponent(match)}` }, 'Replay');
  }

  // A finished table's last match, for its replay: asked once per table.
  async findMatch(table) {
    this.matches.set(table, null);
    try {
      const answer = await api('GET', `/api/tables/${encodeURIComponent(table)}`);
      if (!answer.last_match) return;
      this.matches.set(table, answer.last_match.id);
      if (!this.gone) this.render();
    } catch {
      // no replay link: the table's record is not there
    }
  }

  standings() {
    const t = this.view;
    const kind = t.standings?.kind;
    const rows = t.standings?.standings ?? [];
    if (!kind || rows.length === 0) return null;
    const team = (id) => (t.teams[id] ?? [`Team ${id + 1}`]).join(' & ');
    const names = new Map(t.entries.map((e) => [e.player_id, e.name]));
    const cells = (values) => values.map((v, i) => (i === 0 ? h('th', { scope: 'row' }, String(v)) : h('td', {}, String(v))));
    const head = (labels) => h('thead', {}, h('tr', {}, labels.map((l) => h('th', { scope: 'col' }, l))));
    let table;
    if (kind === 'swiss') {
      table = h('table', { class: 'standings' },
        head(['Rank', 'Team', 'Match points', 'Buchholz', 'Points for', 'Points against', 'Played', 'Byes']),
        h('tbody', {}, rows.map((r) => h('tr', { class: r.withdrawn ? 'withdrawn' : null },
          cells([r.rank, team(r.team) + (r.withdrawn ? ' (withdrawn)' : ''), r.match_points, r.buchholz, r.points_for, r.points_against, r.played, r.byes])))));
    } else if (kind === 'knockout') {
      return this.bracket(rows, team);
    } else {
      table = h('table', { class: 'standings' },
        head(['Rank', 'Player', 'Points', 'Rounds played', 'Rested', 'Absent']),
        h('tbody', {}, rows.map((r) => h('tr', { 'data-player': r.player },
          cells([r.rank, (names.get(r.player) ?? r.player) + (r.removed ? ' (withdrawn)' : ''), r.points, r.rounds_played, r.rounds_rested, r.rounds_absent])))));
    }
    return h('section', { class: 'standings-section', 'aria-labelledby': 'standings-heading' },
      h('h2', { id: 'standings-heading' }, t.status === 'finished' ? 'Final standings' : 'Standings'), table);
  }

  // Knockout: each round's matches, then who is still in.
  bracket(rows, team) {
    const t = this.view;
    const teamOf = (table, first) => `${table.seats[first].name} & ${table.seats[first + 2].name}`;
    const result = (table, first) => {
      if (!table.games) return '';
      const [a, b] = table.games.reduce(([x, y], [g0, g1]) => [x + (g0 > g1), y + (g1 > g0)], [0, 0]);
      return (first === 0 ? a > b : b > a) ? ' (won)' : '';
    };
    const still = rows.filter((r) => r.out_in === null);
    return h('section', { class: 'standings-section bracket', 'aria-labelledby': 'standings-heading' },
      h('h2', { id: 'standings-heading' }, 'Bracket'),
      h('ol', { class: 'bracket-rounds' }, t.round_list.map((round) => h('li', {},
        h('h3', {}, `Round ${round.number}`),
        h('ul', {}, round.tables.map((table) => h('li', {},
          `${teamOf(table, 0)}${result(table, 0)} v ${teamOf(table, 1)}${result(table, 1)}`)),
        round.byes.map((bye) => h('li', { class: 'muted' }, `${bye.join(' & ')}: bye`)))))),
      h('p', {}, t.status === 'finished' && still.length === 1
        ? `Champions: ${team(still[0].team)}`
        : `Still in: ${still.map((r) => team(r.team)).join('; ') || 'nobody'}`));
  }
}
