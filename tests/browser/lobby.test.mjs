// The lobby at more tables than one page: the open tables first, a page at
// a time ("More tables"), the other filters, and live changes under the
// filter (a table that fills up leaves the open tables).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withServerAndBrowser } from './support.mjs';

// More than the server's first page (50).
const OPEN = 55;
const env = withServerAndBrowser({ env: { EUCHRE_LIMITS__TABLES_PER_PLAYER: String(OPEN + 2) } });

// A second connection of the page's own guest, straight over the protocol:
// `window.protocol(command)` resolves to the command's answer.
async function connectProtocol(page) {
  await page.evaluate(async () => {
    const { token } = JSON.parse(localStorage.getItem('euchre.identity'));
    const ws = new WebSocket(`ws://${location.host}/ws`);
    await new Promise((resolve, reject) => {
      ws.addEventListener('open', resolve);
      ws.addEventListener('error', reject);
    });
    const waiting = new Map();
    ws.addEventListener('message', (frame) => {
      const message = JSON.parse(frame.data);
      waiting.get(message.id)?.(message);
      waiting.delete(message.id);
    });
    let id = 0;
    let lastSent = 0;
    window.protocol = async (command) => {
      // Well under the server's rate limit (20 a second).
      const wait = lastSent + 80 - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      lastSent = Date.now();
      id += 1;
      const mine = id;
      return new Promise((resolve) => {
        waiting.set(mine, resolve);
        ws.send(JSON.stringify({ ...command, id: mine }));
      });
    };
    await window.protocol({ type: 'hello', protocol_version: 1, token });
  });
}

test('the lobby shows the open tables a page at a time, filters them, and follows them live', async () => {
  const hal = await env.player('Hal');
  await connectProtocol(hal);
  const open = await hal.evaluate(async (count) => {
    const ids = [];
    for (let i = 0; i < count; i += 1) ids.push((await window.protocol({ type: 'create_table', bot_seats: [] })).table);
    return ids;
  }, OPEN);
  assert.equal(open.length, OPEN);

  const ann = await env.player('Ann');
  const rows = ann.locator('.open-tables .table-row');
  const more = ann.getByRole('button', { name: 'More tables' });
  await rows.nth(49).waitFor();
  assert.equal(await rows.count(), 50, 'the first page');
  assert.equal(await ann.locator('.lobby-count').textContent(), `Showing 50 of ${OPEN}`);
  await more.click();
  await rows.nth(OPEN - 1).waitFor();
  assert.equal(await rows.count(), OPEN);
  assert.equal(await more.isHidden(), true, 'no page after the last');

  // A table with three bots waits for one more: listed until it fills, then
  // gone from the open tables (it is in play).
  const filling = await hal.evaluate(async () => (await window.protocol({ type: 'create_table', bot_seats: [1, 2, 3] })).table);
  const row = ann.locator(`.table-row[data-table="${filling}"]`);
  await row.waitFor();
  assert.equal(await row.locator('.who').textContent(), "Hal's table", 'a name, not an id');
  assert.match(await row.locator('.what').textContent(), /^Standard · /);
  assert.equal(await ann.locator('.lobby-count').textContent(), `Showing ${OPEN + 1} of ${OPEN + 1}`);
  await hal.evaluate(async (table) => window.protocol({ type: 'sit', table, seat: 0 }), filling);
  await row.waitFor({ state: 'detached' });
  assert.equal(await rows.count(), OPEN);

  // The games in play: only that one; every table: a first page again.
  const show = ann.getByLabel('Show');
  await show.selectOption('playing');
  await row.waitFor();
  assert.equal(await rows.count(), 1);
  await show.selectOption('all');
  await rows.nth(49).waitFor();
  assert.equal(await ann.locator('.lobby-count').textContent(), `Showing 50 of ${OPEN + 1}`);
  assert.equal(await more.isVisible(), true);
  // Back to the open tables: their first page again (55 of them now).
  await show.selectOption('open');
  await ann.locator('.lobby-count', { hasText: `Showing 50 of ${OPEN}` }).waitFor();
  assert.equal(await rows.count(), 50);
  assert.equal(await ann.locator(`.table-row[data-table="${open[OPEN - 1]}"]`).count(), 0, 'the last one is on the next page');
  assert.deepEqual(hal.problems, []);
  assert.deepEqual(ann.problems, []);
});

test('your tables follow you live, named by their host: a seat taken or left elsewhere shows without a reload', async () => {
  const ivy = await env.player('Ivy');
  // Ivy's other tab (another connection of her guest) takes and leaves a seat.
  await connectProtocol(ivy);
  const table = await ivy.evaluate(async () => (await window.protocol({ type: 'create_table', bot_seats: [] })).table);
  const mine = ivy.locator(`.table-row.mine[data-table="${table}"]`);
  assert.equal(await mine.count(), 0, 'not hers until she sits');

  await ivy.evaluate(async (id) => window.protocol({ type: 'sit', table: id, seat: 0 }), table);
  await mine.waitFor();
  assert.equal(await mine.locator('.who').textContent(), "Ivy's table");
  assert.equal(await mine.getByRole('button', { name: 'Resume' }).isVisible(), true);

  await ivy.evaluate(async (id) => window.protocol({ type: 'leave', table: id }), table);
  await mine.waitFor({ state: 'detached' });
  assert.equal(await ivy.locator('.table-row.mine').count(), 0);
  assert.deepEqual(ivy.problems, []);
});
