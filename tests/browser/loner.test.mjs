// The rule options around a loner, in a real browser against the real
// server: defend alone (a defender answers a lone call by playing alone
// too) and call for best (the loner's partner passes him a card). The
// server deals at random, so the host goes alone at the first chance and
// the hands are played until the phase comes; the people at the table
// pass in the bidding to leave the host that chance, bots fill the rest.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { SCREENSHOTS, createTable, playOneStep, rematchStep, takeSeat, withServerAndBrowser } from './support.mjs';

const env = withServerAndBrowser();

// The host's step: make trump alone whenever the bidding offers it (the
// "Go alone" box, then the first bid that makes trump), pass on any
// chance to defend alone, else play on.
async function goAloneStep(page) {
  const toggle = page.getByLabel('Go alone');
  const bid = page.locator('.bids button:not([disabled])[data-action^="order_up"], .bids button:not([disabled])[data-action^="call-"]').first();
  try {
    if (await toggle.count() > 0 && await bid.count() > 0) {
      await toggle.check({ timeout: 2000 });
      await bid.click({ timeout: 2000 });
      return 'alone';
    }
    const pass = page.locator('.bids button[data-action="pass"]:not([disabled])');
    if (await page.locator('.bids button[data-action="defend_alone"]').count() > 0 && await pass.count() > 0) {
      await pass.click({ timeout: 2000 });
      return 'pass';
    }
  } catch {
    return null; // the prompt went away meanwhile: look again
  }
  return playOneStep(page);
}

// Another person's step: pass in the bidding (and when asked to defend
// alone against anybody but `loner`), else play on; with `keepPassCard`,
// leave a call for best's card to pass for the test to choose.
function passingStep(loner = null, { keepPassCard = false } = {}) {
  return async (page) => {
    if (keepPassCard && await page.locator('.hand .card[data-legal="true"][aria-label$="pass to partner"]').count() > 0) return null;
    const pass = page.locator('.bids button[data-action="pass"]:not([disabled])');
    if (await pass.count() > 0) {
      const defending = await page.locator('.bids button[data-action="defend_alone"]').count() > 0;
      if (defending && loner && (await page.locator('.phase-note').textContent({ timeout: 1000 }).catch(() => '')).startsWith(`${loner} goes alone`)) return null;
      try {
        await pass.click({ timeout: 2000 });
        return 'pass';
      } catch {
        return null;
      }
    }
    return playOneStep(page);
  };
}

// Steps every page until `found()` gives something (checked between
// steps), with rematches if a game ends first.
async function playUntilFound(steps, found, { timeoutMs = 240000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const result = await found();
    if (result) return result;
    let acted = false;
    for (const [page, step] of steps) if (await step(page) || await rematchStep(page)) acted = true;
    if (!acted) await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`the phase did not come within ${timeoutMs} ms`);
}

const seatNames = (page) => page.locator('.seat').evaluateAll((seats) => seats.map((s) => ({
  name: s.querySelector('.seat-name').textContent,
  out: Boolean(s.querySelector('.badge.out')),
  alone: [...s.querySelectorAll('.badge')].some((b) => b.textContent === 'Defends alone'),
})));

