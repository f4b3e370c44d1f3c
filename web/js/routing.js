// The routes: #/ the lobby, #/table/<id>?invite=<code> a table, #/history
// and #/history/<match>?hand=&step= the history and a replay, #/account,
// #/leaderboard and #/players/<id>, #/tournament/<id>, #/puzzles and
// #/puzzles/daily, #/moderation (moderators and admins
// only); which view each shows, mounting it in
// the page's one view, and redrawing it once after the messages that
// arrived together.

import { replaceChildren } from './dom.js';
import { LobbyView } from './lobby.js';
import { TableView } from './table.js';
import { HistoryView, ReplayView } from './history.js';
import { AccountView, LeaderboardView, ProfileView } from './account.js';
import { BannedView, ModerationView } from './moderation.js';
import { TournamentView } from './tournament.js';
import { PuzzleView } from './puzzles.js';

const view = document.getElementById('view');

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
  if (parts[0] === 'moderation') return { page: 'moderation' };
  if (parts[0] === 'tournament' && parts[1]) return { page: 'tournament', id: decodeURIComponent(parts[1]) };
  if (parts[0] === 'puzzles') return { page: 'puzzles', daily: parts[1] === 'daily' };
  if (parts[0] === 'leaderboard') return { page: 'leaderboard' };
  if (parts[0] === 'players' && parts[1]) return { page: 'leaderboard', player: decodeURIComponent(parts[1]) };
  return { page: 'lobby' };
}

export function tableHash(id, invite) {
  return `#/table/${encodeURIComponent(id)}${invite ? `?invite=${encodeURIComponent(invite)}` : ''}`;
}

// `client` (js/main.js) gives: state, connection, social, nameForm(),
// accountApp, moderationApp, lobbyApp, tournamentApp, puzzleApp, tableApp(id), joinTable(id),
// listTables(), yourTables().
// Gives: go(hash), route(moved), mount(view), redraw().
export function router(client) {
  const { state } = client;

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
    // Banned: that, on every page, until the ban ends.
    if (state.banned !== null) {
      mount(new BannedView(state.banned));
      return;
    }
    // Without a name only the name form, or (for an account's owner) the
    // log-in under Account.
    if (!state.identity.name) {
      mount(state.route.page === 'account' ? new AccountView(client.accountApp) : client.nameForm());
      if (moved) view.focus({ preventScroll: true });
      return;
    }
    if (state.route.page === 'table') {
      const id = state.route.id;
      if (state.route.invite) state.invites.set(id, state.route.invite);
      mount(new TableView(client.tableApp(id)));
      // A table quick play seated us at sends its snapshot by itself (and,
      // private, could not be watched without an invite).
      if (!state.tables.has(id) && !state.matched.has(id) && client.connection.online) client.joinTable(id);
    } else if (state.route.page === 'account') {
      mount(new AccountView(client.accountApp));
    } else if (state.route.page === 'tournament') {
      mount(new TournamentView(client.tournamentApp, state.route.id));
    } else if (state.route.page === 'puzzles') {
      mount(new PuzzleView(client.puzzleApp, { daily: state.route.daily }));
    } else if (state.route.page === 'moderation' && state.role) {
      mount(new ModerationView(client.moderationApp));
    } else if (state.route.page === 'leaderboard') {
      const me = state.identity.id ?? null;
      mount(state.route.player ? new ProfileView(state.route.player, client.social, me) : new LeaderboardView());
    } else if (state.route.page === 'history') {
      const historyApp = {
        me: () => state.identity.id ?? null, yours: client.yourTables, open: (id) => client.lobbyApp.open(id), social: client.social,
      };
      if (state.route.match) mount(new ReplayView(historyApp, state.route.match, state.route));
      else mount(new HistoryView(historyApp));
    } else {
      mount(new LobbyView(client.lobbyApp));
      // Coming back to the lobby: "your games" as they stand now.
      if (client.connection.online && moved) client.listTables();
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

  return { go, route, mount, redraw };
}
