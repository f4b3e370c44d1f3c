// The hint at the table in a real browser against the real server: at a
// practice table (every other seat a bot) the player asks at their turn,
// the choice the server suggests is marked and why is said, until the
// player acts; one hint a decision. Where another person sits, no hint is
// offered. With "Review each hand" ticked, each hand's end brings the
// server's review of it, said for a few seconds or until dismissed; unticked
// (as it starts), no review is asked.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { SCREENSHOTS, createTable, playOneStep, rematchStep, takeSeat, withServerAndBrowser } from './support.mjs';

const env = withServerAndBrowser();

// The hint replies the page's socket receives, as sent: the page is
// loaded again so that its socket is one opened under watch.
async function watchHints(page) {
  const hints = [];
  page.on('websocket', (socket) => socket.on('framereceived', ({ payload }) => {
    const message = JSON.parse(String(payload));
    if (message.type === 'ack' && message.reply === 'hint') hints.push(message);
  }));
  await page.reload();
  await page.locator('#connection[data-status="online"]').waitFor();
  return hints;
}

// The control the table shows for `action`: a card in the hand, or a
// button among the choices (a bid's button stands for it alone or not).
function controlFor(page, action) {
  if (typeof action.card === 'string') return page.locator(`.hand .card[data-card="${action.card}"]`);
  const key = { call: `call-${action.suit}`, name_suit: `name-${action.suit}` }[action.action] ?? action.action;
  return page.locator(`.controls button[data-action="${key}"]`);
}

// Plays (passing where it may) until the Hint button is offered: the
// player's turn.
async function untilHintOffered(page) {
  const button = page.locator('.hint-button');
  const deadline = Date.now() + 60000;
  while (await button.count() === 0) {
    assert.ok(Date.now() < deadline, 'the Hint button within a minute');
    if (!await playOneStep(page, { pass: true }) && !await rematchStep(page)) await page.waitForTimeout(25);
  }
  return button;
}

test('at a practice table the player asks for a hint: the choice is marked and why is said, until the player acts', async () => {
  const page = await env.player('Hana');
  const hints = await watchHints(page);
  await page.getByRole('button', { name: 'Play now with three bots' }).click();

  const button = await untilHintOffered(page);
  assert.equal(await page.locator('.hint-line').count(), 0, 'no hint before one is asked for');
  await button.click();
  const line = page.locator('.hint-line');
  await line.waitFor();
  assert.equal(hints.length, 1, 'one hint asked');
  const [hint] = hints;
  assert.ok(hint.why.length > 0, 'the server says why');
  assert.match(await line.textContent(), /^Hint: .+\. /);
  assert.ok((await line.textContent()).endsWith(hint.why), 'the page says why, as the server does');
  // The suggested choice is the one marked, and it may be chosen now.
  const marked = page.locator('.hand .card.hinted, .controls button.hinted');
  assert.equal(await marked.count(), 1, 'one choice is marked');
  const suggested = controlFor(page, hint.action);
  assert.ok(await suggested.evaluate((element) => element.classList.contains('hinted')), `the suggested ${JSON.stringify(hint.action)} is the one marked`);
  assert.ok(await suggested.isEnabled(), 'the suggestion is a choice open now');
  if (typeof hint.action.card === 'string') assert.equal(await suggested.getAttribute('data-legal'), 'true');
  await page.screenshot({ path: join(SCREENSHOTS, 'hint.png') });
  // One hint a decision: the button stays, saying so, and asks nothing more.
  assert.equal(await button.getAttribute('aria-disabled'), 'true');
  await button.dispatchEvent('click');
  await page.waitForTimeout(300);
  assert.equal(hints.length, 1, 'no second hint for the same decision');

  // The player acts (not necessarily as suggested): the hint goes.
  await playOneStep(page, { pass: true });
  await line.waitFor({ state: 'detached' });
  assert.equal(await marked.count(), 0, 'nothing marked once the player acted');

  // At the next turn a new hint may be asked.
  const again = await untilHintOffered(page);
  assert.equal(await again.getAttribute('aria-disabled'), 'false');
  await again.click();
  await line.waitFor();
  assert.equal(hints.length, 2);
  assert.deepEqual(page.problems, []);
});

// The review commands the page's socket sends and their answers, as sent
// (the page is loaded again so that its socket is one opened under watch).
async function watchReviews(page) {
  const reviews = { asked: [], answers: [] };
  page.on('websocket', (socket) => {
    socket.on('framesent', ({ payload }) => {
      const message = JSON.parse(String(payload));
      if (message.type === 'review') reviews.asked.push(message);
    });
    socket.on('framereceived', ({ payload }) => {
      const message = JSON.parse(String(payload));
      if (message.type === 'ack' && message.reply === 'review') reviews.answers.push(message);
    });
  });
  await page.reload();
  await page.locator('#connection[data-status="online"]').waitFor();
  return reviews;
}

// Plays (passing where it may) until `done()`, within a minute and a half.
async function playUntilThen(page, done, what) {
  const deadline = Date.now() + 90000;
  while (!await done()) {
    assert.ok(Date.now() < deadline, `${what} within a minute and a half`);
    if (!await playOneStep(page, { pass: true }) && !await rematchStep(page)) await page.waitForTimeout(25);
  }
}

