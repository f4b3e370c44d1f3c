// The client's entry point: the state the other modules share, the
// notices, the connection and what its comings and goings do, and what the
// lobby, table and account views may do. The routes are js/routing.js,
// what the server's messages do js/dispatch.js, who this browser is
// js/session.js, the quick-play request js/quickplay.js, and mutes,
// blocks and reports js/social.js.

import { h } from './dom.js';
import { Connection } from './net.js';
import { LobbyPages } from './lobby.js';
import { router, tableHash } from './routing.js';
import { dispatch } from './dispatch.js';
import { savedHosted, savedIdentity, session } from './session.js';
import { quickPlayFlow } from './quickplay.js';
import { socialFlow } from './social.js';
import { reviewText, sentence } from './text.js';
import { recentlyClosed } from './closed.js';
import { askRole } from './moderation.js';
import { api } from './account.js';
import { practiceTable } from './model.js';
import { firstOpening } from './tournament.js';

const statusBadge = document.getElementById('connection');
const notices = document.getElementById('notices');

const state = {
  identity: savedIdentity(), // { name, token, id, account }
  hosted: savedHosted(), // tables this player created
  lobby: new LobbyPages(), // the lobby's list under its filter, as far as paged
  yours: [], // the live tables where this player holds a seat, as the server last said
  tables: new Map(), // table id → model (js/model.js)
  resyncing: new Set(), // tables with a resume in flight after a gap
  invites: new Map(), // table id → invite code, for private tables seen
  quickPlay: null, // the quick-play request while it waits (see js/quickplay.js)
  matched: new Set(), // tables quick play seated us at, their snapshot on its way
  actionInFlight: false,
  route: { page: 'lobby' },
  current: null, // the mounted view
  role: null, // 'moderator' or 'admin' if the server says so (js/moderation.js)
  banned: null, // a moderator's ban, in the server's words: every page says it
};

// ---- notices ----

function notice(text, kind = 'info') {
  const item = h('div', { class: ['notice', kind], role: kind === 'error' ? 'alert' : 'status' }, text,
    h('button', { type: 'button', class: 'close', 'aria-label': 'Dismiss', onclick: () => item.remove() }, '×'));
  notices.append(item);
  setTimeout(() => item.remove(), kind === 'error' ? 8000 : 5000);
}

function failed(error) {
  if (error?.code === 'disconnected') return;
  notice(sentence(error?.message ?? String(error)), 'error');
}

// Errors shown about an earlier attempt, cleared when the next one starts
// (a wrong password's notice is not left beside "Logged in as …").
function clearErrors() {
  for (const item of notices.querySelectorAll('.notice.error')) item.remove();
}

// ---- the modules, joined ----

// What the modules share: each module's factory takes this and says what
// it uses of it, and what it gives is added to it, so the modules call one
// another through it and none imports another in a circle.
const client = { state, notice, failed, tableHash };
const { go, route, redraw } = Object.assign(client, router(client));
const { receive, resumeTable, joinTable, yourTables } = Object.assign(client, dispatch(client));
const { setIdentity, showIdentity, keepHosted, startOver } = Object.assign(client, session(client));
const { quickPlayApp } = Object.assign(client, quickPlayFlow(client));
const { social } = Object.assign(client, socialFlow(client));

// ---- the connection ----

