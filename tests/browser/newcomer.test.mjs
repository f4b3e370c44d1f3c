// A new player's rough edges (issue #28): the New table form fits its box
// on a wide screen and on a phone, "Change name" shows only where it can be
// used and says why it refuses a blank name, and the dealer's bidding
// prompt uses the same words as its button.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTable, playOneStep, rematchStep, withServerAndBrowser } from './support.mjs';

const env = withServerAndBrowser();

// Every visible part of the New table form that sticks out of the box
// holding it (the form's panel, or the group inside it), measured in one
// look: a list of what sticks out, by tag, class and text, and by how much.
async function overflowingParts(page) {
  return page.locator('.create').evaluate((panel) => {
    const out = [];
    const boxes = [panel, ...panel.querySelectorAll('fieldset, details')];
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

test('Change name shows only for a named guest, and a name of only spaces is refused with a reason', async () => {
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
  // Logged out, the guest cannot keep the account's name: asked for
  // another, there is again no name to change.
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.getByText('That name belongs to an account').waitFor();
  await page.getByLabel('Display name').waitFor();
  assert.equal(await changeName.isVisible(), false, 'no name after logging out');
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
