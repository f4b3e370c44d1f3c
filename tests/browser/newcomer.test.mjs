// A new player's rough edges: the New table form fits its box
// on a wide screen and on a phone; the Account and Leaderboard pages are
// dressed as the lobby is and fit too, and an empty leaderboard says how
// to get on it; "Change name" shows only where it can be used and says why
// it refuses a blank name; logging out leaves a fresh guest, not an error;
// the dealer's bidding prompt uses the same words as its button; the
// table's code and sealed deals wait behind an info button (and the replay
// still checks the deal); History's scores say which side is yours; the
// replay takes the dealer's discard out of his hand.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTable, playOneStep, playQuickGames, rematchStep, withServerAndBrowser } from './support.mjs';

const env = withServerAndBrowser();

// Every visible part of a panel (the New table form's by default) that
// sticks out of the box holding it (the panel, or a form or group inside
// it), measured in one look: a list of what sticks out, by tag, class and
// text, and by how much.
async function overflowingParts(page, panelSelector = '.create') {
  return page.locator(panelSelector).evaluate((panel) => {
    const out = [];
    const boxes = [panel, ...panel.querySelectorAll('fieldset, details, form, .board-filter, .board-empty, .account-actions')];
    for (const box of boxes) {
      const outer = box.getBoundingClientRect();
      for (const part of box.querySelectorAll('*')) {
        const inner = part.getBoundingClientRect();
        if (inner.width === 0 && inner.height === 0) continue;
        // Half a pixel for rounding.
        const left = outer.left - inner.left;
        const right = inner.right - outer.right;
        if (left > 0.5 || right > 0.5) {
          const name = `${part.tagName.toLowerCase()}.${[...part.classList].join('.')} "${part.textContent.trim().slice(0, 30)}"`;
          out.push(`${name} sticks out of ${box.tagName.toLowerCase()} by ${Math.max(left, right).toFixed(1)} px`);
        }
      }
    }
    return out;
  });
}

// The group titles that wrap onto a second line run into the group's
// border: the lines each legend's text takes.
async function legendLines(page) {
  return page.locator('.create legend').evaluateAll((legends) => legends.map((legend) => {
    const range = document.createRange();
    range.selectNodeContents(legend);
    const tops = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
    return { text: legend.textContent, lines: tops.size };
  }));
}

for (const [label, viewport] of [['a wide screen', { width: 1280, height: 860 }], ['a phone', { width: 375, height: 740 }]]) {
  test(`the New table form fits its box on ${label} (${viewport.width} px)`, async () => {
    const page = await env.player(`Wide${viewport.width}`, { viewport });
    await page.locator('.bot-seats select').first().waitFor();
    await page.getByText('More rules').click();
    // Every form: the bot seats are redrawn with the number of players.
    for (const preset of ['standard', 'cutthroat', 'two_handed']) {
      await page.getByLabel('Rules', { exact: true }).selectOption(preset);
      assert.deepEqual(await overflowingParts(page), [], `${preset}: nothing sticks out of its box`);
      for (const { text, lines } of await legendLines(page)) assert.equal(lines, 1, `the title "${text}" takes one line`);
      const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.scrollingElement.scrollWidth, innerWidth }));
      assert.ok(scrollWidth <= innerWidth, `${preset}: no sideways scrolling (${scrollWidth} px in ${innerWidth})`);
    }
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });
}

