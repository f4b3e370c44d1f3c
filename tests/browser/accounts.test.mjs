// Accounts and ratings in a real browser against the real server: a guest
// claims its name, four accounts play a rated game, the table shows the
// rating change, the leaderboard ranks the account, and its profile draws
// the rating chart; logging in elsewhere brings the same player back.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTable, gameOver, playUntil, takeSeat, withServerAndBrowser } from './support.mjs';

// Accounts rated from their first game (the server's minimum is tested in Rust).
const env = withServerAndBrowser({ env: { EUCHRE_RATINGS__MIN_ACCOUNT_AGE_SECONDS: '0', EUCHRE_RATINGS__MIN_GAMES: '0' } });
const PASSWORD = 'correct horse';

// The page's guest claims its name with PASSWORD, on the Account page.
async function claim(page, name) {
  await page.getByRole('link', { name: 'Account', exact: true }).click();
  await page.getByLabel('Password (8 characters or more)').fill(PASSWORD);
  await page.getByRole('button', { name: 'Claim name' }).click();
  await page.getByRole('heading', { name: `Your account: ${name}` }).waitFor();
  await page.locator('#connection[data-status="online"]').waitFor();
}

test('claim a name, play a rated game, see the rating change and the leaderboard', async () => {
  const names = ['Ann', 'Bob', 'Cy', 'Di'];
  const ann = await env.player(names[0]);
  await claim(ann, names[0]);

  // Four accounts, no bots: a rated game (only accounts are rated).
  await ann.getByRole('link', { name: 'Lobby', exact: true }).click();
  const link = await createTable(ann, { bots: [], points: 5 });
  const pages = [ann];
  for (const seat of [1, 2, 3]) {
    const page = await env.player(names[seat]);
    await claim(page, names[seat]);
    await takeSeat(page, link, seat);
    pages.push(page);
  }
  for (const page of pages) await page.locator('.hand .card').first().waitFor();
  await playUntil(pages, () => gameOver(ann), { timeoutMs: 300000 });

  // The table says what the game did to Ann's rating.
  const change = ann.locator('.rating-change');
  await change.waitFor();
  const [, rating, sign] = (await change.textContent()).match(/^Rating (\d+) \(([+−±])\d+\)$/) ?? [];
  assert.ok(rating, `the rating shown: ${await change.textContent()}`);
  assert.notEqual(sign, '±', 'a game between newcomers moves the rating');
  await ann.locator('.play-log li', { hasText: /^Ratings: You \d+/ }).waitFor();

  // The leaderboard ranks the four accounts, Ann with that rating.
  await ann.getByRole('link', { name: 'Leaderboard', exact: true }).click();
  await ann.locator('.board-row').first().waitFor();
  assert.equal(await ann.locator('.board-row').count(), 4, 'the four accounts');
  const row = ann.locator('.board-row').filter({ has: ann.getByRole('link', { name: 'Ann', exact: true }) });
  assert.equal(await row.locator('a').textContent(), 'Ann');
  assert.equal(await row.locator('.board-rating').textContent(), rating);

  // The profile: the record, the rating and its chart.
  await row.locator('a').click();
  await ann.getByRole('heading', { name: 'Ann' }).waitFor();
  assert.equal(await ann.locator('.profile-rating').textContent(), rating);
  await ann.locator('.rating-chart polyline').waitFor();

  // Another device: a log-in brings back the same player.
  const elsewhere = await env.player('Someone');
  await elsewhere.getByRole('link', { name: 'Account', exact: true }).click();
  await elsewhere.getByLabel('Account name').fill('ann');
  await elsewhere.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await elsewhere.getByRole('button', { name: 'Log in' }).click();
  await elsewhere.getByRole('heading', { name: 'Your account: Ann' }).waitFor();
  await elsewhere.locator('#connection[data-status="online"]').waitFor();
  assert.equal(await elsewhere.locator('#player-name').textContent(), 'Ann');
  const id = (page) => page.evaluate(() => JSON.parse(localStorage.getItem('euchre.identity')).id);
  assert.equal(await id(elsewhere), await id(ann));

  // A password change on the first device ends the other device's session:
  // its socket is closed with 4003, and the page says so instead of coming
  // back as a guest under the account's name.
  await ann.getByRole('link', { name: 'Account', exact: true }).click();
  await ann.getByLabel('Current password').fill(PASSWORD);
  await ann.getByLabel('New password').fill(`${PASSWORD} again`);
  await ann.getByRole('button', { name: 'Change password' }).click();
  await elsewhere.getByText('Your session ended').waitFor({ timeout: 5000 });
  await elsewhere.getByLabel('Display name').waitFor();
  await ann.locator('#connection[data-status="online"]').waitFor();
  assert.equal(await ann.locator('#player-name').textContent(), 'Ann', 'the changing device keeps its account');

  // A newcomer cannot play under the claimed name, whatever its case.
  const context = await env.browser.newContext();
  const impostor = await context.newPage();
  await impostor.goto(env.server.url);
  await impostor.getByLabel('Display name').fill('ANN');
  await impostor.getByRole('button', { name: 'Continue' }).click();
  await impostor.getByText('That name belongs to an account').waitFor();
  await impostor.getByLabel('Display name').waitFor();
  await context.close();

  for (const page of [...pages, elsewhere]) assert.deepEqual(page.problems, [], 'no script errors or console errors');
});

test('the form can make a table unrated: its create_table says rated false', async () => {
  const page = await env.player('Eve');
  const sent = [];
  page.on('websocket', (socket) => socket.on('framesent', ({ payload }) => sent.push(String(payload))));
  // The page connected before anyone listened: connect again, listened to.
  await page.reload();
  await page.locator('#connection[data-status="online"]').waitFor();
  assert.equal(await page.getByLabel('Rated (when every seat is an account)').isChecked(), true, 'rated by default');
  await page.getByLabel('Rated (when every seat is an account)').uncheck();
  await createTable(page, { bots: [1, 2, 3], points: 5 });
  const create = sent.map((frame) => JSON.parse(frame)).find((message) => message.type === 'create_table');
  assert.equal(create?.rated, false, `create_table sent: ${JSON.stringify(create)}`);
});