const connection = new Connection({
  identity: () => state.identity,
  onStatus(status) {
    statusBadge.hidden = false;
    statusBadge.dataset.status = status;
    statusBadge.textContent = { online: 'Online', connecting: 'Connecting…', offline: 'Reconnecting…' }[status];
    document.body.classList.toggle('offline', status !== 'online');
    if (status !== 'online') state.actionInFlight = false;
    redraw();
  },
  onBadToken(code) {
    const wasAccount = state.identity.account;
    setIdentity({ name: state.identity.name });
    if (wasAccount) notice(code === 'session_expired' ? 'Your session has expired: log in again (Account). Meanwhile you are a guest.' : 'You were logged out: log in again (Account). Meanwhile you are a guest.', 'error');
    else notice('Your saved identity was not recognised: you are a new guest with the same name.', 'error');
  },
  onSessionEnded() {
    startOver('Your session ended (logged out, or the password changed elsewhere). Pick a name to play as a guest; to play as your account, log in again under Account.');
  },
  onBanned(reason) {
    state.banned = reason || 'banned';
    state.tables.clear();
    state.quickPlay = null;
    statusBadge.dataset.status = 'offline';
    statusBadge.textContent = 'Banned';
    route();
  },
  onNameTaken() {
    startOver('That name belongs to an account: pick another (its owner logs in under Account).');
  },
  onWelcome(welcome) {
    const knewId = Boolean(state.identity.id);
    setIdentity({ name: welcome.player.name, token: welcome.token, id: welcome.player.id, account: state.identity.account });
    listTables();
    // Come back to every table followed before the drop, then the one in the URL.
    for (const [id, table] of state.tables) resumeTable(id, table.seq);
    // A request still waiting before the drop: a server restarted since has
    // forgotten it (a team's code went with it), so ask again.
    if (state.quickPlay && !state.quickPlay.team && !state.quickPlay.unknown) quickPlayApp.renew();
    if (state.route.page === 'table' && !state.tables.has(state.route.id)) joinTable(state.route.id);
    // The history list needs the player id: a first visit learns it only now.
    if (state.route.page === 'history' && !state.route.match && !knewId) route();
    showRole();
  },
  onMessage: receive,
});
client.connection = connection;

// ---- what the views may do ----

// Asks for the lobby's first page under the chosen filter, or the page
// after `after`; the server sends the filter's changes from then on.
function listTables(after = null) {
  connection.send(state.lobby.query(after)).catch(failed);
}

const lobbyApp = {
  tables: () => state.lobby.list(),
  filter: () => state.lobby.filter,
  total: () => state.lobby.total,
  hasMore: () => state.lobby.next !== null,
  setFilter(name) {
    if (!state.lobby.choose(name)) return;
    redraw();
    listTables();
  },
  more() {
    if (state.lobby.next !== null) listTables(state.lobby.next);
  },
  myTables: () => yourTables(),
  recentlyClosed: () => recentlyClosed(state.identity.id, redraw),
  open(id) {
    const invite = state.invites.get(id);
    go(tableHash(id, invite));
  },
  async createTable(settings) {
    try {
      const created = await connection.send({ type: 'create_table', ...settings });
      keepHosted(created.table);
      await connection.send({ type: 'sit', table: created.table, seat: 0, ...(created.invite ? { invite: created.invite } : {}) });
      go(tableHash(created.table, created.invite));
    } catch (error) {
      failed(error);
    }
  },
  quickGame() {
    lobbyApp.createTable({ preset: 'standard', private: false, bot_seats: [1, 2, 3], bot: 'basic', chat: true });
  },
  async join(id) {
    if (state.tables.get(id)?.yourSeat != null) {
      go(tableHash(id, state.invites.get(id)));
      return;
    }
    try {
      await connection.send({ type: 'sit', table: id });
      go(tableHash(id));
    } catch (error) {
      failed(error);
    }
  },
  watch(id) {
    go(tableHash(id));
  },
  quickPlay: quickPlayApp,
};

// The lobby's tournaments and a tournament's page (js/tournament.js).
const tournamentApp = {
  identity: () => state.identity,
  role: () => state.role,
  go,
  open: (id) => lobbyApp.open(id),
  notice,
  failed,
};
lobbyApp.tournaments = tournamentApp;

// A tournament's round seats the player (`tournament_seated`, wherever
// they are in the client): their table opens, once, unless they are
// playing another game still, which the notice leaves them to finish.
function onRoundSeated(message) {
  const route = state.route;
  const here = route?.page === 'table' && route.id !== message.table ? state.tables.get(route.id) : null;
  const round = `Round ${message.round} of ${message.name}`;
  if (here && here.yourSeat != null && here.summary?.status !== 'finished') {
    notice(`${round} seats you at another table: the tournament's page opens it.`);
    return;
  }
  if (!firstOpening(message.table)) return;
  notice(`${round}: your table is ready.`);
  lobbyApp.open(message.table);
}

