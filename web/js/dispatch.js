// What the server's messages do to what this client knows: the lobby's
// pages (js/lobby.js keeps them), each followed table's snapshot and
// events (a gap asks for the missing ones again), the prompts to act, and
// quick play's news (js/quickplay.js); and the `watch` and `resume` that
// follow a table.

import { applyEvent, fromSnapshot } from './model.js';
import { ClosedTableView } from './closed.js';
import { describe, sealText } from './text.js';
import { revealed } from './witness.js';

// `client` (js/main.js) gives: state, connection, redraw(), mount(view),
// notice(text, kind), failed(error), onQuickPlay(message).
// Gives: receive(message), resumeTable(id, lastSeq), joinTable(id), yourTables().
export function dispatch(client) {
  const { state } = client;

  function receive(message) {
    switch (message.type) {
      case 'lobby':
        if (!message.after) state.yours = message.yours ?? [];
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
        client.onQuickPlay(message);
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
    if (message.event?.event === 'deal_revealed') checkSeal(table, message.event);
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
