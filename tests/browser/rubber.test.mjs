// Rubbers (rules option `rubber`, sheet 003) in a real browser against the
// real server: the form's option, then a whole rubber against bots, games
// to 1 point so it is over in a few hands: the games won in the table's
// bar, the banner between games, the rubber's result, and the rubber in
// match history and its replay.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { SCREENSHOTS, createTable, gameOver, playUntil, withServerAndBrowser, firstStoredMatch } from './support.mjs';

const env = withServerAndBrowser();

// Creates a table straight over the protocol from inside the page (its
// saved token: the table is this player's), for rules the form does not
// offer (games to 1 point), and sits the player in seat 0. The socket
// stays open until `closeHelper` so the seat is never left unwatched.
async function createOverProtocol(page, settings) {
  return page.evaluate(async (command) => {
    const { token } = JSON.parse(localStorage.getItem('euchre.identity'));
    const ws = new WebSocket(`ws://${location.host}/ws`);
    await new Promise((resolve, reject) => {
      ws.addEventListener('open', resolve);
      ws.addEventListener('error', reject);
    });
    let id = 0;
    const waiting = new Map();
    ws.addEventListener('message', (frame) => {
      const message = JSON.parse(frame.data);
      if (message.id !== undefined && waiting.has(message.id)) {
        waiting.get(message.id)(message);
        waiting.delete(message.id);
      }
    });
    const send = (body) => new Promise((resolve, reject) => {
      id += 1;
      waiting.set(id, (reply) => (reply.type === 'error' ? reject(new Error(reply.message)) : resolve(reply)));
      ws.send(JSON.stringify({ ...body, id }));
    });
    await send({ type: 'hello', protocol_version: 1, token });
    const created = await send({ type: 'create_table', ...command });
    window.helperSocket = ws;
    await send({ type: 'sit', table: created.table, seat: 0, ...(created.invite ? { invite: created.invite } : {}) });
    return created;
  }, settings);
}

test('the form offers a rubber: the bar counts games won', async () => {
  const page = await env.player('Ros');
  await createTable(page, { points: 5, more: ['Rubber'] });
  await page.locator('.table-bar .tag.rubber-tally', { hasText: 'Rubber: 0–0' }).waitFor();
  assert.equal(await page.locator('.table-bar .tag.rubber-tally').getAttribute('aria-label'), 'Rubber, games won: Us 0, Them 0');
  assert.match(await page.locator('.scoreboard').textContent(), /Game 1 of the rubber/);
  assert.deepEqual(page.problems, [], 'no script errors or console errors');
});

