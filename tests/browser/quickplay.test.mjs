// Quick play from the lobby: four strangers pressing the same form meet at
// one table; two who ask together as partners sit opposite; a cancelled
// request is never seated; a casual request with bots allowed starts with
// bots after its wait; a request waiting through a restart is made again.
// The server forms tables in waves, here every 200 ms.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPlayer, startServer, withServerAndBrowser } from './support.mjs';

const waves = { EUCHRE_QUICK_PLAY__WAVE_MS: '200' };
const env = withServerAndBrowser({ env: waves });

// The panel's options, then the form's button. Casual by default: these
// players are guests, and rated play needs an account.
async function quickPlay(page, preset, { casual = true, botsAfter = null, partner = false, code = null } = {}) {
  await page.locator('.quick-play').waitFor();
  if (casual) await page.getByRole('radio', { name: 'Casual' }).check();
  if (botsAfter) await page.getByLabel('Bots fill the seats').selectOption(String(botsAfter));
  if (partner) await page.getByLabel(/With a partner/).check();
  if (code) await page.getByLabel('Your partner’s team code').fill(code);
  await page.locator(`.quick-form[data-preset="${preset}"]`).click();
  // Searching, or already seated: the request that completes a table is
  // matched at once.
  await page.locator('.quick-searching').or(page.locator('.felt')).first().waitFor();
}

