// Accounts, ratings and profiles over the HTTP API (docs/openapi.json):
// #/account claims the guest's name with a password, logs in or out and
// changes the password; #/leaderboard ranks accounts by rating in a game
// form; #/players/<id> is a player's profile with a small rating chart.
// The account page also shows the player's puzzle rating and latest answers.

import { h, replaceChildren } from './dom.js';
import { sentence, signedChange } from './text.js';
import { SocialLists } from './social.js';

// Named as the Quick play buttons name them (js/quickplay.js), so a form
// reads the same on the panel, the leaderboard and a profile. Standard is
// the partnership form's name for every four-player game of partners.
const FORMS = {
  partnership: 'Standard',
  cutthroat: 'Cutthroat',
  three_handed: 'Three-handed',
  two_handed: 'Two-handed with a dummy',
  two_handed_plain: 'Two-handed',
};
const PAGE_SIZE = 20;
// The latest rated puzzle answers the account page lists.
const PUZZLES_SHOWN = 10;

export async function api(method, url, { token = null, body = null } = {}) {
  const headers = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (body) headers['content-type'] = 'application/json';
  const response = await fetch(url, { method, headers, body: body ? JSON.stringify(body) : null });
  const answer = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) {
    const error = new Error(answer?.message ?? `${response.status} ${response.statusText}`);
    error.code = answer?.code;
    throw error;
  }
  return answer;
}

function field(id, label, attributes) {
  const input = h('input', { id, name: id, required: true, ...attributes });
  return [h('label', { for: id }, label), input];
}

// `app`: identity() → { name, token, id, account }, signedIn(session)
// with an API session answer, signedOut(), notice(text, kind).
export class AccountView {
  constructor(app) {
    this.app = app;
    this.root = h('section', { class: 'account card-panel' });
  }

  mount(container) {
    replaceChildren(container, this.root);
    this.render();
  }

  async submit(event, action) {
    event.preventDefault();
    const form = event.target;
    const values = Object.fromEntries(new FormData(form));
    const button = form.querySelector('button[type="submit"]');
    button.disabled = true;
    this.app.clearErrors?.();
    try {
      await action(values);
    } catch (error) {
      this.app.notice(sentence(error.message), 'error');
    } finally {
      button.disabled = false;
    }
  }

  render() {
    const me = this.app.identity();
    const password = (id, label, autocomplete) => field(id, label, { type: 'password', minlength: '8', maxlength: '128', autocomplete });
    const sections = [];
    if (me.account) {
      sections.push(
        h('h1', {}, `Your account: ${me.name}`),
        h('p', {}, 'Your name, history and rating follow you to any device you log in from.'),
        h('div', { class: 'account-actions' },
          h('a', { href: `#/players/${encodeURIComponent(me.id)}` }, 'Your profile and rating'),
          h('button', { type: 'button', 'data-action': 'log-out', onclick: () => this.logOut() }, 'Log out')),
        h('form', { class: 'account-form', onsubmit: (e) => this.submit(e, (v) => this.changePassword(v)) },
          h('h2', {}, 'Change the password'),
          password('current_password', 'Current password', 'current-password'),
          password('new_password', 'New password', 'new-password'),
          h('button', { type: 'submit' }, 'Change password')),
        this.puzzleSection(me.id),
        this.gamesSection(),
        this.leaveForm(password));
    } else if (!me.name) {
      // No guest yet (a first visit, or just logged out): only the log-in.
      sections.push(
        h('h1', {}, 'Log in'),
        h('p', {}, 'Log in to play as your account, or ', h('a', { href: '#/' }, 'pick a name to play as a guest'), '.'),
        this.logInForm());
    } else {
      sections.push(
        h('h1', {}, 'Keep your name'),
        h('p', {}, `You play as the guest “${me.name ?? ''}”. Claim the name with a password to keep it, with your history and rating, on any device.`),
        h('form', { class: 'account-form', 'data-form': 'claim', onsubmit: (e) => this.submit(e, (v) => this.claim(v)) },
          ...field('claim-name', 'Name', { value: me.name ?? '', maxlength: '32', autocomplete: 'username' }),
          ...password('claim-password', 'Password (8 characters or more)', 'new-password'),
          h('button', { type: 'submit', class: 'primary' }, 'Claim name')),
        this.logInForm(h('h2', {}, 'Log in'),
          h('p', { class: 'muted' }, 'Already have an account? Logging in here leaves this guest behind.')));
    }
    // Anyone with a name has lists: an account's kept, a guest's for now.
    if (me.name) sections.push(new SocialLists(this.app.social).root);
    replaceChildren(this.root, ...sections);
  }