test('defend alone: the loner\'s left is asked, defends alone, and both partners sit out', async () => {
  const host = await env.player('Lou');
  const link = await createTable(host, { bots: [2, 3], points: 15, more: ['Defend alone'] });
  const left = await env.player('Max');
  await takeSeat(left, link, 1);
  // The last seat taken starts the game by itself.
  for (const page of [host, left]) await page.locator('.hand .card').first().waitFor();

  // Until the host goes alone and the defender on his left is asked.
  const defend = left.locator('.bids button[data-action="defend_alone"]:not([disabled])');
  await playUntilFound([[host, goAloneStep], [left, passingStep('Lou')]],
    async () => (await defend.count()) > 0 && /^Lou goes alone/.test(await left.locator('.phase-note').textContent({ timeout: 1000 }).catch(() => '')));
  assert.match(await left.locator('.status-line').textContent(), /defend alone against the loner, or pass/);
  assert.equal(await left.locator('.bids button[data-action="pass"]').count(), 1, 'pass is offered too');
  assert.equal(await left.locator('.bids button[data-action="order_up"], .bids [data-action^="call-"]').count(), 0, 'no bids but those');
  assert.match(await left.locator('.phase-note').textContent(), /Lou goes alone\. You may defend alone\./);
  assert.match(await host.locator('.status-line').textContent(), /Waiting for Max to decide whether to defend alone/);
  // The host's partner (a bot) sits out already.
  assert.deepEqual((await seatNames(host)).filter((s) => s.out).map((s) => s.name), ['Partner bot']);
  await left.screenshot({ path: join(SCREENSHOTS, 'defend-alone.png') });

  // By the keyboard: the button is focusable and Enter chooses it.
  await defend.focus();
  await left.keyboard.press('Enter');

  // Both partners sit out, on both pages; the lone defender is marked.
  for (const page of [host, left]) {
    await page.waitForFunction(() => document.querySelectorAll('.seat .badge.out').length === 2);
  }
  const fromHost = await seatNames(host);
  assert.deepEqual(fromHost.filter((s) => s.out).map((s) => s.name).sort(), ['Partner bot', 'Right bot']);
  assert.deepEqual(fromHost.filter((s) => s.alone).map((s) => s.name), ['Max']);
  assert.match(await host.locator('.hand-info').textContent(), /Defended alone by Max/);
  const fromLeft = await seatNames(left);
  assert.deepEqual(fromLeft.filter((s) => s.out).map((s) => s.name).sort(), ['Left bot', 'Partner bot']);
  assert.match(await left.locator('.play-log').textContent(), /You defend alone\./);
  assert.match(await host.locator('.play-log').textContent(), /Max defends alone\./);

  // Two play the hand out: the result names the lone defender.
  await playUntilFound([[host, playOneStep], [left, playOneStep]],
    async () => /against Max defending alone/.test(await host.locator('.play-log').textContent()), { timeoutMs: 60000 });
  // The other page hears of the result on its own connection: a moment later, maybe.
  await left.locator('.play-log', { hasText: /against you defending alone/ }).waitFor({ timeout: 10000 });
  for (const page of [host, left]) assert.deepEqual(page.problems, [], 'no script errors or console errors');
});