// The table the page sits at, once quick play has opened it: its id and
// the names round it from the player's own seat (bottom, left, top, right).
async function seatedAt(page) {
  await page.locator('.felt .seat-bottom .seat-name', { hasText: 'You' }).waitFor();
  const table = decodeURIComponent(new URL(page.url()).hash.match(/^#\/table\/([^?]+)/)[1]);
  const names = {};
  for (const where of ['bottom', 'left', 'top', 'right']) {
    const seat = page.locator(`.felt .seat-${where} .seat-name`);
    if (await seat.count() > 0) names[where] = await seat.textContent();
  }
  return { table, names };
}

test('four strangers pressing Standard meet at one table', async () => {
  const pages = await Promise.all(['Ann', 'Bob', 'Cat', 'Dan'].map((name) => env.player(name)));
  for (const page of pages) await quickPlay(page, 'standard');
  const seats = await Promise.all(pages.map(seatedAt));
  assert.equal(new Set(seats.map((s) => s.table)).size, 1, 'one table');
  // Everyone sees the three others by name: four people, no bot.
  for (const [i, { names }] of seats.entries()) {
    const others = ['Ann', 'Bob', 'Cat', 'Dan'].filter((_, j) => j !== i).sort();
    assert.deepEqual([names.left, names.top, names.right].sort(), others);
  }
  for (const page of pages) assert.deepEqual(page.problems, []);
});

test('two who ask as partners sit opposite', async () => {
  const [eve, fay, gus, hal] = await Promise.all(['Eve', 'Fay', 'Gus', 'Hal'].map((name) => env.player(name)));
  // Eve asks with a partner: she gets a code to give, and waits for him.
  await quickPlay(eve, 'standard', { partner: true });
  const code = eve.locator('.team-code');
  await code.waitFor();
  const team = await code.getAttribute('data-team');
  assert.ok(team, 'a team code shown');
  // Two strangers first: they are not matched with a team still missing a partner.
  await quickPlay(gus, 'standard');
  await quickPlay(hal, 'standard');
  await quickPlay(fay, 'standard', { partner: true, code: team });
  await eve.locator('.quick-state', { hasText: 'With your partner Fay' }).or(eve.locator('.felt')).first().waitFor();
  const [atEve, atFay] = await Promise.all([seatedAt(eve), seatedAt(fay)]);
  await Promise.all([seatedAt(gus), seatedAt(hal)]);
  assert.equal(atEve.table, atFay.table);
  assert.equal(atEve.names.top, 'Fay', 'Eve’s partner sits opposite her');
  assert.equal(atFay.names.top, 'Eve', 'and she opposite him');
  assert.deepEqual([atEve.names.left, atEve.names.right].sort(), ['Gus', 'Hal']);
  for (const page of [eve, fay, gus, hal]) assert.deepEqual(page.problems, []);
});

test('a cancelled request is not seated', async () => {
  const [ida, jon, kim] = await Promise.all(['Ida', 'Jon', 'Kim'].map((name) => env.player(name)));
  // Ida asks first: had her request stayed, she would be matched first.
  await quickPlay(ida, 'two_handed_plain');
  await ida.getByRole('button', { name: 'Cancel' }).click();
  await ida.locator('.quick-forms').waitFor();
  assert.equal(await ida.locator('.quick-searching').isHidden(), true);
  await quickPlay(jon, 'two_handed_plain');
  await quickPlay(kim, 'two_handed_plain');
  const [atJon, atKim] = await Promise.all([seatedAt(jon), seatedAt(kim)]);
  assert.equal(atJon.table, atKim.table);
  assert.equal(atJon.names.top, 'Kim');
  // Ida is still in the lobby, at no table, free to ask again.
  assert.equal(await ida.locator('.felt').count(), 0);
  assert.equal(await ida.locator('.my-tables').isHidden(), true);
  for (const page of [ida, jon, kim]) assert.deepEqual(page.problems, []);
});

test('a casual request with bots allowed starts with bots after its wait', async () => {
  const leo = await env.player('Leo');
  const asked = Date.now();
  await quickPlay(leo, 'three_handed', { casual: true, botsAfter: 5 });
  assert.match(await leo.locator('.quick-progress').textContent(), /bots after 5 s/);
  const { names } = await seatedAt(leo);
  const waitedMs = Date.now() - asked;
  assert.ok(waitedMs >= 4500, `seated after ${waitedMs} ms, not before the wait`);
  assert.deepEqual([names.left, names.right], ['Left bot', 'Right bot']);
  assert.deepEqual(leo.problems, []);
});

test('the rated choice offers no bots, and a partner only for partnerships', async () => {
  const max = await env.player('Max');
  await max.locator('.quick-play').waitFor();
  // A guest starts on Casual: rated play needs an account.
  assert.equal(await max.getByRole('radio', { name: 'Casual' }).isChecked(), true, 'casual for a guest');
  assert.equal(await max.getByLabel('Bots fill the seats').isEnabled(), true);
  await max.getByRole('radio', { name: 'Rated' }).check();
  assert.equal(await max.getByLabel('Bots fill the seats').isDisabled(), true, 'rated: people only');
  await max.getByRole('radio', { name: 'Casual' }).check();
  assert.equal(await max.getByLabel('Bots fill the seats').isEnabled(), true);
  // A guest asking for rated play is told it needs an account.
  await max.getByRole('radio', { name: 'Rated' }).check();
  await max.locator('.quick-form[data-preset="standard"]').click();
  await max.getByText('rated play needs an account').waitFor();
  await max.getByRole('radio', { name: 'Casual' }).check();
  await max.getByLabel(/With a partner/).check();
  assert.equal(await max.locator('.quick-form[data-preset="cutthroat"]').isDisabled(), true);
  assert.equal(await max.locator('.quick-form[data-preset="standard"]').isEnabled(), true);
  // The panel fits a phone: nothing wider than the page.
  await max.setViewportSize({ width: 375, height: 800 });
  const overflow = await max.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.equal(overflow, 0, 'no sideways scroll at 375 px');
  await max.setViewportSize({ width: 1280, height: 860 });
  const wide = await max.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.equal(wide, 0, 'no sideways scroll at 1280 px');
  assert.deepEqual(max.problems, []);
});

test('a reload while seated at a pool table goes back to the table', async () => {
  // A pool's table is private and its invite is given to nobody: the page
  // comes back by its link alone, as a seated player may watch it.
  const [nan, oli] = await Promise.all(['Nan', 'Oli'].map((name) => env.player(name)));
  await quickPlay(nan, 'two_handed_plain');
  await quickPlay(oli, 'two_handed_plain');
  const before = await seatedAt(nan);
  assert.equal(before.names.top, 'Oli');
  assert.doesNotMatch(nan.url(), /invite=/, 'no invite in the link');
  await nan.reload();
  const after = await seatedAt(nan);
  assert.deepEqual(after, before, 'the same table, the same seats');
  // Still a player there, not a spectator: her cards are hers to play.
  await nan.locator('.hand-area .in-hand').first().waitFor();
  assert.equal(await nan.locator('.spectating').count(), 0, 'not a spectator');
  assert.equal(await nan.locator('.closed-table').count(), 0);
  for (const page of [nan, oli]) assert.deepEqual(page.problems, []);
});

test('a request waiting through a restart, graceful or a crash, is made again and seated', async () => {
  // A server of its own, restarted on the same address and data. The
  // server forgets waiting requests; the page asks again once it is back.
  let own = await startServer({ env: waves });
  try {
    const pam = await openPlayer(env.browser, own.url, 'Pam');
    await quickPlay(pam, 'two_handed_plain');
    await pam.locator('.quick-searching').waitFor();
    for (const signal of ['SIGTERM', 'SIGKILL']) {
      await own.stop({ keep: true, signal });
      await pam.locator('#connection[data-status="offline"]').waitFor();
      own = await startServer({ data: own.data, bind: own.address, env: waves });
      await pam.locator('#connection[data-status="online"]').waitFor({ timeout: 20000 });
      // The page asks again once it has said hello: a moment after "online".
      const searching = await pam.locator('.quick-searching').waitFor({ timeout: 10000 }).then(() => true, () => false);
      const said = searching ? '' : await pam.locator('#notices').innerText().catch(() => '');
      assert.equal(searching, true, `still searching after ${signal} (the page said: ${said}; problems: ${pam.problems.join(' | ')})`);
    }
    const quin = await openPlayer(env.browser, own.url, 'Quin');
    await quickPlay(quin, 'two_handed_plain');
    const [atPam, atQuin] = await Promise.all([seatedAt(pam), seatedAt(quin)]);
    assert.equal(atPam.table, atQuin.table, 'Pam, who asked before both restarts, meets Quin');
    // While the server was down the browser said so: nothing else went wrong.
    const down = /WebSocket connection to .* failed/;
    assert.deepEqual(pam.problems.filter((problem) => !down.test(problem)), []);
    assert.deepEqual(quin.problems, []);
    await pam.context().close();
    await quin.context().close();
  } finally {
    await own.stop();
  }
});