test('Change name shows only for a named guest, a name of only spaces is refused with a reason, and a log-out leaves a fresh unnamed guest', async () => {
  const context = await env.browser.newContext();
  const page = await context.newPage();
  page.problems = [];
  page.on('pageerror', (error) => page.problems.push(`page error: ${error.message}`));
  await page.goto(env.server.url);
  await page.getByLabel('Display name').waitFor();
  const changeName = page.getByRole('button', { name: 'Change name' });
  assert.equal(await changeName.isVisible(), false, 'no name yet: nothing to change');

  // Only spaces: the form says why it does not go on.
  await page.getByLabel('Display name').fill('   ');
  await page.getByRole('button', { name: 'Continue' }).click();
  const blank = page.getByRole('alert').filter({ hasText: 'A name needs more than spaces' });
  await blank.waitFor();
  assert.equal(await page.getByLabel('Display name').isVisible(), true, 'still asked for a name');
  assert.equal(await changeName.isVisible(), false);
  await blank.getByRole('button', { name: 'Dismiss' }).click();

  await page.getByLabel('Display name').fill('Kim');
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.locator('#connection[data-status="online"]').waitFor();
  await changeName.waitFor();

  // Change name to only spaces: refused, with the reason, and Kim stays Kim.
  page.once('dialog', (dialog) => dialog.accept('   '));
  await changeName.click();
  await blank.waitFor();
  assert.equal(await page.locator('#player-name').textContent(), 'Kim');

  // Claimed: the name is the account's, so Change name goes away.
  await page.getByRole('link', { name: 'Account', exact: true }).click();
  await page.getByLabel('Password (8 characters or more)').fill('correct horse');
  await page.getByRole('button', { name: 'Claim name' }).click();
  await page.getByRole('heading', { name: 'Your account: Kim' }).waitFor();
  assert.equal(await changeName.isVisible(), false, 'an account cannot change its name here');
  await page.reload();
  await page.locator('#connection[data-status="online"]').waitFor();
  assert.equal(await changeName.isVisible(), false, 'nor after a reload');
  await page.getByRole('link', { name: 'Account', exact: true }).click();
  await page.getByRole('heading', { name: 'Your account: Kim' }).waitFor();
  // Logged out: a fresh guest with no name yet (the account's name is not
  // a guest's), asked for one, with no error on the way.
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.getByRole('status').filter({ hasText: 'Logged out' }).waitFor();
  await page.getByLabel('Display name').waitFor();
  assert.equal(await page.getByLabel('Display name').inputValue(), '', 'the account name is not offered to the guest');
  assert.equal(await page.locator('#player-name').textContent(), '');
  assert.equal(await changeName.isVisible(), false, 'no name after logging out');
  assert.deepEqual(JSON.parse(await page.evaluate(() => localStorage.getItem('euchre.identity'))), {}, 'the session token is forgotten');
  // Logged out is no fault: no yellow "Not connected".
  assert.equal(await page.locator('#connection').isVisible(), false, 'no connection badge while logged out');
  // The account's owner logs in again from there, with no guest name first:
  // a wrong password first, said as a sentence, and gone once the right one works.
  await page.getByRole('link', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Log in' }).waitFor();
  await page.getByLabel('Account name').fill('Kim');
  await page.getByLabel('Password', { exact: true }).fill('wrong horse');
  await page.getByRole('button', { name: 'Log in' }).click();
  const wrong = await page.getByRole('alert').first().textContent();
  assert.match(wrong, /^[A-Z][^×]*\.×?$/, `a sentence: ${wrong}`);
  await page.getByLabel('Password', { exact: true }).fill('correct horse');
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Your account: Kim' }).waitFor();
  await page.locator('#connection[data-status="online"]').waitFor();
  assert.equal(await page.getByRole('alert').count(), 0, 'the wrong password is not still said beside "Logged in as Kim."');
  assert.equal(await page.locator('#player-name').textContent(), 'Kim');
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.getByLabel('Display name').waitFor();
  // The new guest plays under a name of its own, and nothing went wrong on the way.
  await page.getByLabel('Display name').fill('Kim2');
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.locator('#connection[data-status="online"]').waitFor();
  assert.equal(await page.locator('#player-name').textContent(), 'Kim2');
  await page.getByRole('link', { name: 'Account', exact: true }).click();
  await page.getByRole('heading', { name: 'Keep your name' }).waitFor();
  assert.equal(await page.getByRole('alert').count(), 0, `no error: ${await page.locator('#notices').textContent()}`);
  assert.deepEqual(page.problems, []);
  await context.close();
});

test("the dealer's bidding prompt says what the button does: pick it up", async () => {
  // Two-handed: the player deals every other hand. The player passes
  // whenever it may, so the bot is left to bid and hands go by quickly.
  const page = await env.player('Dee');
  await createTable(page, { preset: 'two_handed_plain', points: 10 });
  const seen = { dealer: false, other: false };
  const deadline = Date.now() + 90000;
  while (!(seen.dealer && seen.other) && Date.now() < deadline) {
    // Read the button and the prompt in one look: the turn may move on between two.
    const now = await page.evaluate(() => ({
      button: document.querySelector('.bids button[data-action="order_up"]')?.textContent ?? null,
      line: document.querySelector('.status-line.your-turn')?.textContent ?? '',
    }));
    if (now.button?.startsWith('Pick up')) {
      assert.match(now.line, /^Your turn: pick it up or pass\./, 'the dealer picks up');
      seen.dealer = true;
    } else if (now.button?.startsWith('Order up')) {
      assert.match(now.line, /^Your turn: order it up or pass\./, 'the others order it up');
      seen.other = true;
    }
    if (!await playOneStep(page, { pass: true }) && !await rematchStep(page)) await page.waitForTimeout(25);
  }
  assert.deepEqual(seen, { dealer: true, other: true }, 'both prompts were seen');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

// How an input looks: its border, corners, padding and font.
function lookOf(locator) {
  return locator.evaluate((element) => {
    const style = getComputedStyle(element);
    return {
      border: `${style.borderTopWidth} ${style.borderTopStyle} ${style.borderTopColor}`,
      radius: style.borderTopLeftRadius,
      padding: style.paddingTop,
      font: `${style.fontSize} ${style.fontFamily}`,
    };
  });
}

// The page fits: nothing sticks out of its boxes, no sideways scrolling.
async function assertFits(page, panel, what) {
  assert.deepEqual(await overflowingParts(page, panel), [], `${what}: nothing sticks out of its box`);
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.scrollingElement.scrollWidth, innerWidth }));
  assert.ok(scrollWidth <= innerWidth, `${what}: no sideways scrolling (${scrollWidth} px in ${innerWidth})`);
}