test('a whole rubber against bots: the banner between games, the result, the history', async () => {
  const page = await env.player('Rue');
  const created = await createOverProtocol(page, {
    preset: 'standard', rules: { rubber: true, points_to_win: 1 }, private: false, bot_seats: [1, 2, 3], bot: 'basic', chat: true,
  });
  await page.goto(`${env.server.url}/#/table/${encodeURIComponent(created.table)}`);
  await page.locator('.hand .card').first().waitFor();
  await page.evaluate(() => window.helperSocket?.close());
  await page.locator('.table-bar .tag.rubber-tally').waitFor();
  // Every banner drawn, however briefly (bots here play without delay).
  await page.evaluate(() => {
    window.bannersSeen = new Set();
    new MutationObserver(() => {
      const banner = document.querySelector('.game-break');
      if (banner) window.bannersSeen.add(banner.textContent);
    }).observe(document.body, { subtree: true, childList: true });
  });

  // Play to the end, noting every banner seen between games.
  const banners = new Set();
  const tallies = new Set();
  const gameLines = new Set();
  await playUntil([page], async () => {
    const seen = await page.evaluate(() => ({
      banner: document.querySelector('.game-break')?.textContent ?? null,
      tally: document.querySelector('.rubber-tally')?.textContent ?? null,
      // The log keeps its last 60 lines: the games' lines are read as they come.
      games: [...document.querySelectorAll('.play-log li')].map((li) => li.textContent).filter((t) => /^Game \d/.test(t)),
    }));
    for (const line of seen.games) gameLines.add(line);
    if (seen.banner) banners.add(seen.banner);
    if (seen.tally) tallies.add(seen.tally);
    return gameOver(page);
  }, { timeoutMs: 180000 });

  for (const banner of await page.evaluate(() => [...window.bannersSeen])) banners.add(banner);
  const log = await page.locator('.play-log').textContent();
  for (const line of await page.locator('.play-log li').allTextContents()) if (/^Game \d/.test(line)) gameLines.add(line);
  const games = [...gameLines].map((line) => line.match(/^Game (\d) to (Us|Them), (\d+)–(\d+)(; game (\d) begins\.|: the rubber is decided\.)$/));
  assert.ok(games.every(Boolean), `the games' lines: ${[...gameLines]}`);
  assert.ok(games.length >= 2 && games.length <= 3, `two or three games in the log: ${log}`);
  games.forEach((game, i) => assert.equal(Number(game[1]), i + 1, [...gameLines].join(' | ')));
  assert.match(games.at(-1)[0], /the rubber is decided/);
  assert.ok(banners.size > 0, 'a banner was seen between games');
  for (const banner of banners) assert.match(banner, /^Game [12] to (Us|Them), \d+–\d+; game [23] begins\.$/);
  assert.ok(tallies.has('Rubber: 0–0'));
  const usWon = games.filter((g) => g[2] === 'Us').length;
  const themWon = games.length - usWon;
  assert.ok(usWon === 2 || themWon === 2, 'a side won two games');

  // The result: who won the rubber, its games and rubber points, the margin.
  const over = page.locator('.game-over.rubber-over');
  await over.waitFor();
  assert.equal(await over.locator('h2').textContent(), usWon === 2 ? 'You win the rubber!' : 'You lose the rubber');
  const result = await over.locator('.rubber-result').textContent();
  assert.match(result, new RegExp(`^2 games to ${Math.min(usWon, themWon)}; rubber points \\d+ to \\d+, a margin of \\d+\\.$`));
  assert.equal(await page.locator('.rubber-tally').textContent(), `Rubber: ${usWon}–${themWon}`);
  assert.match(await page.locator('.table-bar .status').textContent(), /Rubber over/);
  assert.match(log, /Rubber over: you (win|lose) the rubber, 2 games to [01]; rubber points \d+ to \d+, a margin of \d+\./);
  await page.screenshot({ path: join(SCREENSHOTS, 'rubber-over.png') });

  // History: the rubber listed with its games, once stored.
  const row = await firstStoredMatch(page);
  const text = await row.textContent();
  assert.match(text, usWon === 2 ? /Won/ : /Lost/);
  assert.equal(await row.locator('.match-score').textContent(), `Games: Us ${usWon}–${themWon} Them`);
  assert.equal(await row.locator('.match-score').getAttribute('aria-label'), `Games won: Us ${usWon}, Them ${themWon}`);
  assert.match(await row.locator('.match-games').textContent(), new RegExp(`^Game 1: \\d+–\\d+, Game 2: \\d+–\\d+(, Game 3: \\d+–\\d+)? · rubber points \\d+–\\d+$`));
  assert.match(text, /Standard, to 1, a rubber/);

  // The replay: each hand with its game; the games' ends said.
  await row.getByRole('link', { name: /Replay/ }).click();
  await page.locator('.replay[data-hand="0"][data-step="0"]').waitFor();
  assert.match(await page.locator('.replay-summary').textContent(),
    new RegExp(`^You ${usWon === 2 ? 'won' : 'lost'} the rubber 2 games to [01], rubber points \\d+ to \\d+, a margin of \\d+ · Standard, games to 1$`));
  assert.match(await page.locator('.replay-where').textContent(), /^Game 1 · Hand 1 of \d+ · The deal$/);
  const ends = [];
  for (let i = 0; i < 400 && await page.locator('.replay[data-last="true"]').count() === 0; i += 1) {
    const end = await page.locator('.replay-side .game-end').textContent({ timeout: 100 }).catch(() => null);
    if (end && !ends.includes(end)) ends.push(end);
    const where = await page.locator('.replay').evaluate((r) => `${r.dataset.hand}/${r.dataset.step}`);
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction((w) => {
      const r = document.querySelector('.replay');
      return r && `${r.dataset.hand}/${r.dataset.step}` !== w;
    }, where);
  }
  const last = await page.locator('.replay-side .game-end').textContent();
  ends.push(last);
  assert.equal(ends.length, games.length, `each game's end is shown once: ${ends}`);
  ends.forEach((end, i) => assert.match(end, new RegExp(`^Game ${i + 1} to (Us|Them), \\d+–\\d+ \\(\\d rubber points?\\)`)));
  assert.match(last, /the rubber is decided\.$/);
  assert.match(await page.locator('.replay-where').textContent(), new RegExp(`^Game ${games.length} · `));
  assert.deepEqual(page.problems, [], 'no script errors or console errors');
});
