// A new hand in a real browser: the felt shows the deal and its up-card
// before the player is asked to bid on it. The last trick of a hand is held
// on the felt a moment for everyone to see; a bid offered meanwhile would
// refer to a card that is not on screen, so the bid ends the hold.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { playOneStep, rematchStep, withServerAndBrowser } from './support.mjs';

// Bots that act at once: the next hand's bidding reaches the player while
// the last trick would still be held.
const env = withServerAndBrowser({ botDelayMs: 0 });

test('every bid on an up-card is offered with the up-card on the felt', async () => {
  const ann = await env.player('Ann');
  await ann.getByRole('button', { name: 'Play now with three bots' }).click();
  await ann.locator('.hand .card').first().waitFor();
  // Each time the page is redrawn with an "Order up"/"Pick up" button,
  // note whether the up-card is on the felt then.
  await ann.evaluate(() => {
    window.bidViews = [];
    window.waitingForYou = 0;
    const look = () => {
      if (/Waiting for You/.test(document.querySelector('.controls')?.textContent ?? '')) window.waitingForYou += 1;
      const bid = document.querySelector('.controls [data-action="order_up"]');
      if (!bid) return;
      const hand = document.querySelector('.hand')?.textContent ?? '';
      const last = window.bidViews.at(-1);
      if (last?.hand === hand) return;
      window.bidViews.push({ hand, upCard: document.querySelector('.felt .up-card') !== null });
    };
    new MutationObserver(look).observe(document.body, { childList: true, subtree: true });
    look();
  });
  // Pass every bid (hands go on), until the player has been asked about
  // the up-card in five hands after the first.
  const asked = () => ann.evaluate(() => window.bidViews.length);
  const deadline = Date.now() + 120000;
  while (await asked() < 6) {
    assert.ok(Date.now() < deadline, `asked to bid in ${await asked()} hands in two minutes`);
    if (!await playOneStep(ann, { pass: true }) && !await rematchStep(ann)) await ann.waitForTimeout(25);
  }
  const views = await ann.evaluate(() => window.bidViews);
  const hidden = views.filter((view) => !view.upCard);
  assert.deepEqual(hidden, [], `asked to bid with no up-card on the felt in ${hidden.length} of ${views.length} hands`);
  // Between the player's turn and its prompt the status line never says
  // "Waiting for You".
  assert.equal(await ann.evaluate(() => window.waitingForYou), 0);
  assert.deepEqual(ann.problems, []);
});

// The first screen holds the felt, the bids and the whole hand while the
// player bids, on a laptop and on a phone: in round one (pass or order up)
// and in round two (pass or one of three suits, a row more of buttons).
for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
  test(`the bids and the whole hand fit the first screen at ${viewport.width}x${viewport.height}`, async () => {
    const page = await env.player('Bea', { viewport });
    await page.getByRole('button', { name: 'Play now with three bots' }).click();
    // Where the lowest card or bid ends, and where each part of the page
    // stands, to tell what pushed the hand down if it did.
    const fits = async (round) => {
      const bottoms = await page.evaluate(() => {
        const box = (selector) => {
          const found = document.querySelector(selector)?.getBoundingClientRect();
          return found ? `${selector} ${Math.round(found.top)}–${Math.round(found.bottom)}` : `${selector} none`;
        };
        return {
          screen: innerHeight,
          lowest: Math.max(...[...document.querySelectorAll('.hand .card, .bids button')].map((e) => e.getBoundingClientRect().bottom)),
          layout: ['header', '.table-bar', '.felt', '.controls', '.bids', '.hand-area'].map(box).join(', '),
          scrolled: scrollY,
        };
      });
      assert.ok(bottoms.lowest <= bottoms.screen,
        `${round}: the lowest card or bid ends at ${bottoms.lowest} px of ${bottoms.screen} (${bottoms.layout}; scrolled ${bottoms.scrolled})`);
    };
    // Round one's bids (or round two's, if the first bid the player gets is there).
    const pass = page.locator('.bids button[data-action="pass"]');
    const deadline = Date.now() + 60000;
    while (await pass.count() === 0) {
      assert.ok(Date.now() < deadline, 'asked to bid within a minute');
      if (!await playOneStep(page) && !await rematchStep(page)) await page.waitForTimeout(25);
    }
    await fits('the first bid');
    // Then passing every bid, until the player is asked to name trump.
    const suit = page.locator('.bids button[data-action^="call-"]');
    const later = Date.now() + 120000;
    while (await suit.count() === 0) {
      assert.ok(Date.now() < later, 'asked to name trump within two minutes');
      if (!await playOneStep(page, { pass: true }) && !await rematchStep(page)) await page.waitForTimeout(25);
    }
    await fits('round two');
    assert.deepEqual(page.problems, []);
  });
}