  // The puzzle record (GET /api/players/{id}/puzzles), filled in once it comes.
  puzzleSection(id) {
    const section = h('section', { class: 'account-puzzles', 'aria-labelledby': 'account-puzzles-heading' },
      h('h2', { id: 'account-puzzles-heading' }, 'Puzzles'),
      h('p', { class: 'muted' }, 'Loading…'));
    api('GET', `/api/players/${encodeURIComponent(id)}/puzzles`).then(
      (record) => replaceChildren(section, section.firstElementChild, ...puzzleRecord(record)),
      (error) => replaceChildren(section, section.firstElementChild,
        h('p', { role: 'alert' }, `Your puzzle record could not be loaded: ${error.message}`)));
    return section;
  }

  logInForm(...heading) {
    return h('form', { class: 'account-form', 'data-form': 'log-in', onsubmit: (e) => this.submit(e, (v) => this.logIn(v)) },
      ...heading,
      ...field('login-name', 'Account name', { maxlength: '32', autocomplete: 'username' }),
      ...field('login-password', 'Password', { type: 'password', minlength: '8', maxlength: '128', autocomplete: 'current-password' }),
      h('button', { type: 'submit' }, 'Log in'));
  }

  async claim(values) {
    const session = await api('POST', '/api/accounts', {
      token: this.app.identity().token,
      body: { name: values['claim-name'], password: values['claim-password'] },
    });
    this.app.signedIn(session);
    this.app.notice(`The name ${session.player.name} is yours.`);
    this.render();
  }

  async logIn(values) {
    const session = await api('POST', '/api/sessions', { body: { name: values['login-name'], password: values['login-password'] } });
    this.app.signedIn(session);
    this.app.notice(`Logged in as ${session.player.name}.`);
    this.render();
  }

  // Logged out here, the session ends for good: the browser becomes a
  // new guest without a name (the account's name is not a guest's to take).
  async logOut() {
    const { token } = this.app.identity();
    this.app.signingOut();
    await api('DELETE', '/api/sessions/current', { token }).catch(() => {});
    this.app.signedOut();
  }

  // Every finished game, as one EGN bundle: the server gives 50 games a
  // bundle; they are joined here into one file.
  gamesSection() {
    return h('div', { class: 'account-games' },
      h('h2', {}, 'Your games'),
      h('p', { class: 'muted' }, 'Every finished game you played, as one file of Euchre Game Notation (EGN), to keep or to open elsewhere.'),
      h('button', { type: 'button', 'data-action': 'download-games', onclick: (e) => this.downloadGames(e.target) }, 'Download my games'));
  }

