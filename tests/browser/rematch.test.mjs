// Play again after quick play: a pool's table has no host, so each player
// asks for the rematch, and the next game starts at the same table with the
// same seats once everyone still seated has asked (alone with bots: at
// once). Nobody is told that "the host may" start one.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gameOver, playUntil, withServerAndBrowser } from './support.mjs';

// Basic bots: the pools' search bots think for a long while in a debug build.
const env = withServerAndBrowser({ env: { EUCHRE_QUICK_PLAY__WAVE_MS: '200', EUCHRE_QUICK_PLAY__BOT: 'basic' } });

async function quickPlay(page, preset, { botsAfter = null } = {}) {
  await page.locator('.quick-play').waitFor();
  await page.getByRole('radio', { name: 'Casual' }).check();
  if (botsAfter) await page.getByLabel('Bots fill the seats').selectOption(String(botsAfter));
  await page.locator(`.quick-form[data-preset="${preset}"]`).click();
}

async function seated(page) {
  await page.locator('.felt .seat-bottom .seat-name', { hasText: 'You' }).waitFor();
}

function tableOf(page) {
  return decodeURIComponent(new URL(page.url()).hash.match(/^#\/table\/([^?]+)/)[1]);
}

// The game over screen with no host to wait for.
async function assertNoHostWords(page) {
  const controls = await page.locator('.controls').textContent();
  assert.doesNotMatch(controls, /host/i, `no host at a pool table: ${controls}`);
}

// The next game has begun: its first deal is in the player's hand.
async function newGameBegun(page) {
  await page.locator('.game-over').waitFor({ state: 'detached' });
  await page.locator('.hand .card').first().waitFor();
}

test('two strangers after a quick-play game both ask, and play again at the same table', async () => {
  const [jon, kim] = await Promise.all(['Jon', 'Kim'].map((name) => env.player(name)));
  await quickPlay(jon, 'two_handed_plain');
  await quickPlay(kim, 'two_handed_plain');
  await Promise.all([seated(jon), seated(kim)]);
  const table = tableOf(jon);
  assert.equal(tableOf(kim), table);
  await playUntil([jon, kim], async () => await gameOver(jon) && await gameOver(kim), { timeoutMs: 240000 });
  for (const page of [jon, kim]) await assertNoHostWords(page);
  await jon.getByRole('button', { name: 'Rematch' }).click();
  await jon.locator('[data-rematch="asked"]', { hasText: 'Waiting for Kim' }).waitFor();
  await kim.locator('.controls', { hasText: 'Jon asked for a rematch' }).waitFor();
  await kim.getByRole('button', { name: 'Rematch' }).click();
  await Promise.all([newGameBegun(jon), newGameBegun(kim)]);
  assert.equal(tableOf(jon), table, 'the same table');
  assert.equal(await jon.locator('.felt .seat-top .seat-name').textContent(), 'Kim', 'the same seats');
  for (const page of [jon, kim]) assert.deepEqual(page.problems, []);
});

test('alone with bots after quick play, Rematch starts the next game at once', async () => {
  const leo = await env.player('Leo');
  await quickPlay(leo, 'two_handed_plain', { botsAfter: 5 });
  await seated(leo);
  await playUntil([leo], () => gameOver(leo), { timeoutMs: 240000 });
  await assertNoHostWords(leo);
  await leo.getByRole('button', { name: 'Rematch' }).click();
  await newGameBegun(leo);
  assert.deepEqual(leo.problems, []);
});
