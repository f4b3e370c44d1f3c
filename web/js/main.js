// The client's entry point: the guest identity, the routes (#/ the lobby,
// #/table/<id>?invite=<code> a table, #/history), the connection and what
// its messages do to the tables this client follows.

import { h, replaceChildren } from './dom.js';
import { Connection } from './net.js';
import { applyEvent, fromSnapshot } from './model.js';
import { LOBBY_FILTERS, LobbyView } from './lobby.js';
import { ClosedTableView } from './closed.js';
import { TableView } from './table.js';
import { describe, sealText } from './text.js';
import { revealed } from './witness.js';
import { HistoryView, ReplayView } from './history.js';
import { AccountView, LeaderboardView, ProfileView } from './account.js';

const IDENTITY_KEY = 'euchre.identity';
const HOSTED_KEY = 'euchre.hosted';

const view = document.getElementById('view');
const nameBadge = document.getElementById('player-name');
const changeNameButton = document.getElementById('change-name');
const statusBadge = document.getElementById('connection');
const notices = document.getElementById('notices');

function load(key, fallback) {
  try {
    return JSON.parse(localStorage.getItem(key)) ?? fallback;
  } catch {
    return fallback;
  }
}

function save(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // Private browsing without storage: the identity lasts for this page only.
  }
}

const state = {
  identity: load(IDENTITY_KEY, {}), // { name, token, id, account }
  hosted: new Set(load(HOSTED_KEY, [])), // tables this player created
  lobby: null, // Map of table id → summary, once listed: the pages so far
  yours: [], // the live tables where this player holds a seat, as the server last said
  lobbyFilter: 'open', // a key of LOBBY_FILTERS
  lobbyNext: null, // the next page's `after`, while there are more
  lobbyTotal: 0, // how many tables match the filter
  tables: new Map(), // table id → model (js/model.js)
  resyncing: new Set(), // tables with a resume in flight after a gap
  invites: new Map(), // table id → invite code, for private tables seen
  quickPlay: null, // the quick-play request while it waits (see quickPlayApp)
  matched: new Set(), // tables quick play seated us at, their snapshot on its way
  actionInFlight: false,
  route: { page: 'lobby' },
  current: null, // the mounted view
};

// ---- routes ----

