// The puzzle trainer in a real browser against the real server: a guest
// plays a few short games against bots, asks for their analysis (the
// browser tests' server does not analyse at a match's end), and the server
// mines them for puzzles (few worlds, to keep it quick); the guest answers
// one right and one wrong on #/puzzles, reading the verdict, the why-line
// and both lines of "See it played"; the lobby links the puzzle of the day.
// An account's answer moves its puzzle rating, on the trainer and on its
// account page with its streak and answers.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { claim, playQuickGames, SCREENSHOTS, withServerAndBrowser } from './support.mjs';

const env = withServerAndBrowser({ env: { EUCHRE_ANALYSIS__WORLDS: '8' } });

// The stored puzzles' count is not served: a puzzle exists once
// /api/puzzles/next answers one.
async function puzzleStored(page) {
  return page.evaluate(async () => (await fetch('/api/puzzles/next')).ok);
}

// Asks for the analysis of the latest matches (queuing those not analysed
// yet): puzzles are mined from a match once its analysis is saved.
async function askForAnalyses(page) {
  await page.evaluate(async () => {
    const { matches } = await (await fetch('/api/matches?limit=20')).json();
    for (const { id } of matches) await fetch(`/api/matches/${id}/analysis`);
  });
}

// The verdict on `action` for puzzle `id`, asked by another guest's page
// (a guest's answers are judged and not rated, so asking changes nothing).
async function verdictOf(page, id, action) {
  return page.evaluate(async ({ id, action }) => {
    const response = await fetch(`/api/puzzles/${id}/answer`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ action }),
    });
    return response.json();
  }, { id, action });
}

// The puzzle the page shows: its id, and its options as its buttons carry them.
async function shownPuzzle(page) {
  const question = page.locator('.puzzle-question');
  await question.waitFor({ timeout: 20000 });
  const id = Number(await question.getAttribute('data-puzzle'));
  const options = await page.locator('.puzzle-body [data-option]').evaluateAll(
    (buttons) => buttons.map((b) => JSON.parse(b.dataset.option)));
  assert.ok(options.length >= 2, 'a puzzle offers a choice');
  return { id, options };
}