// A card's name as the page says it ("Jack of hearts").
function cardName(card) {
  const ranks = { 9: 'Nine', T: 'Ten', J: 'Jack', Q: 'Queen', K: 'King', A: 'Ace' };
  const suits = { c: 'clubs', d: 'diamonds', h: 'hearts', s: 'spades' };
  return `${ranks[card[0]]} of ${suits[card[1]]}`;
}

// The review's words, checked against the server's answer: none, or the
// mark, both choices (a card by its name) and the points lost.
function assertReviewSays(text, { mistake }) {
  if (mistake === null) {
    assert.equal(text, 'No mistake this hand.');
    return;
  }
  const marks = { inaccuracy: 'an inaccuracy', mistake: 'a mistake', blunder: 'a blunder' };
  const said = text.match(/^Your biggest mistake this hand \((.+?)\): you chose “(.+?)”; “(.+?)” was better \(−(\d+\.\d) points expected\)\.$/);
  assert.ok(said, `the review's words: ${text}`);
  const [, mark, chosen, better, lost] = said;
  assert.equal(mark, marks[mistake.mark]);
  assert.equal(lost, mistake.points_lost.toFixed(1));
  for (const [words, action] of [[chosen, mistake.chosen], [better, mistake.better]]) {
    if (typeof action.card === 'string') assert.ok(words.endsWith(cardName(action.card)), `“${words}” names ${action.card}`);
    else assert.ok(!/\d/.test(words), `“${words}” is a bid's words`);
  }
  assert.notEqual(chosen, better);
}

test('with "Review each hand" ticked at a practice table, each hand ends with its review, up a few seconds or until dismissed', async () => {
  const page = await env.player('Rita');
  const reviews = await watchReviews(page);
  await page.getByRole('button', { name: 'Play now with three bots' }).click();
  const option = page.getByRole('checkbox', { name: 'Review each hand' });
  assert.equal(await option.isChecked(), false, 'off unless turned on');
  await option.check();
  // Remembered in this browser: still ticked after a reload.
  await page.reload();
  await page.locator('#connection[data-status="online"]').waitFor();
  await page.locator('.felt').waitFor();
  assert.equal(await option.isChecked(), true, 'the option is remembered');

  const line = page.locator('.review-box[role="status"] .review-line');
  // The hand of the review on screen, if one is.
  const shownHand = () => page.evaluate(() => document.querySelector('.review-line')?.dataset.hand ?? null).then((hand) => (hand === null ? null : Number(hand)));
  await playUntilThen(page, async () => await shownHand() !== null, 'a review');
  const hand = await shownHand();
  const answer = reviews.answers.find((reply) => reply.hand === hand);
  assert.ok(answer, `the server answered a review of hand ${hand}`);
  assert.ok(reviews.asked.some((asked) => asked.hand === hand && asked.table === answer.table), 'the page asked for it');
  assertReviewSays(await line.locator('span').textContent(), answer);
  // Dismissed: gone at once.
  await line.getByRole('button', { name: 'Dismiss' }).click();
  assert.equal(await line.count(), 0, 'dismissed');

  // The next hand's review goes by itself after a few seconds.
  await playUntilThen(page, async () => await shownHand() > hand, 'the next review');
  const shown = Date.now();
  const nextHand = await shownHand();
  const next = reviews.answers.find((reply) => reply.hand === nextHand);
  assert.ok(next, 'the server answered the next review');
  assertReviewSays(await line.locator('span').textContent(), next);
  await line.waitFor({ state: 'detached', timeout: 20000 });
  assert.ok(Date.now() - shown > 5000, 'up for some seconds');
  // One review asked a hand.
  const hands = reviews.asked.map((asked) => asked.hand);
  assert.deepEqual(hands, [...new Set(hands)]);
  assert.deepEqual(page.problems, []);
});

test('with "Review each hand" unticked, a hand ends and no review is asked', async () => {
  const page = await env.player('Otto');
  const reviews = await watchReviews(page);
  await page.getByRole('button', { name: 'Play now with three bots' }).click();
  const option = page.getByRole('checkbox', { name: 'Review each hand' });
  assert.equal(await option.isChecked(), false);
  await playUntilThen(page, async () => await page.locator('.play-log li.hand_ended').count() > 0, 'a hand over');
  await page.waitForTimeout(1000);
  assert.deepEqual(reviews.asked, [], 'no review asked');
  assert.equal(await page.locator('.review-line').count(), 0, 'no review shown');
  assert.deepEqual(page.problems, []);
});

test('no hint is offered at a table where another person plays', async () => {
  const host = await env.player('Hugo');
  const guest = await env.player('Gil');
  const link = await createTable(host, { bots: [1, 2] });
  await takeSeat(guest, link, 3);
  // Both play until each has had a turn; the Hint button never shows.
  const turns = new Set();
  const deadline = Date.now() + 60000;
  while (turns.size < 2) {
    assert.ok(Date.now() < deadline, 'both players had a turn within a minute');
    for (const page of [host, guest]) {
      if (await page.locator('.status-line.your-turn').count() > 0) {
        assert.equal(await page.locator('.hint-button').count(), 0, 'no Hint button where a person plays');
        assert.equal(await page.getByRole('checkbox', { name: 'Review each hand' }).count(), 0, 'no review offered where a person plays');
        turns.add(page);
      }
      await playOneStep(page, { pass: true });
    }
  }
  assert.deepEqual(host.problems, []);
  assert.deepEqual(guest.problems, []);
});