test('call for best: the partner passes a card that only the two of them see, the loner discards one of six', async () => {
  const host = await env.player('Ned');
  const link = await createTable(host, { bots: [3], points: 15, more: ['Call for best'] });
  const left = await env.player('Oda');
  await takeSeat(left, link, 1);
  const partner = await env.player('Pia');
  await takeSeat(partner, link, 2);
  // The last seat taken starts the game by itself.
  for (const page of [host, left, partner]) await page.locator('.hand .card').first().waitFor();

  // Until the host goes alone and his partner is asked for a card.
  const toPass = partner.locator('.hand .card[data-legal="true"][aria-label$="pass to partner"]');
  await playUntilFound([[host, goAloneStep], [left, passingStep()], [partner, passingStep(null, { keepPassCard: true })]], async () => (await toPass.count()) > 0);
  assert.match(await partner.locator('.status-line').textContent(), /your partner goes alone\. Choose the card to pass them/i);
  assert.equal(await toPass.count(), await partner.locator('.hand .card').count(), 'any card may be passed');
  assert.match(await host.locator('.status-line').textContent(), /Waiting for Pia to pass a card to the loner/);
  assert.match(await left.locator('.phase-note').textContent(), /Ned goes alone: Pia passes Ned a card, face down\./);
  assert.match(await partner.locator('.phase-note').textContent(), /Ned goes alone: pass your partner your best card, face down\./);
  await partner.screenshot({ path: join(SCREENSHOTS, 'call-for-best.png') });

  // The partner passes his tab-stop card with the keyboard.
  const card = partner.locator('.hand .card[tabindex="0"]');
  const passed = await card.getAttribute('data-card');
  const short = await card.evaluate((el) => el.querySelector('.corner').textContent);
  await card.focus();
  await partner.keyboard.press('Enter');

  // The loner holds six, the passed card marked; he is asked to discard.
  await host.locator('.hand .card').nth(5).waitFor();
  const given = host.locator(`.hand .card[data-card="${passed}"]`);
  await given.waitFor();
  assert.match(await given.getAttribute('class'), /\bpassed\b/);
  assert.match(await given.getAttribute('aria-label'), /passed to you, discard$/);
  assert.match(await host.locator('.status-line').textContent(), /you hold six cards\. Choose one to discard/);
  assert.equal(await host.locator('.hand .card[data-legal="true"]').count(), 6, 'any of the six may go');
  assert.match(await host.locator('.passed-card').textContent(), new RegExp(`Your partner passed you: ${short}`));
  assert.match(await partner.locator('.passed-card').textContent(), new RegExp(`You passed your partner: ${short}`));
  assert.match(await partner.locator('.play-log').textContent(), new RegExp('You passed Ned the '));
  // A defender learns that a card went, never which.
  await left.locator('.play-log li', { hasText: 'Pia passed Ned a card, face down.' }).last().waitFor();
  assert.equal(await left.locator('.passed-card').count(), 0);
  assert.doesNotMatch(await left.locator('.table-main').textContent(), new RegExp(`passed Ned the`));
  await host.screenshot({ path: join(SCREENSHOTS, 'loner-discard.png') });

  // The loner discards a card other than the one passed; five are left.
  const other = host.locator(`.hand .card[data-legal="true"]:not([data-card="${passed}"])`).first();
  const discarded = await other.getAttribute('data-card');
  await other.click();
  await host.waitForFunction(() => document.querySelectorAll('.hand .card').length === 5);
  assert.equal(await host.locator(`.hand .card[data-card="${discarded}"]`).count(), 0);
  assert.match(await host.locator('.hand-info').textContent(), /Your discard \(from six\)/);
  // Now the partner sits out: one seat, on every page; he is told so.
  for (const page of [host, left, partner]) await page.waitForFunction(() => document.querySelectorAll('.seat .badge.out').length === 1);
  await partner.getByText('You sit this hand out: your partner plays alone.').waitFor();
  assert.equal(await partner.locator('.hand .card[data-legal="true"]').count(), 0, 'no card of his may be played');
  for (const page of [host, left, partner]) assert.deepEqual(page.problems, [], 'no script errors or console errors');
});

test("Canadian loner: the dealer's partner may order it up only alone, and the button says so", async () => {
  const page = await env.player('Quin');
  await createTable(page, { points: 15, more: ['Canadian loner', 'Defend alone', 'Call for best'] });
  for (const tag of ['Canadian loner', 'defend alone', 'call for best']) {
    await page.locator('.table-bar .tag', { hasText: tag }).waitFor();
  }
  await page.locator('.hand .card').first().waitFor();
  // Pass (and play) until a round-one turn while the partner deals.
  const orderUp = page.locator('.bids button[data-action="order_up"]');
  await playUntilFound([[page, passingStep()]], async () => (await orderUp.count()) > 0
    && (await page.locator('.seat-top .badge.dealer').count()) > 0);
  assert.match(await orderUp.textContent(), /^Order up . \w+ alone$/);
  assert.match(await orderUp.getAttribute('title'), /only alone/);
  assert.equal(await orderUp.isEnabled(), true);
  // No "Go alone" box beside it, unticked and choosing nothing: the
  // button says it is alone, and it is the only way.
  assert.equal(await page.locator('.alone-toggle').count(), 0);
  await orderUp.click();
  await page.locator('.seat-bottom .badge.maker', { hasText: 'alone' }).waitFor();
  assert.match(await page.locator('.play-log').textContent(), /You ordered up \w+, going alone\./);
  assert.deepEqual(page.problems, [], 'no script errors or console errors');
});