// The puzzle trainer (js/puzzles.js).
const puzzleApp = { identity: () => state.identity, go };

// ---- the review after each hand ----

// "Review each hand", a practice table's option, remembered in this
// browser: off unless the player turned it on.
const REVIEW_KEY = 'euchre.review';
let reviewEachHand = (() => {
  try {
    return localStorage.getItem(REVIEW_KEY) === 'on';
  } catch {
    return false;
  }
})();

function setReviewEachHand(on) {
  reviewEachHand = on;
  try {
    localStorage.setItem(REVIEW_KEY, on ? 'on' : 'off');
  } catch {
    // storage full or off: the option holds for this visit
  }
}

// A hand just ended at `table`: with the option on, at a practice table
// on screen, the server is asked for the seat's biggest mistake in it.
// The words are made from the table as the hand ended, as the next deal
// may come before the answer.
async function handEnded(table) {
  const onScreen = state.route.page === 'table' && state.route.id === table.id;
  if (!reviewEachHand || !onScreen || !practiceTable(table)) return;
  const hand = table.game.hand_number;
  const asDealt = { ...table, game: { ...table.game } };
  try {
    const { mistake } = await connection.send({ type: 'review', table: table.id, hand });
    const current = state.tables.get(table.id);
    if (!reviewEachHand || !current) return;
    current.review = { hand, text: reviewText(asDealt, mistake), at: Date.now() };
  } catch (error) {
    // A review is a nicety: one refused or failed is not shown (one a
    // hand, so another tab's may have come first).
    if (error.code === 'hint_not_allowed' && state.tables.has(table.id)) state.tables.get(table.id).noHints = true;
  }
  redraw();
}

function tableApp(id) {
  const table = () => state.tables.get(id) ?? null;
  const invite = () => (state.route.id === id ? state.route.invite : null);
  return {
    table,
    isHost: () => state.hosted.has(id),
    // Mute, block and report a player seen here (js/social.js).
    social,
    inFlight: () => state.actionInFlight,
    notice,
    inviteLink: () => (invite() ? `${location.origin}/${tableHash(id, invite())}` : null),
    // One action in flight: until its answer, prompts are stale and ignored.
    act(action) {
      const current = table();
      if (state.actionInFlight || !current?.prompt) return;
      const legal = current.prompt.actions.some((a) => JSON.stringify(a) === JSON.stringify(action));
      if (!legal) return;
      current.prompt = null;
      current.hint = null;
      state.actionInFlight = true;
      state.current?.update?.(); // at once: the choices go away with the click
      connection.send({ type: 'act', table: id, ...action })
        .catch(failed)
        .finally(() => {
          state.actionInFlight = false;
          redraw();
        });
    },
    // Offered at the player's turn at a practice table (js/model.js).
    hintOffered: () => Boolean(table()?.prompt) && practiceTable(table()),
    // One hint a decision: the expert's choice and why, shown until the
    // player acts (an answer that comes after the move is dropped).
    async hint() {
      const current = table();
      if (!current?.prompt || current.hint) return;
      const asked = { asking: true };
      current.hint = asked;
      redraw();
      try {
        const { action, why } = await connection.send({ type: 'hint', table: id });
        if (table()?.hint === asked) table().hint = { action, why };
      } catch (error) {
        if (table()?.hint === asked) table().hint = { failed: true };
        if (error.code === 'hint_not_allowed' && table()) table().noHints = true;
        failed(error);
      }
      redraw();
    },
    // The review option, offered at a practice table (js/model.js).
    reviewOffered: () => Boolean(table()) && practiceTable(table()),
    reviewEachHand: () => reviewEachHand,
    setReviewEachHand,
    sit(seat) {
      connection.send({ type: 'sit', table: id, seat, ...(invite() ? { invite: invite() } : {}) }).catch(failed);
    },
    start() {
      connection.send({ type: 'start', table: id }).catch(failed);
    },
    rematch() {
      connection.send({ type: 'rematch', table: id }).catch(failed);
    },
    chat(text) {
      return connection.send({ type: 'chat', table: id, text }).catch((error) => {
        failed(error);
        throw error;
      });
    },
    async leave() {
      const current = table();
      const seated = current?.yourSeat !== null && current?.yourSeat !== undefined;
      if (seated && current.summary.status === 'playing'
        && !confirm('Leave the game? A bot takes your seat and plays it to the end of this game; you cannot come back to it.')) return;
      try {
        await connection.send({ type: 'leave', table: id });
      } catch (error) {
        if (error.code !== 'not_seated') failed(error);
      }
      state.tables.delete(id);
      go('#/');
    },
    toLobby() {
      go('#/');
    },
  };
}