function optionButton(page, action) {
  return page.locator(`.puzzle-body [data-option='${JSON.stringify(action)}']`);
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// Makes sure puzzles are stored: games are mined once analysed (one after
// another, seconds each, more on a busy machine): a few games, every card
// played, their analysis asked for, then a wait for a puzzle, and a few
// more if none came. `page` plays; `prober` asks whether a puzzle is
// stored (each "not yet" is a 404 in its console, kept out of `page`'s).
async function puzzlesMined(page, prober) {
  let games = 0;
  for (let round = 0; round < 2 && !(await puzzleStored(prober)); round += 1) {
    games += await playQuickGames(page, 3, { playOut: true });
    await askForAnalyses(page);
    for (let i = 0; i < 240 && !(await puzzleStored(prober)); i += 1) await page.waitForTimeout(500);
  }
  assert.ok(await puzzleStored(prober), `no puzzle was mined from ${games} games`);
}


test('a guest answers puzzles mined from their games, right and wrong, and the lobby links the daily one', async () => {
  const page = await env.player('Pia');
  const helper = await env.player('Hal');
  await puzzlesMined(page, helper);

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Puzzles' }).click();
  await page.getByRole('heading', { level: 1, name: 'Puzzles' }).waitFor();

  // One answered right: the best answer, as the server judges it.
  let shown = await shownPuzzle(page);
  let probe = await verdictOf(helper, shown.id, shown.options[0]);
  const best = probe.answers[0];
  await optionButton(page, best).click();
  const result = page.locator('.puzzle-result');
  await result.waitFor();
  assert.equal(await result.textContent(), 'Right');
  assert.equal(await page.locator('.puzzle-why').textContent(), probe.why);
  assert.match(await page.locator('.puzzle-answers').textContent(), /^Best: .+ You chose: /);
  await page.getByText('See it played').click();
  assert.ok(await page.locator('.best-line li').count() >= 2, 'the best line is told');
  assert.equal(await page.locator('.answer-line').count(), 0, 'a right answer is the best line');

  // Next puzzles until one with a wrong option (a guest gets them at random).
  let wrong = null;
  for (let i = 0; i < 10 && !wrong; i += 1) {
    await page.getByRole('button', { name: 'Next puzzle' }).click();
    await page.locator('.puzzle-result').waitFor({ state: 'detached' });
    shown = await shownPuzzle(page);
    probe = await verdictOf(helper, shown.id, shown.options[0]);
    wrong = shown.options.find((o) => !probe.answers.some((a) => same(a, o))) ?? null;
  }
  assert.ok(wrong, 'a puzzle with a wrong option');
  await optionButton(page, wrong).click();
  await result.waitFor();
  assert.equal(await result.textContent(), 'Not the best');
  assert.equal(await page.locator('.puzzle-why').textContent(), probe.why);
  await page.getByText('See it played').click();
  assert.ok(await page.locator('.best-line li').count() >= 2, 'the best line is told');
  assert.ok(await page.locator('.answer-line li').count() >= 2, 'the chosen line is told');
  assert.equal(await page.locator('.puzzle-rating').count(), 0, "a guest's answer is not rated");
  assert.match(await page.locator('.puzzle-standing').textContent(), /As a guest your answers are judged, not rated/);
  await page.screenshot({ path: join(SCREENSHOTS, 'puzzles.png'), fullPage: true });

  // The lobby's puzzle of the day opens the same page with that puzzle.
  await page.getByRole('link', { name: 'Lobby', exact: true }).click();
  const daily = page.getByRole('link', { name: 'solve the puzzle of the day' });
  await daily.waitFor();
  const dailyId = await page.evaluate(async () => (await (await fetch('/api/puzzles/daily')).json()).id);
  await daily.click();
  await page.getByRole('heading', { level: 1, name: 'Puzzle of the day' }).waitFor();
  assert.equal((await shownPuzzle(page)).id, dailyId);
  assert.deepEqual(page.problems, []);
});

test("an account's answer moves its puzzle rating, shown on the trainer and on its account page", async () => {
  const page = await env.player('Ada');
  const helper = await env.player('Hob');
  await puzzlesMined(page, helper);
  await claim(page, 'Ada');
  const record = page.locator('.account-puzzles');
  await record.getByText('No puzzles answered yet.').waitFor();

  // The best answer to the puzzle the account is given: rated, it raises
  // the rating from 1500 and starts a streak.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Puzzles' }).click();
  await page.getByText('Your puzzle rating starts at 1500').waitFor();
  const shown = await shownPuzzle(page);
  const best = (await verdictOf(helper, shown.id, shown.options[0])).answers[0];
  await optionButton(page, best).click();
  await page.locator('.puzzle-result').waitFor();
  assert.equal(await page.locator('.puzzle-result').textContent(), 'Right');
  // "Puzzle rating 1662 (+162), streak 1 (best 1)."
  const change = (await page.locator('.puzzle-rating').textContent()).match(/^Puzzle rating (\d+) \(\+(\d+)\), streak 1 \(best 1\)\.$/);
  assert.ok(change, `the rating's rise and the streak are shown: ${await page.locator('.puzzle-rating').textContent()}`);
  const after = Number(change[1]);
  assert.equal(after - Number(change[2]), 1500, 'from 1500');
  assert.equal(Number(await page.locator('.puzzle-standing-rating').textContent()), after, 'the standing shows the new rating');

  // The account page: the rating, the streak and the answer.
  await page.getByRole('link', { name: 'Account', exact: true }).click();
  await record.locator('.puzzle-record-rating').waitFor();
  assert.match(await record.locator('.puzzle-record-rating').textContent(), new RegExp(`^${after} ±\\d+$`));
  assert.equal(await record.locator('.puzzle-record-streak').textContent(), '1 right in a row (best 1)');
  const answers = record.locator('.puzzle-history li');
  assert.equal(await answers.count(), 1);
  assert.match(await answers.first().textContent(), new RegExp(`^Right: puzzle ${shown.id}, `));
  assert.deepEqual(page.problems, []);
});
