// The web client in a real browser against the real server: whole games
// played only by clicking (and pressing keys on) what the page shows.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  SCREENSHOTS, gameOver, openPlayer, playUntil, startServer, withServerAndBrowser,
} from './support.mjs';

const env = withServerAndBrowser();

// Whatever the page shows, the hand is in display order: trump first.
async function assertTrumpFirst(page) {
  const flags = await page.locator('.hand .card').evaluateAll((cards) => cards.map((c) => c.classList.contains('trump')));
  const firstPlain = flags.indexOf(false);
  assert.ok(firstPlain === -1 || !flags.slice(firstPlain).includes(true), `trump cards come first: ${flags}`);
}

// Starts noting the lines the play log gains; returns a wait for one of
// `texts` among them.
async function watchLog(page) {
  await page.evaluate(() => {
    window.logWatch?.disconnect();
    window.logLines = [];
    window.logWatch = new MutationObserver((changes) => {
      for (const change of changes) for (const line of change.addedNodes) window.logLines.push(line.textContent);
    });
    window.logWatch.observe(document.querySelector('.play-log'), { childList: true });
  });
  return (texts) => page.waitForFunction((wanted) => window.logLines.some((text) => wanted.includes(text)), texts);
}

function noProblems(...pages) {
  for (const page of pages) assert.deepEqual(page.problems, [], 'no script errors or console errors');
}