// ---- moderation ----

// Asks the server whether this account moderates: only then is the
// moderation page linked (the server refuses its routes to anyone else).
async function showRole() {
  const { token, account } = state.identity;
  state.role = account && token ? await askRole(token) : null;
  document.getElementById('moderation-link').hidden = !state.role;
  if (state.route.page === 'moderation') route();
}

// A moderator's warning: shown until the player says they have read it.
// One that tells of a name taken away offers to pick another.
function onWarning(message) {
  const read = () => {
    connection.send({ type: 'acknowledge_warning', warning: message.warning }).catch(failed);
    item.remove();
  };
  async function pickName(event) {
    event.preventDefault();
    const name = new FormData(event.target).get('name');
    try {
      const player = await api('PUT', '/api/accounts/name', { token: state.identity.token, body: { name } });
      item.remove();
      // Acknowledged before the connection starts again: a hello the
      // server saw first would show the warning once more.
      await connection.send({ type: 'acknowledge_warning', warning: message.warning }).catch(() => {});
      setIdentity({ ...state.identity, name: player.name });
      notice(`You are ${player.name} now.`);
      connection.restart();
    } catch (error) {
      failed(error);
    }
  }
  const item = h('div', { class: ['notice', 'error', 'warning'], role: 'alert' },
    h('strong', {}, 'A moderator warns you: '), message.message,
    message.rename
      ? h('form', { class: 'pick-name', onsubmit: pickName },
        h('label', { for: 'new-name' }, 'Your new name'),
        h('input', { id: 'new-name', name: 'name', required: true, maxlength: 32, autocomplete: 'off' }),
        h('button', { type: 'submit' }, 'Pick this name'))
      : h('button', { type: 'button', class: 'read', onclick: read }, 'I have read this'));
  notices.append(item);
}

const moderationApp = {
  token: () => state.identity.token,
  role: () => state.role,
  notice,
};

// ---- accounts ----

const accountApp = {
  identity: () => state.identity,
  notice,
  social,
  clearErrors,
  // A session started (a claim, a log-in, a new password): its token is
  // the identity from now on, on this connection's next hello too.
  signedIn(started) {
    if (started.player.id !== state.identity.id) {
      state.tables.clear();
      state.quickPlay = null;
    }
    setIdentity({ name: started.player.name, token: started.token, id: started.player.id, account: true });
    connection.restart();
  },
  // About to log out: the connection goes first, so the server's closing
  // of the ended session is not taken for a session ended elsewhere.
  signingOut() {
    connection.stop();
    // Not a fault to warn about: nobody to connect as until a name is
    // picked, so no badge until the next connection reports.
    statusBadge.dataset.status = 'signed-out';
    statusBadge.hidden = true;
  },
  // Logged out: a new guest, without a name until one is chosen (the
  // account's name is not a guest's to play under).
  signedOut() {
    setIdentity({});
    state.tables.clear();
    state.quickPlay = null;
    notice('Logged out. Pick a name to play as a guest, or log in again under Account.');
    go('#/');
  },
};

Object.assign(client, { listTables, lobbyApp, tournamentApp, puzzleApp, tableApp, accountApp, moderationApp, onWarning, onRoundSeated, handEnded });

addEventListener('hashchange', () => route(true));
showIdentity();
if (state.identity.name) connection.connect();
route();
