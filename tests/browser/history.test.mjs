// Match history in a real browser against the real server: a short game
// against bots, then the History list shows it with its score, and its
// replay steps through every hand to the last trick.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { SCREENSHOTS, createTable, gameOver, openPlayer, playQuickGames, playUntil, startServer, withServerAndBrowser, firstStoredMatch } from './support.mjs';

const env = withServerAndBrowser();

test('a finished game is listed in History and replays hand by hand', async () => {
  const page = await env.player('Jo');
  // Nothing played yet.
  await page.getByRole('link', { name: 'History', exact: true }).click();
  await page.getByText('No games yet').waitFor();

  await page.getByRole('link', { name: 'Lobby', exact: true }).click();
  await page.getByLabel('Points to win').selectOption('5');
  await page.getByRole('button', { name: 'Create table' }).click();
  await page.locator('.hand .card').first().waitFor();
  await playUntil([page], () => gameOver(page), { timeoutMs: 90000 });

  // The table's final score, from our side ("Us" first).
  const names = await page.locator('.scores dt').allTextContents();
  const values = (await page.locator('.scores dd').allTextContents()).map(Number);
  const score = Object.fromEntries(names.map((n, i) => [n, values[i]]));
  assert.ok(score.Us !== undefined && score.Them !== undefined, `scores read: ${JSON.stringify(score)}`);
  const won = score.Us > score.Them;

  // The match is in the list a moment after it ends: look until it is.
  const row = await firstStoredMatch(page);
  await row.waitFor();
  assert.equal(await page.locator('.match-row').count(), 1);
  const text = await row.textContent();
  assert.match(text, won ? /Won/ : /Lost/);
  assert.equal(await row.locator('.match-score').textContent(), `Us ${score.Us}–${score.Them} Them`);
  assert.match(text, /against Left bot and Right bot/);
  assert.match(text, /With Partner bot/);
  assert.match(text, /Standard, to 5/);
  assert.equal(await page.getByRole('button', { name: 'Load more' }).count(), 0, 'one page only');
  await page.screenshot({ path: join(SCREENSHOTS, 'history.png') });

  await row.getByRole('link', { name: /Replay/ }).click();
  await page.locator('.replay[data-hand="0"][data-step="0"]').waitFor();
  assert.match(page.url(), /#\/history\/[^/?]+/);
  const matchId = decodeURIComponent(page.url().match(/#\/history\/([^/?]+)/)[1]);

  // The deal: four hands of five, shown face up now the match is over; the up-card.
  assert.equal(await page.locator('.replay-hand').count(), 4);
  for (const hand of await page.locator('.replay-hand').all()) assert.equal(await hand.locator('.card').count(), 5);
  assert.match(await page.locator('.up-card .card').getAttribute('aria-label'), /^Up-card: /);
  assert.equal(await page.locator('.replay-side .scores dd').first().textContent(), '0');

  // The deal was sealed before the bidding: the page hashes it and says so.
  const dealCheck = page.locator('.replay-side .deal-check');
  assert.equal(await dealCheck.getAttribute('data-check'), 'verified');
  assert.match(await dealCheck.textContent(), /Deal verified/);

  // The bidding, by the button, then a trick by the keyboard's arrow.
  await page.getByRole('button', { name: 'Next ▶' }).click();
  await page.locator('.replay[data-step="1"]').waitFor();
  assert.ok(await page.locator('.center-bids li').count() > 0, 'the calls are listed');
  await page.keyboard.press('ArrowRight');
  await page.locator('.replay[data-step="2"] .trick .card').first().waitFor();
  await page.keyboard.press('ArrowLeft');
  await page.locator('.replay[data-step="1"]').waitFor();
  assert.match(page.url(), /hand=1&step=2$/, 'the step is in the URL');

  // On to the very end: the last trick of the last hand.
  for (let i = 0; i < 300 && await page.locator('.replay[data-last="true"]').count() === 0; i += 1) {
    await page.keyboard.press('ArrowRight');
  }
  await page.locator('.replay[data-last="true"]').waitFor();
  assert.ok(await page.locator('.replay-where').textContent().then((t) => /Trick \d of \d/.test(t)), 'the last step is a trick');
  assert.ok(await page.locator('.trick .card').count() >= 3, 'the last trick is on the felt');
  assert.ok(await page.locator('.trick .card.winner').count() === 1, 'its winner is marked');
  assert.match(await page.locator('.felt .result').textContent(), /trick/);
  const final = (await page.locator('.replay-side .scores dd').allTextContents()).map(Number);
  assert.deepEqual(final, [score.Us, score.Them], 'the running score ends at the final score');
  assert.equal(await page.getByRole('button', { name: 'Next ▶' }).isDisabled(), true);
  await page.screenshot({ path: join(SCREENSHOTS, 'replay.png'), fullPage: true });

  // The URL links to this very step: a fresh load comes back to it.
  const link = page.url();
  await page.reload();
  await page.locator('.replay[data-last="true"]').waitFor();
  assert.equal(decodeURIComponent(page.url().match(/#\/history\/([^/?]+)/)[1]), matchId);

  // A record altered after the fact (one salt digit, as the API answers it
  // here) no longer matches its commitment, and the page says so.
  await page.route(`**/api/matches/${encodeURIComponent(matchId)}`, async (route) => {
    const match = await (await route.fetch()).json();
    const salt = match.hands[0].salt;
    match.hands[0].salt = (salt[0] === '0' ? '1' : '0') + salt.slice(1);
    await route.fulfill({ json: match });
  });
  await page.goto(link.replace(/\?.*$/, '?hand=1&step=1'));
  await page.locator('.replay[data-hand="0"][data-step="0"]').waitFor();
  assert.equal(await dealCheck.getAttribute('data-check'), 'mismatch');
  await page.unroute(`**/api/matches/${encodeURIComponent(matchId)}`);

  await page.getByRole('link', { name: '← All matches' }).click();
  await page.locator('.match-row').first().waitFor();
  assert.ok(link.includes(encodeURIComponent(matchId)));
  assert.deepEqual(page.problems, [], 'no script errors or console errors');
  await page.context().close();
});

test('"Load more" pages through a long history with no gap and no repeat', async () => {
  const page = await env.player('Kit');
  const games = 42; // three pages of 20
  assert.equal(await playQuickGames(page, games), games);
  const me = await page.evaluate(() => JSON.parse(localStorage.getItem('euchre.identity')).id);
  // Every match of this player in one request, once all are stored: the
  // order the paged list must show.
  // (Asked again here: an async predicate's promise is truthy at once to
  // waitForFunction, and the last hands reach the store a moment late.)
  let expected = false;
  for (let attempt = 0; attempt < 240 && !expected; attempt += 1) {
    if (attempt > 0) await page.waitForTimeout(250);
    expected = await page.evaluate(async ({ id, count }) => {
      const response = await fetch(`/api/matches?player=${encodeURIComponent(id)}&limit=100`);
      const { matches } = await response.json();
      return matches.length === count && matches.every((m) => m.finished) ? matches.map((m) => m.id) : false;
    }, { id: me, count: games });
  }
  assert.ok(expected, 'every match stored and finished within a minute');

  await page.getByRole('link', { name: 'History', exact: true }).click();
  const rows = page.locator('.match-row');
  const more = page.getByRole('button', { name: 'Load more' });
  for (const shown of [20, 40]) {
    await page.waitForFunction((n) => document.querySelectorAll('.match-row').length === n, shown);
    await more.waitFor();
    await more.click();
  }
  await page.waitForFunction((n) => document.querySelectorAll('.match-row').length === n, games);
  await page.locator('.history p[role="status"]').waitFor({ state: 'detached' });
  assert.equal(await more.count(), 0, 'no "Load more" after the last page');
  const shown = await rows.evaluateAll((items) => items.map((item) => item.dataset.match));
  assert.equal(new Set(shown).size, shown.length, 'no match is listed twice');
  assert.deepEqual(shown, expected, 'every match, newest first, none missing');
  for (const text of await rows.locator('.match-result').allTextContents()) assert.match(text, /^(Won|Lost)$/);
  assert.deepEqual(page.problems, [], 'no script errors or console errors');
});

// Leave and come back: the lobby and History list the game in play first,
// with Resume, on a new page (the same player). Everyone gone, the table
// closes; its link says so, and the game reads Abandoned in History, in the
// replay and in the API.
test('a game left and come back to is resumed; once closed its link explains and it reads Abandoned', async () => {
  // Its own server: tables close 8 s after everyone left.
  const server = await startServer({ env: { EUCHRE_TIMING__TABLE_CLOSE_MS: '8000', EUCHRE_TIMING__RECONNECT_GRACE_MS: '8000' } });
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 860 } });
  try {
    const first = await context.newPage();
    await first.goto(server.url);
    await first.getByLabel('Display name').fill('Lee');
    await first.getByRole('button', { name: 'Continue' }).click();
    await first.locator('#connection[data-status="online"]').waitFor();
    const link = await createTable(first);
    await first.locator('.hand .card').first().waitFor();
    const tableId = decodeURIComponent(link.match(/#\/table\/([^/?]+)/)[1]);
    await first.close();

    // Back on a new page: the lobby, then History, each with Resume.
    const page = await context.newPage();
    const problems = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(server.url);
    const mine = page.locator('.my-tables .table-row');
    await mine.getByRole('button', { name: 'Resume' }).waitFor();
    assert.match(await mine.textContent(), /Lee's table/);
    await page.getByRole('link', { name: 'History', exact: true }).click();
    const yours = page.locator('.your-games .table-row');
    await yours.getByRole('button', { name: 'Resume' }).click();
    await page.locator('.hand .card').first().waitFor();
    assert.match(page.url(), new RegExp(`#/table/${tableId}`));
    await page.close();

    // Everyone gone: closed, its game abandoned. The table leaves the
    // server's list before the store has written its close (the writer
    // gathers its writes), so poll until the reason is there too.
    let table = null;
    for (let i = 0; i < 100 && !(table?.state === 'closed' && table?.closed_reason); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      table = await (await fetch(`${server.url}/api/tables/${tableId}`)).json();
    }
    assert.equal(table.state, 'closed', JSON.stringify(table));
    assert.equal(table.closed_reason, 'everyone_left');
    const matchId = table.last_match.id;
    // The store takes the abandonment a moment after the table closes
    // (the writer gathers its writes): poll for it as a reader would.
    let shown = null;
    for (let i = 0; i < 50 && !shown?.abandoned; i += 1) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, 200));
      shown = await (await fetch(`${server.url}/api/matches/${matchId}`)).json();
    }
    assert.equal(shown.abandoned?.reason, 'everyone_left', JSON.stringify(shown));

    // The old link explains, and leads to the game in history.
    const again = await context.newPage();
    again.on('pageerror', (error) => problems.push(error.message));
    await again.goto(link);
    await again.getByRole('heading', { name: 'This table has closed' }).waitFor();
    await again.locator('.closed-table .closed-line').first().waitFor();
    const text = await again.locator('.closed-table').textContent();
    assert.match(text, /Lee's table closed on .*, after everyone left\./);
    assert.match(text, /abandoned before the end/);
    await again.getByRole('link', { name: 'See the game in history' }).click();
    await again.locator('.replay[data-hand="0"][data-step="0"]').waitFor();
    // The summary names the state and the sides apart: "Abandoned — Us 0–0 Them · …".
    assert.match(await again.locator('.replay-summary').textContent(), /^Abandoned — Us \d+–\d+ Them · /);
    assert.equal(await again.locator('.replay-hand').first().locator('.card').count(), 5, 'its cards are shown');
    await again.getByRole('link', { name: 'History', exact: true }).click();
    const row = again.locator('.match-row').first();
    await row.waitFor();
    assert.equal(await row.locator('.match-result').textContent(), 'Abandoned');
    assert.match(await row.textContent(), /^Abandoned — Us \d+–\d+ Them/, 'the state and the score read apart');
    await row.getByRole('link', { name: /Replay/ }).waitFor();
    assert.equal(await again.locator('.your-games').count(), 0, 'no live game is left');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
    await server.stop();
  }
});

// "Leave" says a bot plays the seat to the end of the game, and one does:
// the match is finished, Won or Lost, never Abandoned, though the table
// closes a second after its last person went.
test('a game left to a bot is played to its end and reads Won or Lost', async () => {
  const server = await startServer({ botDelayMs: 300, env: { EUCHRE_TIMING__TABLE_CLOSE_MS: '1000', EUCHRE_TIMING__RECONNECT_GRACE_MS: '1000' } });
  let page = null;
  try {
    page = await openPlayer(env.browser, server.url, 'Max');
    await createTable(page);
    await page.locator('.hand .card').first().waitFor();
    let asked = null;
    page.once('dialog', (dialog) => {
      asked = dialog.message();
      dialog.accept();
    });
    await page.getByRole('button', { name: 'Leave table' }).click();
    await page.locator('.quick-play').waitFor();
    assert.match(asked, /plays it to the end of this game/);
    const row = await firstStoredMatch(page);
    assert.match(await row.locator('.match-result').textContent(), /^(Won|Lost)$/);
    // Its replay names the bot that played on in the seat.
    await row.getByRole('link', { name: /Replay/ }).click();
    const standIn = page.locator('.replay-stand-in');
    await standIn.waitFor();
    assert.equal(await standIn.textContent(), 'You left in hand 1: an easy bot played your seat to the end.');
    // The lobby lists the table a while, with how its game ended.
    await page.getByRole('link', { name: 'Lobby', exact: true }).click();
    const closed = page.locator('.recently-closed .table-row');
    await closed.first().waitFor();
    assert.match(await closed.first().textContent(), /^Max's table(Won|Lost) — Us \d+–\d+ ThemReplay$/);
    assert.deepEqual(page.problems, []);
  } finally {
    await page?.context().close();
    await server.stop();
  }
});

// Coming back to a game that went on without the player: a bot played
// their seat once the grace ran out, and the page says which hands and
// what became of the score.
test('a player back from away is told which hands were played without them', async () => {
  const server = await startServer({ botDelayMs: 100, env: { EUCHRE_TIMING__RECONNECT_GRACE_MS: '300', EUCHRE_TIMING__TABLE_CLOSE_MS: '60000' } });
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 860 } });
  try {
    const first = await context.newPage();
    first.setDefaultTimeout(60000);
    await first.goto(server.url);
    await first.getByLabel('Display name').fill('Ned');
    await first.getByRole('button', { name: 'Continue' }).click();
    await first.locator('#connection[data-status="online"]').waitFor();
    const link = await createTable(first);
    const tableId = decodeURIComponent(link.match(/#\/table\/([^/?]+)/)[1]);
    // Play until a hand has ended here.
    const seenHand = () => first.evaluate((id) => JSON.parse(localStorage.getItem('euchre.seen') ?? '{}')[id]?.hand ?? null, tableId);
    await playUntil([first], async () => (await seenHand()) !== null, { timeoutMs: 90000 });
    const seen = await seenHand();
    await first.close();
    // Away: the bots play on; wait for two more hands in the store.
    const table = async () => (await fetch(`${server.url}/api/tables/${tableId}`)).json();
    const matchId = (await table()).last_match.id;
    let hands = 0;
    for (let i = 0; i < 300 && hands < seen + 3; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      hands = (await (await fetch(`${server.url}/api/matches/${matchId}`)).json()).hands?.length ?? 0;
    }
    assert.ok(hands >= seen + 3, `the bots played on: ${hands} hands`);
    const page = await context.newPage();
    page.setDefaultTimeout(60000);
    await page.goto(link);
    const note = page.locator('.play-log li.away');
    await note.waitFor();
    assert.match(await note.textContent(), new RegExp(`^While you were away, hands? ${seen + 2}( to \\d+)? (was|were) played, a bot in your seat once the grace ran out: Us \\d+, Them \\d+ then, Us \\d+, Them \\d+ now\\.$`));
    // Plays, empty on a page opened afresh, is rebuilt from the game's
    // history: a line for each hand that ended before.
    await page.locator('.play-log li.earlier').waitFor();
    const earlier = await page.locator('.play-log li.hand_ended').allTextContents();
    assert.ok(earlier.length >= seen + 2, `a line per earlier hand: ${earlier.join(' | ')}`);
    assert.match(earlier[0], /^Hand 1: .* Score: Us \d+, Them \d+\.$/);
    // Another device (a browser that never saw this table) with Ned's
    // identity is told too, by the server, from the first hand the bot played.
    const identity = await page.evaluate(() => localStorage.getItem('euchre.identity'));
    const other = await env.browser.newContext({ viewport: { width: 1280, height: 860 } });
    try {
      await other.addInitScript((saved) => localStorage.setItem('euchre.identity', saved), identity);
      const phone = await other.newPage();
      phone.setDefaultTimeout(60000);
      await phone.goto(link);
      const told = phone.locator('.play-log li.away');
      await told.waitFor();
      assert.match(await told.textContent(), new RegExp(`^While you were away, hands? ${seen + 2}( to \\d+)? (was|were) played, a bot in your seat once the grace ran out: Us \\d+, Them \\d+ then, Us \\d+, Them \\d+ now\\.$`));
    } finally {
      await other.close();
    }
  } finally {
    await context.close();
    await server.stop();
  }
});
