// The joker (rules option `joker`) in a real browser against the real
// server: the card drawn and named in the hand, on the table and in the
// replay of match history; and the dealer naming the suit of a turned-up
// joker. The server deals at random, so the tests play on (a rematch when
// a game ends first) until what they look at comes up; the joker is turned
// up in one hand in 25, so for that four people at the table pass every
// hand until it is (a hand thrown in is dealt again, by the next dealer).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { SCREENSHOTS, createTable, gameOver, playOneStep, playUntil, rematchStep, takeSeat, withServerAndBrowser, firstStoredMatch } from './support.mjs';

const env = withServerAndBrowser();

// Steps every page until `found()` gives something (checked between
// steps), with rematches if a game ends first.
async function playUntilFound(steps, found, { timeoutMs = 300000, what = 'it' } = {}) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const result = await found();
    if (result) return result;
    let acted = false;
    for (const [page, step] of steps) if (await step(page) || await rematchStep(page)) acted = true;
    if (!acted) await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${what} did not come within ${timeoutMs} ms`);
}

// Everyone passes whenever asked (so every hand is thrown in and dealt
// again), and does nothing else.
async function passStep(page) {
  const pass = page.locator('.bids button[data-action="pass"]:not([disabled])');
  if (await pass.count() === 0) return null;
  try {
    await pass.click({ timeout: 2000 });
    return 'pass';
  } catch {
    return null; // the prompt went away meanwhile: look again
  }
}

// The cards of the player's hand as drawn, read at one moment.
const handNow = (page) => page.evaluate(() => ({
  trump: Boolean(document.querySelector('.trump-chip')),
  cards: [...document.querySelectorAll('.hand .card')].map((card) => ({
    code: card.dataset.card,
    label: card.getAttribute('aria-label'),
    classes: card.className,
    text: card.textContent,
  })),
}));

test('a table with the joker: held first among trumps, played on the table, and shown in the replay', async () => {
  const page = await env.player('Jem');
  await createTable(page, { points: 5, more: ['Joker'] });
  await page.locator('.table-bar .tag', { hasText: 'joker' }).waitFor();
  await page.locator('.hand .card').first().waitFor();

  // Until the joker is in the player's hand with trump made.
  const held = await playUntilFound([[page, playOneStep]], async () => {
    const hand = await handNow(page);
    return hand.trump && hand.cards.some((c) => c.code === 'JK') ? hand : null;
  }, { what: 'the joker in hand' });
  assert.equal(held.cards[0].code, 'JK', `the joker leads the hand: ${held.cards.map((c) => c.code)}`);
  assert.match(held.cards[0].label, /^Joker, trump\b/);
  assert.match(held.cards[0].classes, /\bjoker\b/);
  assert.match(held.cards[0].classes, /\btrump\b/);
  assert.match(held.cards[0].text, /★.*Joker/);

  // Until the joker lies on the table in a trick.
  const played = await playUntilFound([[page, playOneStep]], () => page.evaluate(() => {
    const card = document.querySelector('.trick .card.joker');
    return card ? { label: card.getAttribute('aria-label'), classes: card.className } : null;
  }), { what: 'the joker in a trick' });
  assert.match(played.label, /^Joker, played by (You|Left bot|Partner bot|Right bot)/);
  assert.match(played.classes, /\btrump\b/, 'it is trump whatever trump is');
  await page.locator('.play-log li', { hasText: /played the Joker\./ }).first().waitFor();

  // That game to its end, then its replay.
  await playUntil([page], () => gameOver(page), { timeoutMs: 300000 });
  const first = await firstStoredMatch(page);
  assert.match(await first.textContent(), /Won|Lost/);

  // Newest first: the joker was played in the last game, or (seen on a
  // trick still held as a rematch began) in the one before.
  const rows = await page.locator('.match-row').count();
  let found = null;
  for (let row = 0; row < Math.min(rows, 2) && !found; row += 1) {
    await page.locator('.match-row').nth(row).getByRole('link', { name: /Replay/ }).click();
    await page.locator('.replay[data-hand="0"][data-step="0"]').waitFor();
    for (let i = 0; i < 400; i += 1) {
      found = await page.evaluate(() => {
        const card = document.querySelector('.replay .trick .card.joker');
        if (!card) return null;
        const inHand = document.querySelector('.replay-hand .card.joker');
        return {
          label: card.getAttribute('aria-label'),
          inHand: inHand?.getAttribute('aria-label'),
          tricks: document.querySelector('.replay-tricks').textContent,
          side: document.querySelector('.replay-side').textContent,
        };
      });
      if (found || await page.locator('.replay[data-last="true"]').count() > 0) break;
      const seq = await page.locator('.replay').getAttribute('data-step');
      const hand = await page.locator('.replay').getAttribute('data-hand');
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction(([h, s]) => {
        const replay = document.querySelector('.replay');
        return replay && (replay.dataset.hand !== h || replay.dataset.step !== s);
      }, [hand, seq]);
    }
    if (!found) await page.getByRole('link', { name: '← All matches' }).click();
  }
  assert.ok(found, 'the joker is played in a trick of the replay');
  assert.match(found.label, /^Joker, (led|played) by /);
  // Dealt, it shows in its hand, spent; else it was the up-card, picked up.
  if (found.inHand) assert.equal(found.inHand, 'Joker, played');
  else assert.match(found.side, /Up-card: ★Joker for /);
  assert.match(found.tricks, /★Joker/);
  assert.deepEqual(page.problems, [], 'no script errors or console errors');
});

test("a joker turned up: the dealer names its suit, the others wait, round one is about that suit", async () => {
  const names = ['Ada', 'Bo', 'Cy', 'Di'];
  const host = await env.player(names[0]);
  const link = await createTable(host, { bots: [], points: 15, more: ['Joker'] });
  const pages = [host];
  for (const seat of [1, 2, 3]) {
    const page = await env.player(names[seat]);
    await takeSeat(page, link, seat);
    pages.push(page);
  }
  // The last seat taken starts the game by itself.
  for (const page of pages) await page.locator('.hand .card').first().waitFor();

  // Everybody passes every hand until the joker is turned up: its dealer
  // is offered the four suits.
  const dealerSeat = await playUntilFound(pages.map((page) => [page, passStep]), async () => {
    for (const [seat, page] of pages.entries()) {
      if (await page.locator('.bids button[data-action^="name-"]').count() > 0) return seat + 1;
    }
    return null;
  }, { timeoutMs: 600000, what: 'a turned-up joker' }) - 1;
  const dealer = pages[dealerSeat];
  const leftSeat = (dealerSeat + 1) % 4;
  const left = pages[leftSeat];
  const dealerName = names[dealerSeat];

  // The dealer: the prompt, four suits and nothing else, the joker up.
  assert.match(await dealer.locator('.status-line').textContent(), /the Joker is turned up\. Name the suit it stands for/);
  const buttons = dealer.locator('.bids button');
  assert.deepEqual(await buttons.evaluateAll((all) => all.map((b) => [b.dataset.action, b.disabled])),
    ['spades', 'hearts', 'clubs', 'diamonds'].map((suit) => [`name-${suit}`, false]));
  assert.match(await buttons.nth(1).textContent(), /♥ Hearts/);
  assert.equal(await dealer.getByRole('group', { name: "The Joker's suit" }).count(), 1);
  assert.equal(await dealer.locator('.up-card .card').getAttribute('aria-label'), 'Up-card: Joker, its suit not named yet');
  assert.match(await dealer.locator('.up-card .card').getAttribute('class'), /\bjoker\b/);
  assert.match(await dealer.locator('.phase-note').textContent(), /^The Joker is turned up: name the suit it stands for\./);
  await dealer.screenshot({ path: join(SCREENSHOTS, 'joker-up.png') });

  // The others: a note and a waiting line, no choices.
  for (const [seat, page] of pages.entries()) {
    if (seat === dealerSeat) continue;
    await page.locator('.status-line', { hasText: `Waiting for ${dealerName} to name the Joker's suit` }).waitFor();
    assert.equal(await page.locator('.bids button').count(), 0);
    assert.match(await page.locator('.phase-note').textContent(), new RegExp(`The Joker is turned up: ${dealerName} names the suit it stands for\\.`));
    assert.match(await page.locator('.up-card .joker-suit.pending').textContent(), /Suit to be named/);
  }
  assert.match(await left.locator('.play-log').textContent(), new RegExp(`The up-card is the Joker\\. ${dealerName} names the suit it stands for\\.`));

  // The dealer names hearts, by the keyboard.
  await dealer.locator('.bids button[data-action="name-hearts"]').focus();
  await dealer.keyboard.press('Enter');
  for (const page of pages) {
    await page.locator('.up-card .joker-suit[data-suit="hearts"]').waitFor();
    assert.equal(await page.locator('.up-card .card').getAttribute('aria-label'), 'Up-card: Joker, standing for hearts');
    assert.match(await page.locator('.hand-info').textContent(), /The Joker turned up stands for ♥ Hearts/);
    await page.locator('.play-log li', { hasText: `${page === dealer ? 'You' : dealerName} named hearts for the Joker` }).waitFor();
  }

  // Round one is about hearts: the dealer's left may order it up.
  const orderUp = left.locator('.bids button[data-action="order_up"]');
  await orderUp.waitFor();
  assert.match(await orderUp.textContent(), /^Order up ♥ Hearts$/);
  await orderUp.click();

  // The dealer picks the joker up: first in his six cards, a trump.
  await dealer.locator('.hand .card').nth(5).waitFor();
  await dealer.locator('.hand .card[data-legal="true"]').first().waitFor();
  const hand = await handNow(dealer);
  assert.equal(hand.cards[0].code, 'JK', `the joker leads the hand: ${hand.cards.map((c) => c.code)}`);
  assert.match(hand.cards[0].label, /^Joker, trump, discard$/);
  assert.match(await dealer.locator('.status-line').textContent(), /choose a card to discard/);
  assert.match(await dealer.locator('.play-log').textContent(), /You picked up the Joker\./);
  await left.locator('.play-log li', { hasText: `${dealerName} picked up the Joker.` }).waitFor();
  await dealer.locator('.hand .card').last().click();
  await dealer.waitForFunction(() => document.querySelectorAll('.hand .card').length === 5);
  assert.equal(await dealer.locator('.hand .card').first().getAttribute('data-card'), 'JK');
  for (const page of pages) assert.deepEqual(page.problems, [], 'no script errors or console errors');
});
