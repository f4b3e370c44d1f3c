// The solver's analysis in a real browser against the real server: a
// short game against bots, then its replay says "Analysing…"
// while the server computes it, and then marks each decision of the step
// shown, draws the expected score through the hand, and gives each
// player's accuracy; the player's profile shows the accuracy too. The
// server deals few worlds and hints a one-second retry, to keep it quick.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { SCREENSHOTS, gameOver, playUntil, withServerAndBrowser, firstStoredMatch } from './support.mjs';

const env = withServerAndBrowser({ env: { EUCHRE_ANALYSIS__WORLDS: '16', EUCHRE_ANALYSIS__RETRY_AFTER_SECONDS: '1' } });

test('a finished game replays with the analysis marks, graph and accuracy', async () => {
  const page = await env.player('Ann');
  await page.getByLabel('Points to win').selectOption('5');
  await page.getByRole('button', { name: 'Create table' }).click();
  await page.locator('.hand .card').first().waitFor();
  await playUntil([page], () => gameOver(page), { timeoutMs: 90000 });

  const row = await firstStoredMatch(page);
  await row.getByRole('link', { name: /Replay/ }).click();
  await page.locator('.replay[data-hand="0"][data-step="0"]').waitFor();
  const matchId = decodeURIComponent(page.url().match(/#\/history\/([^/?]+)/)[1]);

  // Asked for the first time: queued, said so, asked again after the hint.
  const panel = page.locator('.replay-analysis');
  await page.locator('.replay-analysis[data-status="queued"]').waitFor();
  assert.match(await panel.textContent(), /Analysing…/);
  await page.locator('.replay-analysis[data-status="ready"]').waitFor({ timeout: 30000 });

  // What the server computed, to check the page against.
  const { analysis, match } = await page.evaluate(async (id) => {
    const get = async (path) => (await fetch(path)).json();
    return { analysis: await get(`/api/matches/${id}/analysis`), match: await get(`/api/matches/${id}`) };
  }, matchId);
  const me = match.seats.find((seat) => seat.player_id).player_id;

  // Each player's accuracy over the match, as the analysis has it.
  const rows = panel.locator('.analysis-players tbody tr');
  assert.equal(await rows.count(), 4);
  for (const player of analysis.players) {
    const shown = await panel.locator(`.analysis-players tr[data-seat="${player.seat}"] .accuracy`).textContent();
    const expected = player.accuracy === null ? '–' : `${Math.round(player.accuracy * 100)}%`;
    assert.equal(shown, expected, `seat ${player.seat}`);
  }
  assert.match(await panel.locator('.analysis-players tr[data-seat="0"] th').textContent(), /^You$/);

  // The first trick: one mark per card played with a choice, each saying
  // what the solver found with every card shown and with what was known.
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.locator('.replay[data-hand="0"][data-step="2"]').waitFor();
  const firstTrick = new Set(match.hands[0].tricks[0].plays.map((p) => p.card));
  const choices = analysis.hands[0].decisions.filter((d) => d.chosen.action === 'play' && firstTrick.has(d.chosen.card));
  const marks = panel.locator('.analysis-mark');
  assert.equal(await marks.count(), choices.length, 'a mark per card played with a choice');
  for (const [i, decision] of choices.entries()) {
    const text = await marks.nth(i).textContent();
    assert.match(text, decision.shown.mark === 'best' ? /best with every card shown/ : /best: \S+, /);
    assert.match(text, /with what (you|they) knew: /);
    assert.equal(await marks.nth(i).getAttribute('data-index'), String(decision.index));
  }

  // On the felt, each card below the tolerance carries its mark.
  const order = ['best', 'good', 'inaccuracy', 'mistake', 'blunder'];
  const worst = (d) => [d.shown?.mark, d.known?.mark].filter(Boolean).reduce((a, b) => (order.indexOf(b) > order.indexOf(a) ? b : a), 'best');
  const badged = choices.filter((d) => order.indexOf(worst(d)) >= 2);
  assert.equal(await page.locator('.trick .card[data-mark]').count(), badged.length);
  for (const decision of badged) {
    const card = page.locator(`.trick .card[data-mark="${worst(decision)}"]`);
    assert.match(await card.first().getAttribute('aria-label'), new RegExp(`, an? ${worst(decision)}$`));
  }

  // The two figures, each named by its yardstick as the API names it, and
  // each defined under the table.
  const header = (field) => panel.locator(`.analysis-players th[data-field="${field}"]`).textContent();
  assert.equal(await header('accuracy'), 'With what they knew: accuracy');
  assert.equal(await header('card_mistakes'), 'With every card shown: cards that cost tricks');
  const mine = analysis.players[0];
  assert.equal(await panel.locator('.analysis-players tr[data-seat="0"] td[data-field="card_mistakes"]').textContent(),
    `${mine.card_mistakes} of ${mine.card_plays} card${mine.card_plays === 1 ? '' : 's'}`);
  const definitions = await panel.locator('.analysis-definitions dt').allTextContents();
  assert.deepEqual(definitions, ['With what they knew: accuracy', 'With every card shown: cards that cost tricks']);

  // The graph: the viewer's side's value as the viewer could know it, so
  // a point per decision of the viewer's own (never another seat's
  // estimate, flipped or not), with its value; this step's drawn larger.
  // Ann may have had no choice in the first hand (her partner went alone,
  // say): then the graph says so in words instead.
  const sameAction = (a, b) => a.action === b.action && a.card === b.card && a.suit === b.suit && Boolean(a.alone) === Boolean(b.alone);
  const own = analysis.hands[0].decisions.filter((d) => d.known && d.seat === 0);
  const graph = panel.locator('.analysis-graph svg');
  if (own.length === 0) {
    assert.match(await panel.locator('.analysis-graph .caption').textContent(), /None of your decisions in this hand/);
  } else {
    await graph.waitFor();
    const ownValues = own.map((d) => d.known.options.find((o) => sameAction(o.action, d.chosen)).expected.toFixed(2));
    assert.equal(await graph.getAttribute('data-values'), ownValues.join(' '));
    assert.equal(await graph.locator('circle.point').count(), own.length);
    assert.equal(await graph.locator('circle.point.now').count(), choices.filter((d) => d.seat === 0 && d.known).length);
    assert.match(await graph.getAttribute('aria-label'), /^Points for Us through the hand, with what you knew/);
  }
  // Every card shown: each card played with a choice, for our side.
  await panel.getByRole('checkbox', { name: 'Every card shown' }).check();
  await panel.locator('.analysis-graph[data-mode="shown"]').waitFor();
  const cards = analysis.hands[0].decisions.filter((d) => d.shown);
  assert.equal(await panel.locator('.analysis-graph svg circle.point').count(), cards.length);
  await panel.getByRole('checkbox', { name: 'Every card shown' }).uncheck();
  await panel.locator('.analysis-graph[data-mode="known"]').waitFor();

  // For the picture, the first trick of the hand with a card marked, if any.
  const tricks = match.hands[0].tricks;
  const marked = tricks.findIndex((trick) => analysis.hands[0].decisions.some((d) => d.chosen.action === 'play'
    && trick.plays.some((p) => p.card === d.chosen.card) && order.indexOf(worst(d)) >= 2));
  for (let step = 0; step < marked; step += 1) await page.keyboard.press('ArrowRight');
  await page.locator(`.replay[data-hand="0"][data-step="${Math.max(marked, 0) + 2}"]`).waitFor();
  if (marked >= 0) assert.ok(await page.locator('.trick .card[data-mark]').count() > 0);
  await page.screenshot({ path: join(SCREENSHOTS, 'analysis.png'), fullPage: true });

  // On a phone the panel fits the width.
  await page.setViewportSize({ width: 375, height: 800 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `the page is ${overflow}px wider than a phone`);
  await page.setViewportSize({ width: 1280, height: 860 });

  // The profile: the accuracy of the one analysed game.
  await page.evaluate((id) => { location.hash = `#/players/${encodeURIComponent(id)}`; }, me);
  const item = page.locator('.profile-accuracy li[data-form="partnership"]');
  await item.waitFor();
  assert.match(await item.textContent(), new RegExp(`${Math.round(mine.accuracy * 100)}% of ${mine.decisions} decisions`));
  assert.match(await item.textContent(), /the last analysed game/);
});