for (const [label, viewport] of [['a wide screen', { width: 1280, height: 860 }], ['a phone', { width: 375, height: 740 }]]) {
  test(`the Account and Leaderboard pages are dressed as the lobby is and fit ${label} (${viewport.width} px)`, async () => {
    const name = `Look${viewport.width}`;
    const page = await env.player(name, { viewport });
    // The lobby's own inputs and its primary colour, to hold the others to.
    const lobbyInput = await lookOf(page.getByLabel('Rules', { exact: true }));
    const primary = await page.getByRole('button', { name: 'Create table' }).evaluate((b) => getComputedStyle(b).backgroundColor);
    const assertDressed = async (panel, what) => {
      for (const input of await page.locator(`${panel} input:not([type="checkbox"]), ${panel} select`).all()) {
        assert.deepEqual(await lookOf(input), lobbyInput, `${what}: ${await input.getAttribute('id')} looks like the lobby's inputs`);
      }
      for (const link of await page.locator(`${panel} a`).all()) {
        const color = await link.evaluate((a) => getComputedStyle(a).color);
        assert.equal(color, primary, `${what}: the link "${await link.textContent()}" is in the lobby's colour, not the browser's`);
      }
      await assertFits(page, panel, what);
    };

    await page.getByRole('link', { name: 'Account', exact: true }).click();
    await page.getByRole('heading', { name: 'Keep your name' }).waitFor();
    await assertDressed('.account', 'a guest\'s Account page');
    await page.getByLabel('Password (8 characters or more)').fill('correct horse');
    await page.getByRole('button', { name: 'Claim name' }).click();
    await page.getByRole('heading', { name: `Your account: ${name}` }).waitFor();
    assert.ok(await page.locator('.account a').count() > 0, 'the account page has its profile link');
    await assertDressed('.account', 'an account\'s page');

    // The board, empty in every form here (no rated game was played): a
    // plain message saying how to get on it, not a list numbered from 1.
    await page.getByRole('link', { name: 'Leaderboard', exact: true }).click();
    const empty = page.locator('.board-empty');
    await empty.waitFor();
    assert.equal(await page.locator('.leaderboard li').count(), 0, 'no list item for an empty board');
    const text = await empty.textContent();
    assert.match(text, /^Nobody is rated in “Standard” yet\./);
    assert.match(text, /an account sits in every seat \(no bots, no guests\)/, 'which games count');
    assert.match(text, /“Rated” ticked/, 'the table must be set up rated');
    assert.match(text, /kept their name with a password/, 'only accounts are listed');
    await assertDressed('.board', 'the Leaderboard');
    await page.getByLabel('Game', { exact: true }).selectOption('cutthroat');
    await empty.filter({ hasText: 'Nobody is rated in “Cutthroat” yet.' }).waitFor();
    // A full board, long names and all, fits as well: its places as the
    // API would answer them (the layout is what is tested here; the
    // ratings' API has its own tests).
    const places = Array.from({ length: 3 }, (_, i) => ({
      rank: i + 1, rating: 1720 - i * 35, games: 12 - i,
      player: { id: `p${i}`, name: i === 0 ? 'W'.repeat(32) : `Player ${i + 1}` },
    }));
    await page.route('**/api/leaderboard?*', (route) => route.fulfill({ json: { form: 'two_handed', places, next_offset: null } }));
    await page.getByLabel('Game', { exact: true }).selectOption('two_handed');
    await page.locator('.board-row').nth(2).waitFor();
    assert.equal(await empty.isVisible(), false, 'no empty message over a full board');
    assert.deepEqual(await page.locator('.board-rank').allTextContents(), ['1.', '2.', '3.']);
    await assertDressed('.board', 'a full Leaderboard');
    await page.unroute('**/api/leaderboard?*');
    await page.getByLabel('Game', { exact: true }).selectOption('cutthroat');
    await empty.getByRole('link', { name: 'claim yours under Account' }).click();
    await page.getByRole('heading', { name: `Your account: ${name}` }).waitFor();
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });
}

