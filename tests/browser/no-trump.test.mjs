// No trump (rules option `allow_no_trump`) in a real browser against the
// real server: the form's option (never with the joker), then a hand
// called at no trump by the player and played out. The bots never call no
// trump, so the player passes every bid until round two comes to him with
// no trump offered (the server deals at random; hands all pass are thrown
// in and dealt again), playing out the hands the bots make meanwhile.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { SCREENSHOTS, createTable, playOneStep, rematchStep, withServerAndBrowser } from './support.mjs';

const env = withServerAndBrowser();

const SUITS = { s: 'spades', h: 'hearts', c: 'clubs', d: 'diamonds' };
const RANKS = '789TJQKA';

// The player's step until no trump is his to call: call it when offered,
// else pass, else play the first legal card.
async function waitForNoTrumpStep(page) {
  for (const selector of ['.bids button[data-action="call_no_trump"]:not([disabled])', '.bids button[data-action="pass"]:not([disabled])', '.hand .card[data-legal="true"]']) {
    const target = page.locator(selector).first();
    if (await target.count() === 0) continue;
    try {
      await target.click({ timeout: 2000 });
      return selector;
    } catch {
      return null; // the prompt went away meanwhile: look again
    }
  }
  return null;
}

test('the form offers no trump, never together with the joker', async () => {
  const page = await env.player('Flo');
  await page.getByText('More rules').click();
  const joker = page.getByLabel(/^\s*Joker/);
  const noTrump = page.getByLabel(/^\s*No trump/);
  const note = page.locator('#create-joker-no-trump');
  assert.equal(await noTrump.isEnabled(), true);
  await joker.check();
  assert.equal(await noTrump.isDisabled(), true, 'the joker turns no trump off');
  assert.match(await note.textContent(), /No trump is off: it cannot be played with the joker/);
  assert.equal(await noTrump.getAttribute('aria-describedby'), 'create-joker-no-trump');
  await joker.uncheck();
  assert.equal(await noTrump.isEnabled(), true);
  await noTrump.check();
  assert.equal(await joker.isDisabled(), true, 'no trump turns the joker off');
  assert.match(await note.textContent(), /The joker is off/);
  assert.deepEqual(page.problems, [], 'no script errors or console errors');
});

test('a hand called at no trump: the buttons, the display, the hand played out', async () => {
  const page = await env.player('Nat');
  await createTable(page, { points: 15, more: ['No trump'] });
  await page.locator('.table-bar .tag', { hasText: 'no trump' }).waitFor();
  await page.locator('.hand .card').first().waitFor();

  // Round two reaches the player with no trump offered.
  const deadline = Date.now() + 300000;
  let offered = null;
  while (!offered && Date.now() < deadline) {
    const button = page.locator('.bids button[data-action="call_no_trump"]:not([disabled])');
    if (await button.count() > 0) {
      offered = {
        text: await button.textContent(),
        status: await page.locator('.status-line').textContent(),
        suits: await page.locator('.bids button[data-action^="call-"]').count(),
      };
      break;
    }
    const pass = page.locator('.bids button[data-action="pass"]:not([disabled])');
    let acted = null;
    if (await pass.count() > 0) acted = await pass.click({ timeout: 2000 }).then(() => 'pass', () => null);
    else acted = (await playOneStep(page)) ?? (await rematchStep(page));
    if (!acted) await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.ok(offered, 'round two came to the player with no trump offered');
  assert.equal(offered.text, 'No trump');
  assert.match(offered.status, /name trump, call no trump, or pass/);
  assert.equal(offered.suits, 3, 'and the three suits not turned down');

  // Called by the keyboard.
  await page.locator('.bids button[data-action="call_no_trump"]').focus();
  await page.keyboard.press('Enter');
  await page.locator('.trump-chip.no-trump').waitFor();
  assert.equal(await page.locator('.trump-chip').textContent(), 'No trump');
  assert.match(await page.locator('.hand-info').textContent(), /No trump, called by You/);
  assert.match(await page.locator('.seat-bottom .badge.maker').textContent(), /^Maker no trump$/);
  await page.locator('.play-log li', { hasText: 'You called no trump. No trump: no bowers, the led suit wins.' }).waitFor();
  await page.screenshot({ path: join(SCREENSHOTS, 'no-trump.png') });

  // The hand suit by suit, jacks in their own suits between ten and
  // queen, and no card marked trump.
  const hand = await page.locator('.hand .card').evaluateAll((cards) => cards.map((c) => ({
    code: c.dataset.card, label: c.getAttribute('aria-label'), classes: c.className,
  })));
  const key = (code) => [Object.keys(SUITS).indexOf(code[1]), -RANKS.indexOf(code[0])];
  const sorted = [...hand].sort((a, b) => {
    const [sa, ra] = key(a.code);
    const [sb, rb] = key(b.code);
    return sa - sb || ra - rb;
  });
  assert.deepEqual(hand.map((c) => c.code), sorted.map((c) => c.code), 'sorted by suit, then rank');
  for (const card of hand) {
    assert.doesNotMatch(card.label, /trump/, `no trump: ${card.label}`);
    assert.doesNotMatch(card.classes, /\btrump\b/);
  }

  // Played out: whenever the player follows, the legal cards are those
  // of the suit led (a jack included only in its own suit), if he has any.
  let follows = 0; // tricks followed (none if the player led them all)
  const end = Date.now() + 120000;
  while (Date.now() < end) {
    if (await page.locator('.play-log li', { hasText: /You called no trump and took \d tricks?/ }).count() > 0) break;
    const legal = page.locator('.hand .card[data-legal="true"]');
    if (await legal.count() === 0) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      continue;
    }
    const seen = await page.evaluate(() => {
      const trick = document.querySelector('.trick:not(.done)');
      const led = trick?.querySelector('.card')?.getAttribute('aria-label') ?? null;
      return {
        led,
        cards: [...document.querySelectorAll('.hand .card')].map((c) => [c.dataset.card, c.dataset.legal === 'true']),
      };
    });
    if (seen.led && seen.cards.some(([, isLegal]) => isLegal)) {
      const ledSuit = seen.led.match(/ of (\w+),/)[1];
      const holds = seen.cards.some(([code]) => SUITS[code[1]] === ledSuit);
      for (const [code, isLegal] of seen.cards) {
        assert.equal(isLegal, !holds || SUITS[code[1]] === ledSuit, `${code} after a ${ledSuit} lead: ${JSON.stringify(seen.cards)}`);
      }
      follows += 1;
    }
    await legal.first().click({ timeout: 2000 }).catch(() => {});
  }
  const result = await page.locator('.play-log li', { hasText: /You called no trump and took \d tricks?/ }).first().textContent();
  assert.match(result, /^(Made it\.|March!|Euchred!) You called no trump and took [0-5] tricks?: (Us|Them) \+\d\. Score: /);
  assert.deepEqual(page.problems, [], 'no script errors or console errors');
});
