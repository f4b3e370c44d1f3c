// A player mutes, blocks and reports another from the table: the menu on
// the player's name, the muted player's chat kept from them (and only
// them), the report form, a sit refused across the block, and the account
// page's lists with their Undo buttons.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTable, takeSeat, withServerAndBrowser } from './support.mjs';

const env = withServerAndBrowser();

async function say(page, text) {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
}

// Opens the menu on `name` at the table and clicks `item`.
async function fromMenu(page, name, item) {
  await page.locator('.player-menu summary.seat-name', { hasText: name }).click();
  await page.locator('.player-menu[open]').getByRole('button', { name: item, exact: true }).click();
}

test('a player mutes, blocks and reports another from the table', async () => {
  const ann = await env.player('Ann');
  const link = await createTable(ann, { bots: [] });
  const bob = await env.player('Bob');
  await takeSeat(bob, link, 1);
  const cy = await env.player('Cy');
  await takeSeat(cy, link, 2);

  await say(bob, 'hello from Bob');
  await ann.locator('.chat-log li', { hasText: 'hello from Bob' }).waitFor();

  // Muted: Bob's next line reaches Cy, not Ann. Cy's line after it reaches
  // Ann, so by then Bob's would have too.
  await fromMenu(ann, 'Bob', 'Mute');
  await ann.locator('#notices', { hasText: 'chat is hidden from you' }).waitFor();
  await say(bob, 'you cannot hear this');
  await cy.locator('.chat-log li', { hasText: 'you cannot hear this' }).waitFor();
  await say(cy, 'Cy was here');
  await ann.locator('.chat-log li', { hasText: 'Cy was here' }).waitFor();
  assert.equal(await ann.locator('.chat-log li', { hasText: 'you cannot hear this' }).count(), 0, 'a muted line reached Ann');

  // Reported, with a reason and a few words; the server adds the rest.
  await fromMenu(ann, 'Bob', 'Report…');
  const dialog = ann.getByRole('dialog', { name: 'Report Bob' });
  await dialog.getByLabel('Why').selectOption('abusive_chat');
  await dialog.getByLabel(/What happened/).fill('rude in chat all evening');
  await dialog.getByRole('button', { name: 'Send report' }).click();
  await ann.locator('#notices', { hasText: 'your report of Bob went to the moderators' }).waitFor();
  await dialog.waitFor({ state: 'detached' });
  // Once per player and game: the second says so in the form.
  await fromMenu(ann, 'Bob', 'Report…');
  await dialog.getByRole('button', { name: 'Send report' }).click();
  await dialog.getByRole('alert').filter({ hasText: 'reported this player' }).waitFor();
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  // Blocked: at Ann's next table Bob's "Sit here" is refused, in words
  // that do not say who blocked whom.
  await fromMenu(ann, 'Bob', 'Block');
  await ann.locator('#notices', { hasText: 'You blocked Bob' }).waitFor();
  await ann.goto(new URL('#/', link).href);
  const second = await createTable(ann, { bots: [] });
  await bob.goto(second);
  await bob.locator('[data-sit="1"]').click();
  const refusal = bob.getByRole('alert').filter({ hasText: 'a block between you and a player at this table' });
  await refusal.waitFor();
  assert.doesNotMatch(await refusal.textContent(), /Ann/);

  // The account page lists both, each undoable.
  await ann.getByRole('link', { name: 'Account' }).click();
  const muted = ann.locator('[data-list="muted"]');
  const blocked = ann.locator('[data-list="blocked"]');
  await muted.locator('li', { hasText: 'Bob' }).waitFor();
  await blocked.locator('li', { hasText: 'Bob' }).waitFor();
  await muted.getByRole('button', { name: 'Undo' }).click();
  await ann.locator('[data-list="muted"]', { hasText: 'Nobody muted.' }).waitFor();
  await ann.locator('[data-list="blocked"] li', { hasText: 'Bob' }).waitFor();
  await ann.locator('[data-list="blocked"]').getByRole('button', { name: 'Undo' }).click();
  await ann.locator('[data-list="blocked"]', { hasText: 'Nobody blocked.' }).waitFor();

  // Unblocked, Bob sits.
  await bob.locator('[data-sit="1"]').click();
  await bob.locator('.seat-bottom .seat-name', { hasText: 'You' }).waitFor();
  const problems = [...ann.problems, ...bob.problems, ...cy.problems];
  assert.deepEqual(problems, []);
});