  async downloadGames(button) {
    button.disabled = true;
    try {
      const { token, name } = this.app.identity();
      const all = { fileType: 'Euchre Game Notation bundle', games: [], skipped: [] };
      let cursor = null;
      do {
        const query = cursor ? `?cursor=${encodeURIComponent(cursor)}` : '';
        const bundle = await api('GET', `/api/accounts/me/games${query}`, { token });
        all.player_id = bundle.player_id;
        all.games.push(...bundle.games);
        all.skipped.push(...bundle.skipped);
        cursor = bundle.next_cursor ?? null;
      } while (cursor);
      const file = new Blob([JSON.stringify(all, null, 2)], { type: 'application/json' });
      const link = h('a', { href: URL.createObjectURL(file), download: `euchre-games-${name || 'me'}.json` });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 10000);
      const skipped = all.skipped.length ? ` (${all.skipped.length} not expressible in EGN left out)` : '';
      this.app.notice(`${all.games.length} ${all.games.length === 1 ? 'game' : 'games'} downloaded${skipped}.`);
    } catch (error) {
      this.app.notice(error.message, 'error');
    } finally {
      button.disabled = false;
    }
  }

  // Deleting takes the password, so that a session left open is not enough.
  leaveForm(password) {
    return h('form', { class: 'account-form account-leave', 'data-form': 'leave', onsubmit: (e) => this.submit(e, (v) => this.leave(v)) },
      h('h2', {}, 'Delete your account'),
      h('p', { class: 'muted' }, 'Your ratings go, and your seats in past games read “deleted player” (the games stay for the others). '
        + 'Download your games first: afterwards nobody can. Your name stays taken for a while, then anyone may take it.'),
      ...password('leave-password', 'Password', 'current-password'),
      h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'leave-sure', required: true }), ' I want my account deleted for good'),
      h('button', { type: 'submit', class: 'danger' }, 'Delete my account'));
  }

  async leave(values) {
    const { token } = this.app.identity();
    await api('DELETE', '/api/accounts/me', { token, body: { password: values['leave-password'] } });
    this.app.signingOut();
    this.app.signedOut();
    this.app.notice('Your account is deleted. You are a new guest here now.');
  }

  async changePassword(values) {
    const session = await api('PUT', '/api/accounts/password', { token: this.app.identity().token, body: values });
    this.app.signedIn(session);
    this.app.notice('Password changed: other devices must log in again.');
    this.render();
  }
}

export class LeaderboardView {
  constructor() {
    this.form = 'partnership';
    this.places = [];
    this.next = 0;
    this.select = h('select', { id: 'board-form', onchange: () => this.load(this.select.value) },
      Object.entries(FORMS).map(([value, title]) => h('option', { value }, title)));
    this.list = h('ol', { class: 'leaderboard' });
    this.empty = h('div', { class: 'board-empty', role: 'status', hidden: true });
    this.more = h('button', { type: 'button', onclick: () => this.page() }, 'Load more');
    this.root = h('section', { class: 'board card-panel' },
      h('h1', {}, 'Leaderboard'),
      h('div', { class: 'board-filter' }, h('label', { for: 'board-form' }, 'Game'), this.select),
      this.list, this.empty, this.more);
  }

  mount(container) {
    replaceChildren(container, this.root);
    this.load(this.form);
  }

  load(form) {
    this.form = form;
    this.places = [];
    this.next = 0;
    this.page();
  }

  async page() {
    const form = this.form;
    try {
      const board = await api('GET', `/api/leaderboard?form=${form}&limit=${PAGE_SIZE}&offset=${this.next}`);
      if (form !== this.form) return;
      this.places.push(...board.places);
      this.next = board.next_offset;
      this.render();
    } catch (error) {
      replaceChildren(this.list);
      this.empty.hidden = false;
      replaceChildren(this.empty, h('p', {}, `The leaderboard could not be loaded: ${error.message}`));
    }
  }

  render() {
    const rows = this.places.map((place) => h('li', { class: 'board-row' },
      h('span', { class: 'board-rank', 'aria-label': `Rank ${place.rank}` }, `${place.rank}.`),
      h('a', { href: `#/players/${encodeURIComponent(place.player.id)}` }, place.player.name),
      h('span', { class: 'board-rating', 'aria-label': `Rating ${place.rating}` }, String(place.rating)),
      h('span', { class: 'board-games muted' }, `${place.games} rated ${place.games === 1 ? 'game' : 'games'}`)));
    replaceChildren(this.list, rows);
    this.list.hidden = rows.length === 0;
    this.empty.hidden = rows.length > 0;
    replaceChildren(this.empty, ...(rows.length ? [] : howToGetRated(FORMS[this.form])));
    this.more.hidden = this.next === null;
  }
}

// The empty board: nobody is rated in this form yet, and what makes a game
// count (crates/server/src/ratings.rs: a rated table, an account rated
// already in every seat when the game starts).
function howToGetRated(form) {
  return [
    h('p', {}, h('strong', {}, `Nobody is rated in “${form}” yet.`)),
    h('p', {}, 'A game counts for the rating when an account sits in every seat (no bots, no guests) at a table created with “Rated” ticked, as it is unless unticked. '
      + 'A new account plays a few games and waits a little before its games count. Each game form has its own rating and board.'),
    h('p', {}, 'Only players who have kept their name with a password are rated: ', h('a', { href: '#/account' }, 'claim yours under Account'), '.'),
  ];
}