test('one person and three bots play a whole game, then a rematch', async () => {
  // Somebody else's open table, so the lobby has something to list.
  const bob = await env.player('Bob');
  await bob.getByRole('checkbox', { name: 'Partner (seat 3)', exact: true }).uncheck();
  await bob.getByRole('button', { name: 'Create table' }).click();
  await bob.locator('.felt').waitFor();

  const ann = await env.player('Ann');
  await ann.locator('.table-row').first().waitFor();
  assert.match(await ann.locator('.table-row').first().textContent(), /Bob's table/);
  await ann.screenshot({ path: join(SCREENSHOTS, 'lobby.png') });

  await ann.getByRole('button', { name: 'Play now with three bots' }).click();
  await ann.locator('.hand .card').first().waitFor();
  assert.match(ann.url(), /#\/table\/[^/?]+$/);

  // The first few turns by keyboard: the hand's tab stop is a legal card
  // (the arrows move along it), bids are buttons; Enter chooses.
  let keyboardPlays = 0;
  while (keyboardPlays < 3) {
    const legal = ann.locator('.hand .card[data-legal="true"]');
    const bid = ann.locator('.bids button:not([disabled])').first();
    if (await legal.count() > 0) {
      const before = await ann.locator('.hand .card').count();
      const label = await ann.locator('.hand .card[tabindex="0"]').getAttribute('aria-label');
      assert.match(label, /(legal|discard)$/, `the tab stop is a legal card: ${label}`);
      await ann.locator('.hand .card[tabindex="0"]').focus();
      const focused = () => ann.evaluate(() => document.activeElement.dataset.card);
      const start = await focused();
      if (before > 1) {
        await ann.keyboard.press('ArrowRight');
        assert.notEqual(await focused(), start, 'the arrow moves along the hand');
        await ann.keyboard.press('ArrowLeft');
        assert.equal(await focused(), start);
      }
      // The play log says when the card went: the hand's size cannot, as a
      // bot's claim can end the hand and deal the next before a look.
      const played = await watchLog(ann);
      await ann.keyboard.press('Enter');
      const card = label.split(',')[0];
      await played([`You played the ${card}.`, `You discarded the ${card}.`]);
      keyboardPlays += 1;
    } else if (await bid.count() > 0) {
      const seq = Number(await ann.locator('.table-view').getAttribute('data-seq'));
      await bid.focus();
      await ann.keyboard.press('Enter');
      await ann.waitForFunction((s) => Number(document.querySelector('.table-view').dataset.seq) > s, seq);
    } else {
      await ann.waitForTimeout(20);
    }
  }

  // Away to the lobby and back: the table is listed under "Your tables".
  await ann.getByRole('link', { name: 'Lobby', exact: true }).click();
  await ann.getByRole('button', { name: 'Resume' }).click();
  await ann.locator('.hand .card').first().waitFor();

  let shotTaken = false;
  await playUntil([ann], () => gameOver(ann), {
    timeoutMs: 180000,
    async onStep(page) {
      await assertTrumpFirst(page);
      // A trick in progress with cards on the table makes the picture.
      if (!shotTaken && await page.locator('.trick:not(.done) .card').count() >= 2 && await page.locator('.hand .card[data-legal="true"]').count() > 0) {
        await page.screenshot({ path: join(SCREENSHOTS, 'hand.png') });
        shotTaken = true;
      }
    },
  });
  const scores = await ann.locator('.scores dd').allTextContents();
  assert.ok(scores.map(Number).some((s) => s >= 10), `somebody reached 10: ${scores}`);
  assert.match(await ann.locator('.game-over').textContent(), /You (win|lose)/);
  assert.match(await ann.locator('.play-log').textContent(), /Game over/);
  // Every deal was sealed before its bidding and checked here once
  // revealed: said in the table's details, not among the plays.
  await ann.getByRole('button', { name: 'Table details' }).click();
  await ann.locator('#table-details .deal-seal.verified').waitFor();
  const sealed = await ann.locator('#table-details').textContent();
  assert.match(sealed, /✓ Hand \d+: deal verified/);
  assert.doesNotMatch(sealed, /does not match|not checked/);
  assert.doesNotMatch(await ann.locator('.play-log').textContent(), /deal verified|does not match|commitment/);
  await ann.screenshot({ path: join(SCREENSHOTS, 'finished.png') });

  await ann.getByRole('button', { name: 'Rematch' }).click();
  await ann.locator('.game-over').waitFor({ state: 'detached' });
  await ann.waitForFunction(() => [...document.querySelectorAll('.scores dd')].every((d) => d.textContent === '0'));
  noProblems(ann, bob);
  await ann.context().close();
  await bob.context().close();
});

test('four people play a private game with each other, with chat', async () => {
  const names = ['Cat', 'Dan', 'Eve', 'Fay'];
  const host = await env.player(names[0]);
  for (const seat of ['Left opponent (seat 2)', 'Partner (seat 3)', 'Right opponent (seat 4)']) {
    await host.getByRole('checkbox', { name: seat, exact: true }).uncheck();
  }
  await host.getByLabel('Table', { exact: true }).selectOption('private');
  await host.getByLabel('Points to win').selectOption('5');
  await host.getByRole('button', { name: 'Create table' }).click();
  await host.locator('.felt').waitFor();
  const link = new URL(host.url());
  assert.match(link.hash, /\?invite=/, 'a private table has its invite in the URL');
  const tableId = decodeURIComponent(link.hash.match(/table\/([^?]+)/)[1]);
  assert.equal(await host.getByRole('button', { name: 'Copy invite link' }).count(), 1);

  const pages = [host];
  for (const name of names.slice(1)) {
    const page = await env.player(name);
    // Not in the lobby: the invite link is the only way in.
    await page.locator('.open-tables p, .table-row').first().waitFor();
    assert.equal(await page.locator(`.table-row[data-table="${tableId}"]`).count(), 0);
    await page.goto(link.href);
    await page.locator('[data-sit]').first().click();
    await page.locator('.seat-bottom .seat-name', { hasText: 'You' }).waitFor();
    pages.push(page);
  }
  // The fourth seat taken starts the game by itself.
  for (const page of pages) await page.locator('.hand .card').first().waitFor();

  await pages[1].getByRole('textbox', { name: 'Message' }).fill('good luck, all');
  await pages[1].getByRole('button', { name: 'Send' }).click();
  for (const page of pages) await page.locator('.chat-log li', { hasText: 'good luck, all' }).waitFor();

  await playUntil(pages, async () => {
    for (const page of pages) if (!await gameOver(page)) return false;
    return true;
  }, { timeoutMs: 180000 });
  const results = await Promise.all(pages.map((p) => p.locator('.game-over h2').textContent()));
  assert.equal(results.filter((r) => r === 'You win!').length, 2, `two winners: ${results}`);
  assert.equal(results[0], results[2], 'partners share the result');
  noProblems(...pages);
  for (const page of pages) await page.context().close();
});

test('a page reloaded mid-hand, and a dropped connection, both carry on to the end', async () => {
  const context = await env.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  // Every WebSocket goes through this proxy, so the test can cut one.
  const sockets = [];
  await context.routeWebSocket(/\/ws$/, (ws) => {
    ws.connectToServer();
    sockets.push(ws);
  });
  const page = await context.newPage();
  page.problems = [];
  page.on('pageerror', (error) => page.problems.push(`page error: ${error.message}`));
  await page.goto(env.server.url);
  await page.getByLabel('Display name').fill('Gus');
  await page.getByRole('button', { name: 'Continue' }).click();
  // Online first: a table asked for while still connecting is never made.
  await page.locator('#connection[data-status="online"]').waitFor();
  await page.getByLabel('Points to win').selectOption('5');
  await page.getByLabel('Chat at the table').uncheck();
  await page.getByRole('button', { name: 'Create table' }).click();
  await page.locator('.hand .card').first().waitFor();
  assert.equal(await page.locator('.chat').isVisible(), false, 'no chat box when the table has chat off');
  const tableUrl = page.url();

  // Into the play of a hand: bid, then at least one card of ours played.
  await playUntil([page], async () => (await page.locator('.hand .card').count()) <= 4
    && (await page.locator('.trick .card').count()) > 0, { timeoutMs: 30000 });
  await page.screenshot({ path: join(SCREENSHOTS, 'hand-phone.png') });
  const before = await page.locator('.hand .card').allTextContents();

  await page.reload();
  await page.locator('#connection[data-status="online"]').waitFor();
  assert.equal(page.url(), tableUrl, 'the table is in the URL');
  await page.locator('.hand .card').first().waitFor();
  const after = await page.locator('.hand .card').allTextContents();
  assert.ok(after.length <= before.length && after.length > 0, 'the same hand, back after the reload');
  assert.equal(await page.locator('.seat-bottom .seat-name').textContent(), 'You', 'still in our seat');

  // Now cut the connection under it: it reconnects and resumes by itself.
  const cut = sockets.length;
  await sockets.at(-1).close({ code: 4000, reason: 'test cut' });
  for (let i = 0; i < 200 && sockets.length === cut; i += 1) await page.waitForTimeout(50);
  assert.ok(sockets.length > cut, 'a new connection was opened');
  await page.locator('#connection[data-status="online"]').waitFor();

  await playUntil([page], () => gameOver(page), { timeoutMs: 60000 });
  assert.deepEqual(page.problems, []);
  await context.close();
});

test("the form's presets are the server's", async () => {
  const page = await env.player('Hal');
  // Straight over the protocol from the page: create a private table with
  // each preset, watch it, and read the rules from the snapshot.
  const found = await page.evaluate(async () => {
    const { PRESETS } = await import('/assets/js/rules.js');
    const rulesOf = async (presets) => {
      const ws = new WebSocket(`ws://${location.host}/ws`);
      await new Promise((resolve) => ws.addEventListener('open', resolve));
      let id = 0;
      const waiting = new Map();
      const snapshots = new Map();
      ws.addEventListener('message', (frame) => {
        const message = JSON.parse(frame.data);
        if (message.type === 'snapshot') snapshots.set(message.table, message.state.summary.rules);
        if (message.id !== undefined && waiting.has(message.id)) waiting.get(message.id)(message);
      });
      const send = (command) => new Promise((resolve) => {
        id += 1;
        waiting.set(id, resolve);
        ws.send(JSON.stringify({ ...command, id }));
      });
      await send({ type: 'hello', protocol_version: 1, name: 'Presets' });
      const out = {};
      for (const preset of presets) {
        const created = await send({ type: 'create_table', preset, private: true });
        await send({ type: 'watch', table: created.table, invite: created.invite });
        out[preset] = snapshots.get(created.table);
      }
      ws.close();
      return out;
    };
    const names = Object.keys(PRESETS);
    // Four open tables per host: a guest for each three presets.
    let server = {};
    for (let i = 0; i < names.length; i += 3) server = { ...server, ...(await rulesOf(names.slice(i, i + 3))) };
    return { server, client: Object.fromEntries(names.map((n) => [n, PRESETS[n].rules])) };
  });
  assert.deepEqual(Object.keys(found.server).sort(), Object.keys(found.client).sort());
  // Every option the form knows has the server's value (the server may know
  // more options than the form shows: those keep the preset's value).
  const check = (client, server, path) => {
    for (const [key, value] of Object.entries(client)) {
      if (value !== null && typeof value === 'object') check(value, server[key], `${path}.${key}`);
      else assert.equal(server?.[key], value, `${path}.${key}`);
    }
  };
  for (const [preset, rules] of Object.entries(found.client)) check(rules, found.server[preset], preset);
  await page.context().close();
});

test('the server restarts mid-hand: the page reconnects and the game carries on', async () => {
  // A server of its own, restarted on the same address and data.
  let own = await startServer();
  try {
    const page = await openPlayer(env.browser, own.url, 'Ida');
    await page.getByLabel('Points to win').selectOption('5');
    await page.getByRole('button', { name: 'Create table' }).click();
    await page.locator('.hand .card').first().waitFor();
    await playUntil([page], async () => (await page.locator('.hand .card').count()) <= 4, { timeoutMs: 30000 });
    const score = await page.locator('.scores').textContent();

    await own.stop({ keep: true });
    await page.locator('#connection[data-status="offline"]').waitFor();
    own = await startServer({ data: own.data, bind: own.address });
    await page.locator('#connection[data-status="online"]').waitFor({ timeout: 20000 });
    await page.locator('.hand .card').first().waitFor();
    assert.equal(await page.locator('.scores').textContent(), score, 'the same game, restored');
    assert.equal(await page.locator('.seat-bottom .seat-name').textContent(), 'You');

    await playUntil([page], () => gameOver(page), { timeoutMs: 60000 });
    noProblems(page);
    await page.context().close();
  } finally {
    await own.stop();
  }
});

test('a trick just won stays on the felt a moment, and a click goes on at once', async () => {
  // Four bots, watched, a little quicker than the server's default pace:
  // the next lead comes while the trick just won is still shown.
  const own = await startServer({ botDelayMs: 400 });
  try {
    const page = await openPlayer(env.browser, own.url, 'Rex');
    const table = await page.evaluate(async () => {
      const ws = new WebSocket(`ws://${location.host}/ws`);
      await new Promise((resolve) => ws.addEventListener('open', resolve));
      let id = 0;
      const waiting = new Map();
      ws.addEventListener('message', (frame) => {
        const message = JSON.parse(frame.data);
        if (message.id !== undefined && waiting.has(message.id)) waiting.get(message.id)(message);
      });
      const send = (command) => new Promise((resolve) => {
        id += 1;
        waiting.set(id, resolve);
        ws.send(JSON.stringify({ ...command, id }));
      });
      await send({ type: 'hello', protocol_version: 1, name: 'Bots host' });
      const created = await send({ type: 'create_table', preset: 'standard', rules: { points_to_win: 15 }, bot_seats: [0, 1, 2, 3] });
      await send({ type: 'start', table: created.table });
      return created.table;
    });
    await page.evaluate((id) => { location.hash = `#/table/${id}`; }, table);
    await page.locator('.seat-bottom .seat-name', { hasText: 'Seat 1 bot' }).waitFor();

    // Every hold the page shows, timed in the page itself (so a busy
    // machine cannot make the test miss one), and every click.
    await page.evaluate(() => {
      window.holds = [];
      window.clicks = [];
      document.addEventListener('click', () => window.clicks.push(performance.now()), true);
      const seq = () => Number(document.querySelector('.table-view')?.dataset.seq ?? 0);
      new MutationObserver(() => {
        const held = document.querySelector('.trick.held');
        const key = held?.getAttribute('aria-label') ?? null;
        const current = window.holds.at(-1);
        if (current && current.end === undefined) {
          if (key === current.key) current.lastSeq = seq();
          else current.end = performance.now();
        }
        if (key && (!current || current.end !== undefined)) {
          window.holds.push({
            key, start: performance.now(), firstSeq: seq(), lastSeq: seq(),
            cards: held.querySelectorAll('.card').length, winners: held.querySelectorAll('.card.winner').length,
          });
        }
      }).observe(document.body, { subtree: true, childList: true, attributes: true });
    });
    // Three tricks held their full time while the game went on beneath.
    const full = await page.waitForFunction(() => {
      const done = window.holds.filter((h) => h.end !== undefined && h.end - h.start >= 1000
        && !window.clicks.some((c) => c >= h.start && c <= h.end));
      return done.length >= 3 ? done : false;
    }, null, { polling: 100, timeout: 90000 }).then((h) => h.jsonValue());
    for (const hold of full) {
      assert.match(hold.key, /^Trick \d, won by Seat \d bot\. Continue$/);
      // Four cards, or three when a bot plays alone (the deals are random).
      assert.ok(hold.cards === 4 || hold.cards === 3, `the whole trick is shown: ${hold.cards} cards`);
      assert.equal(hold.winners, 1, 'its winner marked');
    }
    assert.ok(full.some((h) => h.lastSeq > h.firstSeq), 'play went on while the trick was held');

    // A click on the held trick goes on at once (tried on a few tricks: on a
    // busy machine one may end before the click lands).
    let skipped = false;
    for (let attempt = 0; attempt < 10 && !skipped; attempt += 1) {
      const before = await page.evaluate(() => window.holds.length);
      await page.waitForFunction((n) => window.holds.length > n && window.holds.at(-1).end === undefined, before, { timeout: 60000 });
      await page.locator('.trick.held').click({ timeout: 1000 }).catch(() => {});
      skipped = await page.waitForFunction(() => {
        const h = window.holds.at(-1);
        if (h.end === undefined) return false;
        const click = window.clicks.find((c) => c >= h.start && c <= h.end);
        return { clicked: click !== undefined, quick: click !== undefined && h.end - click < 300 && h.end - h.start < 1000 };
      }, null, { timeout: 10000 }).then((r) => r.jsonValue()).then((r) => r.clicked && r.quick);
    }
    assert.ok(skipped, 'a click ends the hold before its time');
    assert.deepEqual(page.problems, []);
    await page.context().close();
  } finally {
    await own.stop();
  }
});