function parseRoute() {
  const [path, query] = location.hash.replace(/^#/, '').split('?');
  const params = new URLSearchParams(query ?? '');
  const parts = path.split('/').filter(Boolean);
  if (parts[0] === 'table' && parts[1]) return { page: 'table', id: decodeURIComponent(parts[1]), invite: params.get('invite') };
  if (parts[0] === 'history' && parts[1]) {
    const step = (name) => Math.max(0, (Number(params.get(name)) || 1) - 1);
    return { page: 'history', match: decodeURIComponent(parts[1]), hand: step('hand'), step: step('step') };
  }
  if (parts[0] === 'history') return { page: 'history' };
  if (parts[0] === 'account') return { page: 'account' };
  if (parts[0] === 'leaderboard') return { page: 'leaderboard' };
  if (parts[0] === 'players' && parts[1]) return { page: 'leaderboard', player: decodeURIComponent(parts[1]) };
  return { page: 'lobby' };
}

function tableHash(id, invite) {
  return `#/table/${encodeURIComponent(id)}${invite ? `?invite=${encodeURIComponent(invite)}` : ''}`;
}

function go(hash) {
  if (location.hash === hash) route(true);
  else location.hash = hash;
}

// `moved`: the player went somewhere (not the first load), so the new
// page's heading takes the focus and a screen reader says where they are.
function route(moved = false) {
  state.route = parseRoute();
  for (const link of document.querySelectorAll('nav a')) {
    if (link.dataset.page === state.route.page) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  // Without a name only the name form, or (for an account's owner) the
  // log-in under Account.
  if (!state.identity.name) {
    mount(state.route.page === 'account' ? new AccountView(accountApp) : nameForm());
    if (moved) view.focus({ preventScroll: true });
    return;
  }
  if (state.route.page === 'table') {
    const id = state.route.id;
    if (state.route.invite) state.invites.set(id, state.route.invite);
    mount(new TableView(tableApp(id)));
    // A table quick play seated us at sends its snapshot by itself (and,
    // private, could not be watched without an invite).
    if (!state.tables.has(id) && !state.matched.has(id) && connection.online) joinTable(id);
  } else if (state.route.page === 'account') {
    mount(new AccountView(accountApp));
  } else if (state.route.page === 'leaderboard') {
    mount(state.route.player ? new ProfileView(state.route.player) : new LeaderboardView());
  } else if (state.route.page === 'history') {
    const historyApp = { me: () => state.identity.id ?? null, yours: yourTables, open: (id) => lobbyApp.open(id) };
    if (state.route.match) mount(new ReplayView(historyApp, state.route.match, state.route));
    else mount(new HistoryView(historyApp));
  } else {
    mount(new LobbyView(lobbyApp));
    // Coming back to the lobby: "your games" as they stand now.
    if (connection.online && moved) listTables();
  }
  if (moved) view.focus({ preventScroll: true });
}

function mount(next) {
  state.current?.unmount?.();
  state.current = next;
  if (next.mount) next.mount(view);
  else replaceChildren(view, next);
  const heading = view.querySelector('h1');
  if (heading) document.title = `${heading.textContent} · Euchre`;
}

// Redraws the mounted view once, after the messages that arrived together.
let redrawQueued = false;
function redraw() {
  if (redrawQueued) return;
  redrawQueued = true;
  setTimeout(() => {
    redrawQueued = false;
    state.current?.update?.();
  }, 0);
}

// ---- notices ----

// The name in the header, and Change name only for a guest with a name:
// an account's name is its own, and before a name there is none to change.
function showIdentity() {
  nameBadge.textContent = state.identity.name ?? '';
  changeNameButton.hidden = !state.identity.name || Boolean(state.identity.account);
}

// What a name of only spaces gets instead of nothing happening.
const BLANK_NAME = 'A name needs more than spaces: type the name to play under.';

function notice(text, kind = 'info') {
  const item = h('div', { class: ['notice', kind], role: kind === 'error' ? 'alert' : 'status' }, text,
    h('button', { type: 'button', class: 'close', 'aria-label': 'Dismiss', onclick: () => item.remove() }, '×'));
  notices.append(item);
  setTimeout(() => item.remove(), kind === 'error' ? 8000 : 5000);
}

function failed(error) {
  if (error?.code === 'disconnected') return;
  notice(error?.message ?? String(error), 'error');
}

// ---- the connection ----

// Forgets who this browser was and asks for a name again, saying why.
function startOver(why) {
  state.identity = {};
  save(IDENTITY_KEY, state.identity);
  showIdentity();
  notice(why, 'error');
  // The name form at the page's own address (a table's link is kept for
  // after the name), but from Account (which, without a name, is only the
  // log-in) the lobby's: the notice asks for a name first.
  if (state.route.page === 'account') go('#/');
  else route(true);
}

const connection = new Connection({
  identity: () => state.identity,
  onStatus(status) {
    statusBadge.dataset.status = status;
    statusBadge.textContent = { online: 'Online', connecting: 'Connecting…', offline: 'Reconnecting…' }[status];
    document.body.classList.toggle('offline', status !== 'online');
    if (status !== 'online') state.actionInFlight = false;
    redraw();
  },
  onBadToken(code) {
    const wasAccount = state.identity.account;
    state.identity = { name: state.identity.name };
    save(IDENTITY_KEY, state.identity);
    showIdentity();
    if (wasAccount) notice(code === 'session_expired' ? 'Your session has expired: log in again (Account). Meanwhile you are a guest.' : 'You were logged out: log in again (Account). Meanwhile you are a guest.', 'error');
    else notice('Your saved identity was not recognised: you are a new guest with the same name.', 'error');
  },
  onSessionEnded() {
    startOver('Your session ended (logged out, or the password changed elsewhere). Pick a name to play as a guest; to play as your account, log in again under Account.');
  },
  onNameTaken() {
    startOver('That name belongs to an account: pick another (its owner logs in under Account).');
  },
  onWelcome(welcome) {
    const knewId = Boolean(state.identity.id);
    state.identity = { name: welcome.player.name, token: welcome.token, id: welcome.player.id, account: state.identity.account };
    save(IDENTITY_KEY, state.identity);
    showIdentity();
    listTables();
    // Come back to every table followed before the drop, then the one in the URL.
    for (const [id, table] of state.tables) resumeTable(id, table.seq);
    // A request still waiting before the drop: a server restarted since has
    // forgotten it (a team's code went with it), so ask again.
    if (state.quickPlay && !state.quickPlay.team && !state.quickPlay.unknown) quickPlayApp.renew();
    if (state.route.page === 'table' && !state.tables.has(state.route.id)) joinTable(state.route.id);
    // The history list needs the player id: a first visit learns it only now.
    if (state.route.page === 'history' && !state.route.match && !knewId) route();
  },
  onMessage: receive,
});

function receive(message) {
  switch (message.type) {
    case 'lobby':
      // A first page (no `after`) starts the list again; a later one adds to it.
      if (!message.after || !state.lobby) state.lobby = new Map();
      if (!message.after) state.yours = message.yours ?? [];
      for (const t of message.tables) state.lobby.set(t.table, t);
      state.lobbyNext = message.next ?? null;
      state.lobbyTotal = message.total ?? state.lobby.size;
      break;
    case 'lobby_update': {
      // Past the pages listed (ids sort like the pages): it comes with a later page.
      if (state.lobbyNext !== null && message.table.table > state.lobbyNext) break;
      state.lobby ??= new Map();
      if (!state.lobby.has(message.table.table)) state.lobbyTotal += 1;
      state.lobby.set(message.table.table, message.table);
      break;
    }
    case 'lobby_removed':
      if (state.lobby?.delete(message.table)) state.lobbyTotal = Math.max(0, state.lobbyTotal - 1);
      break;
    case 'lobby_yours':
      // The player sat, left, or one of their tables changed or closed (here or elsewhere).
      state.yours = message.tables;
      break;
    case 'snapshot': {
      state.matched.delete(message.table);
      const previous = state.tables.get(message.table);
      state.tables.set(message.table, fromSnapshot(message, previous));
      break;
    }
    case 'event':
      onEvent(message);
      break;
    case 'your_turn':
      onPrompt(message);
      break;
    case 'quick_play_waiting':
    case 'quick_play_matched':
    case 'quick_play_ended':
      onQuickPlay(message);
      break;
    case 'error':
      failed(message);
      break;
    default:
      break;
  }
  redraw();
}

function onEvent(message) {
  const table = state.tables.get(message.table);
  if (!table) return;
  if (message.seq <= table.seq) return; // seen already (a resume overlaps)
  if (message.seq > table.seq + 1) {
    // A gap: ask for what is missing; the events come again in order.
    if (!state.resyncing.has(table.id)) resumeTable(table.id, table.seq);
    return;
  }
  applyEvent(table, message);
  const line = message.event ? describe(table, message.event) : null;
  if (line) table.log.push({ text: line, kind: message.event.event });
  if (message.event?.event === 'deal_revealed') checkSeal(table, message.event);
}

// Checks a revealed deal here, against its commitment and everything this
// client saw of the hand (web/js/witness.js), and says what it found.
async function checkSeal(table, { hand, deck, salt }) {
  const seal = table.seal;
  const { check, why } = await revealed(table.witness, table.summary.rules, hand, deck, salt);
  if (seal?.hand === hand) Object.assign(seal, { check, why });
  table.log.push({ text: sealText(hand, check, why), kind: `deal-${check}` });
  redraw();
}

// `your_turn`: act on it only if it is current and nothing is in flight.
function onPrompt(message) {
  const table = state.tables.get(message.table);
  if (!table || state.actionInFlight || message.seq < table.seq) return;
  const deadline = message.deadline_ms === undefined ? null : Date.now() + message.deadline_ms;
  if (!table.prompt) table.log.push({ text: 'Your turn.', kind: 'your-turn' });
  table.prompt = { seq: message.seq, actions: message.actions, deadline };
}

function resumeTable(id, lastSeq) {
  state.resyncing.add(id);
  connection.send({ type: 'resume', table: id, last_seq: lastSeq })
    .catch((error) => {
      if (error.code === 'no_such_table') {
        const invite = state.route.id === id ? state.route.invite : null;
        state.tables.delete(id);
        if (invite) joinTable(id);
        else if (state.route.id === id) tableGone(id);
      } else failed(error);
    })
    .finally(() => state.resyncing.delete(id));
}

// A table not followed yet (a link, a reload): `watch` it. A seated player
// gets their own seat's view and takes it back.
function joinTable(id) {
  const invite = state.route.page === 'table' && state.route.id === id ? state.route.invite : null;
  connection.send({ type: 'watch', table: id, ...(invite ? { invite } : {}) })
    .then(redraw, (error) => {
      if (error.code === 'no_such_table') tableGone(id);
      else failed(error);
    });
}

// A table the server no longer has: the page says what became of it.
function tableGone(id) {
  if (state.route.page === 'table' && state.route.id === id) mount(new ClosedTableView(id));
  else notice(`Table ${id} does not exist any more.`, 'error');
}

// The tables this player sits at, followed here or listed by the server as
// theirs (another tab, device, or an earlier visit): each with its summary.
function yourTables() {
  const followed = [...state.tables.values()].filter((t) => t.yourSeat !== null);
  const listed = state.yours.filter((t) => !state.tables.has(t.table)).map((t) => ({ id: t.table, summary: t }));
  return [...followed, ...listed];
}

// ---- quick play ----

// The request belongs to the player, not to the lobby view: it goes on
// while they look at history, and a match opens the table from anywhere.
function onQuickPlay(message) {
  const request = state.quickPlay;
  if (message.type === 'quick_play_matched') {
    state.quickPlay = null;
    // The table's snapshot follows on this connection, as after a `sit`.
    if (!state.tables.has(message.table)) state.matched.add(message.table);
    go(tableHash(message.table));
  } else if (message.type === 'quick_play_ended') {
    if (message.reason === 'shutdown' && request && !request.team) {
      // The server is restarting: the request is made again once it is back.
      notice('The server is restarting: your quick-play request will be made again when it is back.');
    } else {
      state.quickPlay = null;
      notice(message.message || 'Your quick-play request ended.', 'error');
    }
  } else if (request && message.preset === request.preset && message.rated === request.rated) {
    request.waiting = message.waiting;
    if (message.partner) request.partner = message.partner;
  }
}

const quickPlayApp = {
  request: () => state.quickPlay,
  async ask({ preset, rated, botsAfter, invitePartner, team }) {
    if (state.quickPlay) return;
    const command = { type: 'quick_play', preset, rated };
    if (botsAfter) command.bots_after_seconds = botsAfter;
    if (invitePartner) command.invite_partner = true;
    if (team) command.team = team;
    // Searching at once, so a second click cannot ask twice.
    state.quickPlay = { preset, rated, botsAfter: botsAfter ?? null, since: Date.now(), waiting: null, team: null, partner: null };
    redraw();
    try {
      const ack = await connection.send(command);
      if (state.quickPlay) state.quickPlay.team = ack.team ?? null;
    } catch (error) {
      // Matched or ended meanwhile: nothing to undo.
      state.quickPlay = null;
      if (error.code === 'already_queued') {
        notice(`${error.message} Cancel it first to ask for another.`, 'error');
        // A request from before a reload, or from another tab: show it, so it can be cancelled.
        state.quickPlay = { preset, rated, botsAfter: null, since: Date.now(), waiting: null, team: null, partner: null, unknown: true };
      } else failed(error);
    }
    redraw();
  },
  // The request shown as waiting, asked for again after a reconnection:
  // a server that still holds it answers already_queued, which is fine.
  async renew() {
    const request = state.quickPlay;
    const command = { type: 'quick_play', preset: request.preset, rated: request.rated };
    if (request.botsAfter) command.bots_after_seconds = request.botsAfter;
    try {
      await connection.send(command);
    } catch (error) {
      // Still held; or the connection dropped again: the next welcome asks.
      if (error.code === 'already_queued' || error.code === 'disconnected') return;
      // Matched or ended meanwhile, or refused now: it waits no more.
      if (state.quickPlay === request) state.quickPlay = null;
      failed(error);
    }
    redraw();
  },
  async cancel() {
    try {
      await connection.send({ type: 'cancel_quick_play' });
    } catch (error) {
      if (error.code !== 'not_queued') {
        failed(error);
        return;
      }
    }
    state.quickPlay = null;
    redraw();
  },
};

// ---- what the views may do ----

// Asks for the lobby's first page under the chosen filter, or the page
// after `after`; the server sends the filter's changes from then on.
function listTables(after = null) {
  const query = { type: 'list_tables', ...LOBBY_FILTERS[state.lobbyFilter].query };
  if (after) query.after = after;
  connection.send(query).catch(failed);
}

const lobbyApp = {
  tables: () => (state.lobby ? [...state.lobby.values()] : null),
  filter: () => state.lobbyFilter,
  total: () => state.lobbyTotal,
  hasMore: () => state.lobbyNext !== null,
  setFilter(name) {
    if (!LOBBY_FILTERS[name] || name === state.lobbyFilter) return;
    state.lobbyFilter = name;
    state.lobby = null;
    state.lobbyNext = null;
    redraw();
    listTables();
  },
  more() {
    if (state.lobbyNext !== null) listTables(state.lobbyNext);
  },
  myTables: () => yourTables(),
  open(id) {
    const invite = state.invites.get(id);
    go(tableHash(id, invite));
  },
  async createTable(settings) {
    try {
      const created = await connection.send({ type: 'create_table', ...settings });
      state.hosted.add(created.table);
      save(HOSTED_KEY, [...state.hosted].slice(-20));
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

function tableApp(id) {
  const table = () => state.tables.get(id) ?? null;
  const invite = () => (state.route.id === id ? state.route.invite : null);
  return {
    table,
    isHost: () => state.hosted.has(id),
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
      state.actionInFlight = true;
      state.current?.update?.(); // at once: the choices go away with the click
      connection.send({ type: 'act', table: id, ...action })
        .catch(failed)
        .finally(() => {
          state.actionInFlight = false;
          redraw();
        });
    },
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
        && !confirm('Leave the game? A bot takes your seat for the rest of it.')) return;
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

// ---- accounts ----

const accountApp = {
  identity: () => state.identity,
  notice,
  // A session started (a claim, a log-in, a new password): its token is
  // the identity from now on, on this connection's next hello too.
  signedIn(session) {
    if (session.player.id !== state.identity.id) {
      state.tables.clear();
      state.quickPlay = null;
    }
    state.identity = { name: session.player.name, token: session.token, id: session.player.id, account: true };
    save(IDENTITY_KEY, state.identity);
    showIdentity();
    connection.restart();
  },
  // About to log out: the connection goes first, so the server's closing
  // of the ended session is not taken for a session ended elsewhere.
  signingOut() {
    connection.stop();
    statusBadge.dataset.status = 'offline';
    statusBadge.textContent = 'Not connected';
  },
  // Logged out: a new guest, without a name until one is chosen (the
  // account's name is not a guest's to play under).
  signedOut() {
    state.identity = {};
    save(IDENTITY_KEY, state.identity);
    showIdentity();
    state.tables.clear();
    state.quickPlay = null;
    notice('Logged out. Pick a name to play as a guest, or log in again under Account.');
    go('#/');
  },
};

// ---- the small views ----

function nameForm() {
  const input = h('input', { id: 'name', name: 'name', required: true, maxlength: '32', autocomplete: 'nickname', value: state.identity.name ?? '' });
  const submit = (event) => {
    event.preventDefault();
    const name = input.value.trim();
    if (!name) {
      notice(BLANK_NAME, 'error');
      input.focus();
      return;
    }
    state.identity = { name };
    save(IDENTITY_KEY, state.identity);
    showIdentity();
    connection.restart();
    route(true);
  };
  const form = h('form', { class: 'name-form card-panel', onsubmit: submit },
    h('h1', {}, 'Welcome to Euchre'),
    h('p', {}, 'Pick a name to play under. It is kept in this browser, so a reload keeps your seat.'),
    h('label', { for: 'name' }, 'Display name'),
    input,
    h('button', { type: 'submit', class: 'primary', 'data-action': 'set-name' }, 'Continue'),
    h('p', { class: 'muted' }, 'Have an account? ', h('a', { href: '#/account' }, 'Log in'), ' instead.'));
  return { mount: (container) => { replaceChildren(container, form); input.focus(); } };
}

changeNameButton.addEventListener('click', () => {
  if (state.identity.account) {
    notice('Your name is your account’s: log out first (Account) to play as someone else.', 'error');
    return;
  }
  const name = prompt('A new name starts a new guest identity (your current seats stay with the old one). New name:', state.identity.name ?? '');
  if (name === null) return; // cancelled
  if (!name.trim()) {
    notice(BLANK_NAME, 'error');
    return;
  }
  state.identity = { name: name.trim().slice(0, 32) };
  save(IDENTITY_KEY, state.identity);
  state.tables.clear();
  state.quickPlay = null;
  showIdentity();
  connection.restart();
  go('#/');
});

addEventListener('hashchange', () => route(true));
showIdentity();
if (state.identity.name) connection.connect();
route();