// A player's rating over their rated games in each form: a line from 1500
// through each game's rating, with its scale (the highest and lowest
// ratings) on the left, the first and last game's dates below, and each
// game's date, rating and change on its point (a tooltip).
function ratingCharts(history) {
  const forms = [...new Set(history.map((p) => p.form))];
  return forms.map((form) => ratingChart(form, history.filter((p) => p.form === form)));
}

function ratingChart(form, points) {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = (tag, attributes, text = null) => {
    const element = document.createElementNS(ns, tag);
    for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
    if (text !== null) element.append(document.createTextNode(text));
    return element;
  };
  const [width, height, pad, left, bottom] = [320, 130, 8, 36, 18];
  const values = [1500, ...points.map((p) => p.rating)];
  const [low, high] = [Math.min(...values), Math.max(...values)];
  const span = Math.max(high - low, 1);
  const x = (i) => left + (i * (width - left - pad)) / Math.max(values.length - 1, 1);
  const y = (v) => height - bottom - ((v - low) * (height - bottom - pad)) / span;
  const day = (ms) => new Date(ms).toLocaleDateString(undefined, { day: 'numeric', month: 'short' });
  const name = FORMS[form] ?? form;
  const chart = svg('svg', { class: 'rating-chart', viewBox: `0 0 ${width} ${height}`, role: 'img', 'data-form': form,
    'aria-label': `${name} rating from 1500 to ${values.at(-1)} over ${points.length} rated game${points.length === 1 ? '' : 's'}, ${day(points[0].at)} to ${day(points.at(-1).at)}` });
  chart.append(
    svg('line', { x1: left, x2: left, y1: pad, y2: height - bottom, class: 'axis-line' }),
    svg('line', { x1: left, x2: width - pad, y1: height - bottom, y2: height - bottom, class: 'axis-line' }),
    svg('text', { x: left - 4, y: y(high) + 4, 'text-anchor': 'end', class: 'axis' }, String(high)),
    svg('text', { x: left - 4, y: y(low) + 4, 'text-anchor': 'end', class: 'axis' }, String(low)),
    svg('text', { x: left, y: height - 4, class: 'axis' }, day(points[0].at)),
    svg('text', { x: width - pad, y: height - 4, 'text-anchor': 'end', class: 'axis' }, day(points.at(-1).at)),
    svg('polyline', { points: values.map((v, i) => `${x(i)},${y(v)}`).join(' '), fill: 'none', stroke: 'currentColor', 'stroke-width': 2 }));
  points.forEach((p, i) => {
    const dot = svg('circle', { cx: x(i + 1), cy: y(p.rating), r: 3, class: 'rating-point' });
    dot.append(svg('title', {}, `${day(p.at)}: ${p.rating} (${signedChange(p.change)})`));
    chart.append(dot);
  });
  return h('figure', { class: 'rating-figure' }, chart, h('figcaption', { class: 'muted' }, `${name}: rating after each rated game`));
}

// Time played as a person says it: "40 min", "2.5 h", "under a minute".
export function playedFor(ms) {
  const minutes = Math.round(ms / 60000);
  if (minutes < 1) return ms > 0 ? 'under a minute' : 'none yet';
  if (minutes < 60) return `${minutes} min`;
  return `${(ms / 3600000).toFixed(1)} h`;
}

export class ProfileView {
  // `social` (js/social.js) reports the player; `me`: this player's id.
  constructor(id, social = null, me = null) {
    this.id = id;
    this.social = social;
    this.me = me;
    this.root = h('section', { class: 'profile card-panel' }, h('p', { class: 'muted' }, 'Loading…'));
  }

  async mount(container) {
    replaceChildren(container, this.root);
    try {
      this.render(await api('GET', `/api/players/${encodeURIComponent(this.id)}`));
    } catch (error) {
      replaceChildren(this.root, h('p', {}, error.message));
    }
  }

