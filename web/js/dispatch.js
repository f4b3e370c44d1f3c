// What the server's messages do to what this client knows: the lobby's
// pages (js/lobby.js keeps them), each followed table's snapshot and
// events (a gap asks for the missing ones again), the prompts to act, and
// quick play's news (js/quickplay.js); and the `watch` and `resume` that
// follow a table.

import { applyEvent, fromSnapshot } from './model.js';
import { ClosedTableView, noteYourTables } from './closed.js';
import { awayText, describe, outcomeText, scoreText, sealText } from './text.js';
import { revealed } from './witness.js';

// `client` (js/main.js) gives: state, connection, redraw(), mount(view),
// notice(text, kind), failed(error), onQuickPlay(message), onWarning(message),
// onRoundSeated(message), handEnded(table).
// Gives: receive(message), resumeTable(id, lastSeq), joinTable(id), yourTables().
export function dispatch(client) {
  const { state } = client;

  function receive(message) {
    switch (message.type) {
      case 'lobby':
        if (!message.after) {
          state.yours = message.yours ?? [];
          noteYourTables(state.yours);
        }
        state.lobby.page(message);
        break;
      case 'lobby_update':
        state.lobby.update(message.table);
        break;
      case 'lobby_removed':
        state.lobby.remove(message.table);
        break;
      case 'lobby_yours':
        // The player sat, left, or one of their tables changed or closed (here or elsewhere).
        state.yours = message.tables;
        noteYourTables(state.yours);
        break;
      case 'snapshot': {
        state.matched.delete(message.table);
        const previous = state.tables.get(message.table);
        const table = fromSnapshot(message, previous);
        state.tables.set(message.table, table);
        tellWhatHappened(table, message.state?.stood_in);
        if (!previous && table.game) rebuildPlays(table);
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
        client.onQuickPlay(message);
        break;
      case 'warning':
        client.onWarning(message);
        break;
      case 'tournament_seated':
        client.onRoundSeated(message);
        break;
      case 'error':
        client.failed(message);
        break;
      default:
        break;
    }
    client.redraw();
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
    if (message.event?.event === 'hand_ended') {
      remember(table);
      client.handEnded(table);
    }
    if (message.event?.event === 'game_started') forget(table.id);
    if (message.event?.event === 'deal_revealed') checkSeal(table, message.event);
  }

  // The last hand this browser saw end at each table it plays at, kept
  // across reloads, so that a player coming back (a reload, Resume, a new
  // connection) is told what was played without them.
  const SEEN_KEY = 'euchre.seen';
  const seenTables = () => {
    try {
      return JSON.parse(localStorage.getItem(SEEN_KEY) ?? '{}') ?? {};
    } catch {
      return {};
    }
  };
  const keepSeen = (seen) => {
    const kept = Object.entries(seen).sort((a, b) => b[1].at - a[1].at).slice(0, 20);
    try {
      localStorage.setItem(SEEN_KEY, JSON.stringify(Object.fromEntries(kept)));
    } catch {
      // storage full or off: the note is a nicety
    }
  };
  // The table's last hand ended, as this client knows it now.
  function lastEnded(table) {
    const game = table.game;
    if (!game || game.hand_number === undefined) return null;
    const ended = game.phase === 'finished' || game.winner !== null && game.winner !== undefined
      ? game.hand_number : game.hand_number - 1;
    return ended < 0 ? null : { hand: ended, scores: [...(game.scores ?? [])], at: Date.now() };
  }
  function remember(table) {
    if (table.yourSeat === null) return;
    const now = lastEnded(table);
    if (!now) return;
    const seen = seenTables();
    seen[table.id] = now;
    keepSeen(seen);
  }
  function forget(id) {
    const seen = seenTables();
    if (id in seen) {
      delete seen[id];
      keepSeen(seen);
    }
  }
  // Told from the later of: the hand before the one a bot first played for
  // us (`stood_in`, the server's word, on any device), and the last hand
  // this browser saw end.
  function tellWhatHappened(table, stoodIn) {
    if (table.yourSeat === null) return;
    const now = lastEnded(table);
    const seen = seenTables()[table.id];
    const server = stoodIn && { hand: stoodIn.from_hand - 1, scores: stoodIn.scores };
    const since = server && !(seen && seen.hand >= server.hand) ? server : seen;
    const text = now && awayText(table, since, now);
    if (text) {
      table.log.push({ text, kind: 'away' });
      client.notice(text);
    }
    remember(table);
  }

  // A table opened afresh (a reload, Resume, another device): its Plays
  // starts empty, so the hands of this game that ended before are read
  // from its history (`/api/tables/{id}` names the match) and listed, one
  // line each, under "Earlier in this game". The player's token shows a
  // private table's game to those seated at it.
  async function rebuildPlays(table) {
    const headers = { accept: 'application/json' };
    if (state.identity.token) headers.authorization = `Bearer ${state.identity.token}`;
    const get = async (path) => {
      const response = await fetch(path, { headers });
      return response.ok ? response.json() : null;
    };
    try {
      const info = await get(`/api/tables/${encodeURIComponent(table.id)}`);
      const id = info?.last_match?.id;
      const match = id ? await get(`/api/matches/${encodeURIComponent(id)}`) : null;
      const current = state.tables.get(table.id);
      if (!match || current !== table || table.log.some((line) => line.kind === 'earlier')) return;
      const before = table.game?.hand_number ?? 0;
      const ended = (match.hands ?? []).filter((hand) => hand.outcome && hand.number < before);
      if (ended.length === 0) return;
      table.log.push({ text: 'Earlier in this game:', kind: 'earlier' });
      for (const hand of ended) {
        table.log.push({ text: `Hand ${hand.number + 1}: ${outcomeText(table, hand.outcome)} Score: ${scoreText(table, hand.scores)}.`, kind: 'hand_ended' });
      }
      client.redraw();
    } catch {
      // The history is a nicety here: the table plays on without it.
    }
  }

  // Checks a revealed deal here, against its commitment and everything this
  // client saw of the hand (web/js/witness.js), and says what it found.
  async function checkSeal(table, { hand, deck, salt }) {
    const seal = table.seal;
    const { check, why } = await revealed(table.witness, table.summary.rules, hand, deck, salt);
    if (seal?.hand === hand) Object.assign(seal, { check, why });
    table.log.push({ text: sealText(hand, check, why), kind: `deal-${check}` });
    client.redraw();
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
    client.connection.send({ type: 'resume', table: id, last_seq: lastSeq })
      .catch((error) => {
        if (error.code === 'no_such_table') {
          const invite = state.route.id === id ? state.route.invite : null;
          state.tables.delete(id);
          if (invite) joinTable(id);
          else if (state.route.id === id) tableGone(id);
        } else client.failed(error);
      })
      .finally(() => state.resyncing.delete(id));
  }

  // A table not followed yet (a link, a reload): `watch` it. A seated player
  // gets their own seat's view and takes it back.
  function joinTable(id) {
    const invite = state.route.page === 'table' && state.route.id === id ? state.route.invite : null;
    client.connection.send({ type: 'watch', table: id, ...(invite ? { invite } : {}) })
      .then(client.redraw, (error) => {
        if (error.code === 'no_such_table') tableGone(id);
        else client.failed(error);
      });
  }

  // A table the server no longer has: the page says what became of it.
  function tableGone(id) {
    if (state.route.page === 'table' && state.route.id === id) client.mount(new ClosedTableView(id));
    else client.notice(`Table ${id} does not exist any more.`, 'error');
  }

  // The tables this player sits at, followed here or listed by the server as
  // theirs (another tab, device, or an earlier visit): each with its summary.
  function yourTables() {
    const followed = [...state.tables.values()].filter((t) => t.yourSeat !== null);
    const listed = state.yours.filter((t) => !state.tables.has(t.table)).map((t) => ({ id: t.table, summary: t }));
    return [...followed, ...listed];
  }

  return { receive, resumeTable, joinTable, yourTables };
}