test('the table keeps its code and sealed deals behind an info button, and the replay still checks the deal', async () => {
  const page = await env.player('Vee');
  await createTable(page);
  await page.locator('.hand .card').first().waitFor();
  const code = decodeURIComponent(page.url().match(/#\/table\/([^/?]+)/)[1]);
  const details = page.getByRole('button', { name: 'Table details' });
  const panel = page.locator('#table-details');
  assert.equal(await details.getAttribute('aria-expanded'), 'false');
  assert.equal(await panel.isVisible(), false, 'the details start closed');
  assert.doesNotMatch(await page.locator('.table-bar').textContent(), new RegExp(`${code.slice(0, 8)}|[Ss]ealed`), 'no code or seal in the bar');

  // By the keyboard: Enter opens the details, Escape closes them.
  await details.focus();
  await page.keyboard.press('Enter');
  await panel.waitFor();
  assert.equal(await details.getAttribute('aria-expanded'), 'true');
  assert.match(await panel.textContent(), new RegExp(`Table code ${code}`));
  await panel.locator('.deal-seal').filter({ hasText: /^Deal sealed [0-9a-f]{8}…/ }).waitFor();
  await page.keyboard.press('Escape');
  await panel.waitFor({ state: 'hidden' });
  assert.equal(await details.getAttribute('aria-expanded'), 'false');
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Table details', 'the focus stays on the button');

  // Open, they stay open while the game goes on.
  await details.click();
  const seq = await page.locator('.table-view').getAttribute('data-seq');
  while (!await playOneStep(page)) await page.waitForTimeout(25);
  await page.waitForFunction((before) => document.querySelector('.table-view').dataset.seq !== before, seq);
  assert.equal(await panel.isVisible(), true, 'still open after a redraw');
  assert.doesNotMatch(await page.locator('.play-log').textContent(), /sealed|commitment/i, 'no commitment lines among the plays');

  // In the replay the deal's check is in plain sight: that is where it is verified.
  page.once('dialog', (dialog) => dialog.accept());
  await page.getByRole('button', { name: 'Leave table' }).click();
  await page.locator('.create').waitFor();
  assert.equal(await playQuickGames(page, 1), 1);
  const match = await finishedMatch(page, () => true);
  await page.goto(`${page.url().split('#')[0]}#/history/${encodeURIComponent(match.id)}`);
  const check = page.locator('.replay-side .deal-check');
  await check.waitFor();
  assert.match(await check.textContent(), /Deal verified/);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("History's scores say which side is the player's, with partners and without", async () => {
  const page = await env.player('Sid');
  const forms = [
    ['standard', 4, /^Us (\d+)–(\d+) Them$/],
    ['cutthroat', 3, /^You (\d+), (?:Left|Right) bot (\d+), (?:Left|Right) bot (\d+)$/],
    ['two_handed_plain', 2, /^You (\d+), Opponent bot (\d+)$/],
  ];
  for (const [preset, players] of forms) assert.equal(await playQuickGames(page, 1, { preset, players }), 1, preset);
  await finishedMatch(page, (match) => match.rules.players === 2); // the last one played is stored
  await page.getByRole('link', { name: 'History', exact: true }).click();
  const rows = page.locator('.match-row');
  await rows.nth(2).waitFor();
  // Newest first: the two-player game, then cutthroat, then the partnership.
  for (const [i, [preset, , pattern]] of [...forms].reverse().entries()) {
    const row = rows.nth(i);
    const score = await row.locator('.match-score').textContent();
    const [, mine, ...others] = score.match(pattern) ?? assert.fail(`${preset}: "${score}" names the sides`);
    // Games to 1 point: the winner is the one side with a point or more.
    const won = (await row.locator('.match-result').textContent()) === 'Won';
    assert.equal(won, others.every((other) => Number(mine) > Number(other)), `${preset}: "${score}" agrees with the result`);
  }
  assert.match(await rows.nth(2).locator('.match-score').getAttribute('aria-label'), /^Score: Us \d+, Them \d+$/);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("the replay takes the dealer's discard out of his hand, and shows the up-card he picked up", async () => {
  const page = await env.player('Dex');
  const dealerDiscard = (hand) => hand.actions.find((a) => a.action === 'discard' && a.seat === hand.dealer && a.card);
  // A bot going alone for its dealer partner leaves the up-card down: rare,
  // so a few games are enough to find a hand where the dealer picks up.
  let found = null;
  for (let game = 0; game < 4 && !found; game += 1) {
    assert.equal(await playQuickGames(page, 1), 1);
    const match = await finishedMatch(page, () => true).catch(() => null);
    const index = match?.hands.findIndex(dealerDiscard) ?? -1;
    if (index >= 0) found = { match, index };
  }
  assert.ok(found, 'a hand where the dealer picked up and discarded');
  const { match, index } = found;
  const hand = match.hands[index];
  const discard = dealerDiscard(hand).card;
  await page.goto(`${env.server.url}/#/history/${encodeURIComponent(match.id)}?hand=${index + 1}&step=1`);
  const dealer = page.locator(`.replay .seat[data-seat="${hand.dealer}"]`);
  const cards = () => dealer.locator('.replay-hand .card').evaluateAll((all) => all.map((card) => card.dataset.card));
  // As dealt: the discard is in his hand, the up-card is not.
  await page.locator(`.replay[data-hand="${index}"][data-step="0"]`).waitFor();
  // (Unless he discards the up-card itself, which was never his as dealt.)
  assert.equal((await cards()).includes(discard), discard !== hand.up_card, 'dealt: the card he will discard is his');
  assert.equal(await dealer.locator('.replay-discard').count(), 0);
  // From the bidding on (it ends with his discard): out of the hand, listed apart.
  await page.getByRole('button', { name: 'Next ▶' }).click();
  await page.locator('.replay[data-step="1"]').waitFor();
  const held = await cards();
  assert.ok(!held.includes(discard), `the discard ${discard} left his hand: ${held}`);
  assert.equal(held.length, 5, 'five cards to play');
  assert.match(await dealer.locator('.replay-discard').textContent(), /^Discarded: /);
  assert.equal(await page.locator('.up-card .caption').textContent(), 'Up-card, picked up by the dealer');
  if (discard !== hand.up_card) {
    const up = dealer.locator(`.card[data-card="${hand.up_card}"]`);
    assert.match(await up.getAttribute('aria-label'), /, picked up$/, 'the up-card is in his hand, marked');
  }
  // And it stays out through the tricks (a hand conceded at once has none).
  if (hand.tricks.length > 0) {
    await page.getByRole('button', { name: 'Next ▶' }).click();
    await page.locator('.replay[data-step="2"]').waitFor();
    assert.ok(!(await cards()).includes(discard));
  }
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

// The newest of this page's player's stored matches that is finished and
// `fits` (the full record, with its hands), once it is stored: a match is
// stored a moment after it ends.
async function finishedMatch(page, fits) {
  const { id } = JSON.parse(await page.evaluate(() => localStorage.getItem('euchre.identity')));
  const get = async (path) => (await page.request.get(`${env.server.url}${path}`)).json();
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const list = await get(`/api/matches?player=${encodeURIComponent(id)}&limit=20`);
    for (const summary of list.matches.filter((m) => m.finished)) {
      const match = await get(`/api/matches/${encodeURIComponent(summary.id)}`);
      if (fits(match)) return match;
    }
    await page.waitForTimeout(100);
  }
  throw new Error('no finished match of the kind looked for was stored');
}
