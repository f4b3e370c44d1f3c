// Accounts and ratings in a real browser against the real server: a guest
// claims its name, four accounts play a rated game, the table shows the
// rating change, the leaderboard ranks the account, and its profile draws
// the rating chart; logging in elsewhere brings the same player back.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { claim, createTable, gameOver, PASSWORD, playUntil, takeSeat, withServerAndBrowser } from './support.mjs';

// Accounts rated from their first game (the server's minimum is tested in Rust).
const env = withServerAndBrowser({ env: { EUCHRE_RATINGS__MIN_ACCOUNT_AGE_SECONDS: '0', EUCHRE_RATINGS__MIN_GAMES: '0' } });

test('claim a name, play a rated game, see the rating change and the leaderboard', async () => {
  const names = ['Ann', 'Bob', 'Cy', 'Di'];
  const ann = await env.player(names[0]);
  await claim(ann, names[0]);

  // Four accounts, no bots: a rated game (only accounts are rated).
  await ann.getByRole('link', { name: 'Lobby', exact: true }).click();
  // An account's quick play starts on Rated (a guest's on Casual).
  await ann.locator('.quick-play').waitFor();
  assert.equal(await ann.getByRole('radio', { name: 'Rated' }).isChecked(), true, 'rated for an account');
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
  // The chart has its scale, its dates and each game's numbers, and the
  // form named as Quick play names it.
  const chart = ann.locator('.rating-chart[data-form="partnership"]');
  const axis = await chart.locator('text.axis').allTextContents();
  assert.ok(axis.includes('1500') && axis.includes(rating), `the scale: ${axis}`);
  assert.equal(axis.length, 4, 'the highest and lowest ratings, the first and last dates');
  assert.match(await chart.locator('circle title').first().textContent(), new RegExp(`: ${rating} \\(`));
  assert.match(await ann.locator('.rating-figure figcaption').textContent(), /^Standard: /);
  assert.doesNotMatch(await ann.locator('.profile-stats').textContent(), /0\.0 h/);

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

test('an account takes its games as one EGN file, then deletes itself with its password', async () => {
  const eve = await env.player('Eve');
  await claim(eve, 'Eve');
  await eve.getByRole('link', { name: 'Lobby', exact: true }).click();
  await createTable(eve, { points: 5 });
  await playUntil([eve], () => gameOver(eve), { timeoutMs: 300000 });

  // The download holds the finished game, as EGN, once the history has it.
  await eve.getByRole('link', { name: 'Account', exact: true }).click();
  let bundle = null;
  for (let attempt = 0; attempt < 20 && !bundle?.games.length; attempt += 1) {
    if (attempt > 0) await eve.waitForTimeout(500);
    const [download] = await Promise.all([
      eve.waitForEvent('download'),
      eve.getByRole('button', { name: 'Download my games' }).click(),
    ]);
    bundle = JSON.parse(await readFile(await download.path(), 'utf8'));
  }
  assert.equal(bundle.fileType, 'Euchre Game Notation bundle');
  assert.equal(bundle.games.length, 1, JSON.stringify(bundle).slice(0, 300));
  assert.equal(bundle.games[0].fileType, 'Euchre Game Notation');

  // A wrong password is refused and changes nothing; the right one deletes.
  const leave = eve.locator('form[data-form="leave"]');
  await leave.getByLabel('Password').fill('not my password');
  await leave.getByLabel('I want my account deleted for good').check();
  await leave.getByRole('button', { name: 'Delete my account' }).click();
  await eve.locator('.notice', { hasText: /password/i }).waitFor();
  await eve.getByRole('heading', { name: 'Your account: Eve' }).waitFor();
  await leave.getByLabel('Password').fill(PASSWORD);
  await leave.getByRole('button', { name: 'Delete my account' }).click();
  await eve.getByText('Your account is deleted.').waitFor();

  // Gone: logging in again is refused.
  await eve.getByRole('link', { name: 'Account', exact: true }).click();
  await eve.getByLabel('Account name').fill('Eve');
  await eve.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await eve.getByRole('button', { name: 'Log in' }).click();
  await eve.locator('.notice', { hasText: /wrong|password/i }).waitFor();
  assert.deepEqual(eve.problems.filter((p) => !/40[13]/.test(p)), []);
});
