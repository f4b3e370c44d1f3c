// A progressive tournament in the browser: an account organises it from
// the lobby, four guests register on its page, the organiser starts it
// early, each player's page opens their table when a round seats them (a
// player in the lobby is brought there by the round's notice),
// the standings on the page follow the rounds, and round two gives every
// player another partner. The players leave their tables (a reload) so the
// bots play for them and the rounds end quickly.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { claim, withServerAndBrowser } from './support.mjs';

const env = withServerAndBrowser({
  botDelayMs: 0,
  env: {
    // Long enough for each page to open its table (it looks every 2.5 s)
    // before the bots play for the players, short for the rest.
    EUCHRE_TIMING__RECONNECT_GRACE_MS: '5000',
    // Basic bots: the pools' search bots think for a long while in a debug build.
    EUCHRE_QUICK_PLAY__BOT: 'basic',
  },
});

const NAME = 'Tuesday Progressive';

function tableOf(page) {
  return decodeURIComponent(new URL(page.url()).hash.match(/^#\/table\/([^?]+)/)[1]);
}

// Waits until the page has opened `table`, with the player in their seat.
async function tableOpened(page, table) {
  await page.waitForURL((url) => url.hash.startsWith(`#/table/${table}`));
  await page.locator('.felt .seat-bottom .seat-name', { hasText: 'You' }).waitFor();
  assert.equal(tableOf(page), table);
}

// The tables of a round, as the organiser's page lists them.
async function roundTables(page, round) {
  const rows = page.locator(`.round[data-round="${round}"] tr.round-table`);
  await rows.first().waitFor();
  return rows.evaluateAll((trs) => trs.map((tr) => tr.dataset.table));
}

// Back to the tournament's page as a fresh load: the table is left to a
// bot once the reconnect grace is over, and the page keeps watching.
async function leaveToTournament(page, url) {
  await page.goto(url);
  await page.reload();
  await page.locator('#connection[data-status="online"]').waitFor();
  await page.getByRole('heading', { name: NAME }).waitFor();
}

// Back to the lobby as a fresh load: no page of the tournament polls it
// there, so only the round's own notice can bring the player to the table.
async function leaveToLobby(page, url) {
  await page.goto(new URL('/', url).href);
  await page.reload();
  await page.locator('#connection[data-status="online"]').waitFor();
  await page.getByRole('region', { name: 'Tournaments' }).waitFor();
}

// Each player's partner in a round, by name, as the organiser's page shows it.
async function partners(page, round) {
  const sides = await page.locator(`.round[data-round="${round}"] td.side`).allTextContents();
  const partner = new Map();
  for (const side of sides) {
    const [a, b] = side.split(' & ');
    partner.set(a, b);
    partner.set(b, a);
  }
  return partner;
}

// The points in the standings on the page, by player name.
async function standings(page) {
  const rows = await page.locator('table.standings tbody tr').evaluateAll((trs) =>
    trs.map((tr) => [...tr.cells].map((cell) => cell.textContent)));
  return new Map(rows.map(([, name, points]) => [name, Number(points)]));
}

test('an account organises a progressive tournament; four guests play it from its page', async () => {
  const olga = await env.player('Olga');
  await claim(olga, 'Olga');
  await olga.getByRole('link', { name: 'Lobby', exact: true }).click();
  const section = olga.getByRole('region', { name: 'Tournaments' });
  await section.getByText('Organise a tournament').click();
  await section.getByLabel('Name').fill(NAME);
  await section.getByLabel('Format').selectOption('progressive');
  await section.getByLabel('Rounds').fill('4');
  await section.getByLabel(/Hands a round/).fill('4');
  await section.getByLabel(/Round clock/).fill('20');
  await section.getByLabel('Starts in (minutes)').fill('30');
  assert.equal(await section.getByLabel(/Rated \(a table/).isChecked(), false, 'casual unless asked');
  await section.getByRole('button', { name: 'Create tournament' }).click();
  await olga.getByRole('heading', { name: NAME }).waitFor();
  const url = olga.url();
  assert.match(new URL(url).hash, /^#\/tournament\//);
  assert.match(await olga.locator('.countdown').textContent(), /^in (29|30) min/);
  // What the form asked for, on the page.
  const about = await olga.locator('.tournament-about').textContent();
  assert.match(about, /A round\s*4 hands/);
  assert.match(about, /Round clock\s*20 min/);
  assert.match(about, /Games\s*Casual/);
  await olga.getByRole('button', { name: 'Start now' }).waitFor();
  assert.equal(await olga.getByRole('button', { name: 'Register' }).count(), 1, 'the organiser may play too');

  // Four guests find it in the lobby and register.
  const names = ['Ada', 'Ben', 'Cal', 'Dee'];
  const players = await Promise.all(names.map((name) => env.player(name)));
  for (const page of players) {
    await page.getByRole('link', { name: NAME }).click();
    await page.getByRole('heading', { name: NAME }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Start now' }).count(), 0, 'only the organiser starts it');
    await page.getByRole('button', { name: 'Register' }).click();
    await page.getByRole('button', { name: 'Withdraw' }).waitFor();
    await page.locator('.entry-list li', { hasText: '(you)' }).waitFor();
  }
  await olga.getByRole('heading', { name: 'Players (4 of 64)' }).waitFor();
  await olga.getByRole('button', { name: 'Start now' }).click();
  await olga.locator('.tournament-status[data-status="running"]').waitFor();

  // Round one: four players, one table; every player's page opens it.
  const [first, ...others] = await roundTables(olga, 1);
  assert.equal(others.length, 0, 'one table');
  assert.equal((await olga.locator(`tr[data-table="${first}"] td.side`).allTextContents()).join(' & ').split(' & ').sort().join(), names.join());
  await Promise.all(players.map((page) => tableOpened(page, first)));
  const before = await standings(olga);
  assert.deepEqual([...before.keys()].sort(), names, 'the standings list the players');
  assert.ok([...before.values()].every((points) => points === 0), 'nobody has points before a round ends');

  // They leave the bots to play (Dee for the lobby, the others for the
  // tournament's page); the standings follow as the round ends.
  const dee = players[3];
  await Promise.all(players.map((page) => (page === dee ? leaveToLobby(page, url) : leaveToTournament(page, url))));
  await olga.locator('.round[data-round="1"] td.result', { hasNotText: 'playing' }).waitFor({ timeout: 60000 });
  await olga.waitForFunction(() => [...document.querySelectorAll('table.standings tbody tr')]
    .some((tr) => Number(tr.cells[2].textContent) > 0));
  const afterOne = await standings(olga);
  // Rounds of four hands: the side ahead scored, at most four points a hand.
  const best = Math.max(...afterOne.values());
  assert.ok(best >= 1 && best <= 16, `the side ahead scored its round's points (${best})`);

  // Round two: each page opens the new table (Dee's lobby, on the round's
  // notice), and everyone has a new partner.
  const told = dee.getByRole('status').filter({ hasText: `Round 2 of ${NAME}: your table is ready.` });
  const [second] = await roundTables(olga, 2);
  assert.notEqual(second, first, 'a new table');
  await Promise.all(players.map((page) => tableOpened(page, second)));
  await told.waitFor();
  const [p1, p2] = [await partners(olga, 1), await partners(olga, 2)];
  for (const name of names) {
    assert.ok(p1.has(name) && p2.has(name), `${name} plays both rounds`);
    assert.notEqual(p2.get(name), p1.get(name), `${name}'s partner changes`);
  }
  await Promise.all(players.map((page) => leaveToTournament(page, url)));
  await olga.locator('.round[data-round="2"] td.result', { hasNotText: 'playing' }).waitFor({ timeout: 60000 });
  await olga.waitForFunction((total) => [...document.querySelectorAll('table.standings tbody tr')]
    .reduce((sum, tr) => sum + Number(tr.cells[2].textContent), 0) > total,
  [...afterOne.values()].reduce((a, b) => a + b, 0));
  // A finished table's replay is linked.
  await olga.locator('.round[data-round="1"]').getByRole('link', { name: 'Replay' }).waitFor();
  for (const page of [olga, ...players]) assert.deepEqual(page.problems, []);
});