  render(player) {
    const stat = (label, value) => [h('dt', {}, label), h('dd', {}, String(value))];
    replaceChildren(this.root,
      h('h1', {}, player.name),
      this.social && this.me !== this.id && h('button', {
        type: 'button', class: 'secondary', 'data-action': 'report',
        onclick: () => this.social.report({ player: { id: this.id, name: player.name } }),
      }, 'Report this player…'),
      h('dl', { class: 'profile-stats' },
        stat('Games', player.played),
        stat('Win rate', `${Math.round(player.win_rate * 100)}%`),
        stat('Hands called, made', `${player.hands_called}, ${player.hands_made}`),
        stat('Euchred', player.euchres_suffered),
        stat('Euchres made', player.euchres_made),
        stat('Loners tried, won', `${player.loners_tried}, ${player.loners_won}`),
        stat('Time played', playedFor(player.time_played_ms))),
      h('h2', {}, 'Ratings'),
      player.ratings.length === 0
        ? h('p', { class: 'muted' }, 'No rated games yet: a game is rated when an account sits in every seat (no bots, no guests) at a table created Rated.')
        : h('ul', { class: 'profile-ratings' }, player.ratings.map((r) => h('li', {},
          `${FORMS[r.form] ?? r.form}: `, h('strong', { class: 'profile-rating' }, String(r.rating)), ` ±${r.deviation}, ${r.games} rated`))),
      ...ratingCharts(player.rating_history),
      player.rating_history.length > 0 && h('p', { class: 'muted' },
        `Last game: ${signedChange(player.rating_history.at(-1).change)}`),
      h('h2', {}, 'Accuracy'),
      accuracyList(player.accuracy ?? []));
  }
}

// An account's puzzle rating, streak and latest rated answers; before the
// first answer, where to find puzzles.
function puzzleRecord({ rating, history }) {
  if (!rating) {
    return [h('p', { class: 'puzzle-record-empty' }, 'No puzzles answered yet. ',
      h('a', { href: '#/puzzles' }, 'Solve a puzzle'), ': your first answer to each one moves your puzzle rating.')];
  }
  const stat = (label, value, cls) => [h('dt', {}, label), h('dd', { class: cls }, String(value))];
  const when = (ms) => new Date(ms).toLocaleString(undefined, { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
  const latest = history.slice(0, PUZZLES_SHOWN);
  return [
    h('dl', { class: 'profile-stats' },
      stat('Puzzle rating', `${rating.rating} ±${rating.deviation}`, 'puzzle-record-rating'),
      stat('Streak', `${rating.streak} right in a row (best ${rating.best_streak})`, 'puzzle-record-streak'),
      stat('Solved', `${rating.solved} of ${rating.attempts}`)),
    latest.length > 0 && h('h3', {}, `Your latest ${latest.length === 1 ? 'answer' : `${latest.length} answers`}`),
    latest.length > 0 && h('ol', { class: 'puzzle-history' }, latest.map((attempt) =>
      h('li', { 'data-correct': String(attempt.correct) },
        h('span', { class: attempt.correct ? 'right' : 'wrong' }, attempt.correct ? 'Right' : 'Not the best'),
        `: puzzle ${attempt.puzzle_id}, ${when(attempt.at)}`))),
    h('p', {}, h('a', { href: '#/puzzles' }, 'Solve more puzzles')),
  ];
}

// The solver's verdict on the player's latest analysed games, by form:
// the share of decisions within tolerance, and points lost.
function accuracyList(forms) {
  if (forms.length === 0) return h('p', { class: 'muted' }, "No analysed games yet: a finished game is analysed when its replay is opened.");
  return h('ul', { class: 'profile-accuracy' }, forms.map((a) => h('li', { dataset: { form: a.form } },
    `${FORMS[a.form] ?? a.form}: `, h('strong', {}, `${Math.round(a.accuracy * 100)}%`),
    ` of ${a.decisions} decisions within tolerance, ${a.points_lost.toFixed(1)} points lost a game`,
    h('span', { class: 'muted' }, ` (the last ${a.matches === 1 ? 'analysed game' : `${a.matches} analysed games`})`))));
}


