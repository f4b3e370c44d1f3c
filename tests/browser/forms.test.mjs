// The two- and three-handed games at the table: each form made
// from the lobby's form, a game played to the end in the browser by one
// person against bots, the seats drawn (never an empty fourth), the dummy
// where there is one, a score per player, and the match in History with
// its replay. Games are to 5 so the file stays quick.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  SCREENSHOTS, createTable, firstStoredMatch, gameOver, playOneStep, withServerAndBrowser,
} from './support.mjs';

const env = withServerAndBrowser();

// The score board's rows: [name, points].
async function scoreBoard(page, scope = '.scoreboard') {
  const names = await page.locator(`${scope} .scores dt`).allTextContents();
  const values = (await page.locator(`${scope} .scores dd`).allTextContents()).map(Number);
  return names.map((name, i) => [name, values[i]]);
}

// Plays the page's turns to the end of the game, looking at every step:
// `seen` counts what showed (the dummy face down while bidding, the
// maker's own discards, each finished trick's cards). `shot(page, seen)`
// may take a screenshot on the way.
async function playGame(page, { players, dummy, shot = null, timeoutMs = 150000 }) {
  const seen = { bids: 0, dummyWhileBidding: 0, tookDummy: 0, ownDummyDiscards: 0, trickSizes: new Set(), steps: 0 };
  const deadline = Date.now() + timeoutMs;
  while (!await gameOver(page)) {
    if (Date.now() > deadline) throw new Error(`the game did not end within ${timeoutMs} ms (${seen.steps} steps)`);
    // Bidding (the pass button shows): the dummy is still face down.
    if (await page.locator('.bids button[data-action="pass"]').count() > 0) {
      const piles = await page.locator('.dummy-pile').count();
      assert.equal(piles, dummy ? 1 : 0, dummy ? 'the dummy lies face down while bidding' : 'no dummy in this game');
      if (dummy) seen.dummyWhileBidding += 1;
    } else if (dummy && await page.locator('.felt .up-card').count() > 0 && await page.locator('.dummy-pile').count() > 0) {
      // A bot bidding while the up-card lies there: a loaded machine may
      // look only between the player's own bids.
      seen.dummyWhileBidding += 1;
    }
    // A finished trick's cards, read at once (the felt is redrawn often).
    const size = await page.evaluate(() => document.querySelector('.trick.done')?.querySelectorAll('.card').length ?? null);
    if (size !== null) seen.trickSizes.add(size);
    // The player took the dummy: eight cards, three to put back.
    if (await page.locator('.status-line', { hasText: 'you took the dummy. Discard three' }).count() > 0) {
      seen.tookDummy += 1;
      assert.equal(await page.locator('.hand .card').count(), 8, 'the dummy in the hand');
      assert.equal(await page.locator('.dummy-pile').count(), 0, 'the pile is gone');
    }
    if (await page.locator('.dummy-discards').count() > 0) {
      seen.ownDummyDiscards = Math.max(seen.ownDummyDiscards, await page.locator('.dummy-discards span').count());
    }
    if (shot) await shot(page, seen);
    // Trump made at every other chance to bid: the player takes the dummy
    // sometimes, and is not euchred hand after hand (at three, two
    // defenders level at the target play on until one leads).
    // A discard puts back the last card, the weakest (the hand is sorted
    // trump first, strongest first), as a person would.
    const discard = await page.locator('.status-line.your-turn', { hasText: /discard/i }).count() > 0;
    const step = discard
      ? await page.locator('.hand .card[data-legal="true"]').last().click({ timeout: 2000 }).then(() => 'discard', () => null)
      : await playOneStep(page, { pass: seen.bids % 2 === 0 });
    // Counted as acted on, not as seen above: a turn to bid that comes
    // after that look is still answered in this round. (A card's code is
    // two characters, a bid's key longer.)
    if (step && !discard && step.length > 2) seen.bids += 1;
    if (step) seen.steps += 1;
    else await page.waitForTimeout(25);
  }
  assert.equal(await page.locator('.felt .seat').count(), players, 'the seats stay drawn to the end');
  return seen;
}

// The seats drawn for `players`: you at the bottom, never an empty place.
async function assertSeats(page, players) {
  assert.equal(await page.locator('.felt .seat').count(), players);
  assert.equal(await page.locator('.felt .seat-bottom .seat-name').textContent(), 'You');
  const where = { 2: ['bottom', 'top'], 3: ['bottom', 'left', 'right'] }[players];
  for (const position of ['top', 'left', 'right']) {
    assert.equal(await page.locator(`.felt .seat-${position}`).count(), where.includes(position) ? 1 : 0, `seat-${position}`);
  }
  assert.doesNotMatch(await page.locator('.felt').textContent(), /empty/);
}

// The finished match in History, then its replay to the last step: the
// same names and final scores as the table's board (the history API gives
// one score per side, and each hand's running scores), and the dummy face
// up where the form has one.
async function assertHistory(page, { players, dummy, title, board, won }) {
  const row = await firstStoredMatch(page);
  const text = await row.textContent();
  assert.match(text, won ? /Won/ : /Lost/);
  assert.ok(text.includes(title), `the form is named: ${text}`);
  const expected = board.map(([name, points]) => `${name} ${points}`).join(', ');
  assert.equal(await row.locator('.match-score').textContent(), expected, 'one score per player');
  assert.doesNotMatch(text, /With /, 'no partner');

  await row.getByRole('link', { name: /Replay/ }).click();
  await page.locator('.replay[data-hand="0"][data-step="0"]').waitFor();
  assert.equal(await page.locator('.replay-felt .seat').count(), players);
  assert.equal(await page.locator('.replay-felt .seat .replay-hand').count(), players, 'every hand shown once the match is over');
  assert.deepEqual(await page.locator('.replay-side .scores dt').allTextContents(), board.map(([name]) => name));
  assert.equal(await page.locator('.replay-felt .dummy-pile .card').count(), dummy ? 3 : 0, 'the dummy, face up now');
  // On to the last step: the last hand's last trick.
  for (let i = 0; i < 40 && !await page.getByRole('button', { name: 'Next hand »' }).isDisabled(); i += 1) {
    await page.keyboard.press('PageDown');
  }
  for (let i = 0; i < 20 && await page.locator('.replay[data-last="true"]').count() === 0; i += 1) {
    await page.keyboard.press('ArrowRight');
  }
  await page.locator('.replay[data-last="true"]').waitFor();
  assert.deepEqual(await scoreBoard(page, '.replay-side'), board, 'the running score ends at the final score');
  assert.ok([players, 0].includes(await page.locator('.replay-felt .trick .card').count()), 'a trick of one card per player');
  assert.match(await page.locator('.match-end').textContent(), won ? /^You win the game/ : / wins the game/);
  const winner = won ? 'You' : board.toSorted((a, b) => b[1] - a[1])[0][0];
  assert.equal(await page.locator('.replay-summary').textContent(), `${winner} won — ${expected} · ${title}, ${players} players, to 5`);
}

// One form from the lobby to History. `extra(page)` runs once the table shows.
async function playForm({ name, preset, players, dummy, title, shot = null }) {
  const page = await env.player(name);
  await createTable(page, { preset, points: 5 });
  await page.locator('.hand .card').first().waitFor();
  assert.match(await page.locator('.table-bar').textContent(), new RegExp(title));
  await assertSeats(page, players);
  const names = players === 3 ? ['You', 'Left bot', 'Right bot'] : ['You', 'Opponent bot'];
  assert.deepEqual((await scoreBoard(page)).map(([n]) => n), names, 'one score per player, by name');
  assert.match(await page.locator('.hand-info .tricks').textContent(), new RegExp(`^Tricks: ${names.map((n) => `${n} \\d`).join(', ')}$`));

  const seen = await playGame(page, { players, dummy, shot });
  assert.ok(seen.bids > 0, 'the player bid at least once');
  assert.deepEqual([...seen.trickSizes], [players], `each trick shows ${players} cards`);

  const board = await scoreBoard(page);
  assert.deepEqual(board.map(([n]) => n), names);
  assert.ok(board.some(([, points]) => points >= 5), `somebody reached 5: ${JSON.stringify(board)}`);
  const heading = await page.locator('.game-over h2').textContent();
  const won = heading === 'You win!';
  if (!won) {
    // The winner is named: the one player with the most points.
    const top = [...board].sort((a, b) => b[1] - a[1])[0][0];
    assert.equal(heading, `${top} wins`);
  }
  assert.match(await page.locator('.game-over .final-score').textContent(), new RegExp(`^${names[0]} \\d+, ${names[1]} \\d+`));
  assert.match(await page.locator('.play-log').textContent(), /Game over: (you win|[A-Za-z ]+ wins)\./);
  await assertHistory(page, { players, dummy, title, board, won });
  assert.deepEqual(page.problems, [], 'no script errors or console errors');
  await page.context().close();
  return seen;
}

// A trick in progress (`cards` down, the player to follow) makes the picture.
function trickShot(file, cards) {
  let taken = false;
  return async (page) => {
    if (taken) return;
    if (await page.locator('.trick:not(.done):not(.held) .card').count() >= cards && await page.locator('.hand .card[data-legal="true"]').count() > 0
      && await page.locator('.status-line', { hasText: 'play a highlighted card' }).count() > 0) {
      await page.screenshot({ path: join(SCREENSHOTS, file) });
      taken = true;
    }
  };
}

test('the lobby offers every form, lists a table with its seats, and turns off what needs partners', async () => {
  const bob = await env.player('Bob');
  const rules = bob.getByLabel('Rules', { exact: true });
  const options = await rules.locator('option').evaluateAll((list) => list.map((o) => o.value));
  for (const preset of ['standard', 'three_handed', 'cutthroat', 'two_handed', 'two_handed_plain']) assert.ok(options.includes(preset), preset);
  await bob.getByText('More rules').click();
  await rules.selectOption('cutthroat');
  // Three seats: two bot boxes; partners' options off, with the reason.
  assert.deepEqual(await bob.locator('.bot-seats label').allTextContents(), [' Left opponent (seat 2)', ' Right opponent (seat 3)']);
  for (const option of ['Canadian loner', 'Defend alone', 'Call for best', 'Rubber']) {
    assert.equal(await bob.getByLabel(new RegExp(`^\\s*${option}`)).isDisabled(), true, option);
  }
  assert.match(await bob.locator('#create-defend_alone-off').textContent(), /partners/);
  assert.match(await bob.locator('#create-rubber-off').textContent(), /partnerships/);
  await rules.selectOption('two_handed');
  assert.deepEqual(await bob.locator('.bot-seats label').allTextContents(), [' Opponent (seat 2)']);
  assert.equal(await bob.getByLabel(/^\s*Rubber/).isDisabled(), true);
  assert.equal(await bob.getByLabel('The pack').inputValue(), 'ten_to_ace');
  await rules.selectOption('standard');
  assert.equal(await bob.locator('.bot-seats label').count(), 3);
  assert.equal(await bob.getByLabel(/^\s*Defend alone/).isDisabled(), false);

  // Bob's three-handed table waits for two players: listed with three seats.
  await createTable(bob, { preset: 'three_handed', bots: [] });
  const ann = await env.player('Ann');
  const row = ann.locator('.table-row', { hasText: "Bob's table" });
  await row.waitFor();
  assert.match(await row.locator('.what').textContent(), /^Three-handed, with a dummy · 3 players · to 10/);
  assert.equal(await row.locator('.pip-seat').count(), 3);
  assert.match(await row.locator('.seats').textContent(), /2 seats free/);
  assert.equal(await row.locator('.seats').getAttribute('aria-label'), '1 of 3 seats taken');
  await bob.locator('.felt .seat').first().waitFor();
  assert.equal(await bob.locator('.felt .seat').count(), 3, 'three seats drawn before the game too');
  assert.deepEqual(bob.problems, []);
  assert.deepEqual(ann.problems, []);
  await bob.context().close();
  await ann.context().close();
});

test('cutthroat: three players, the maker alone against two, a score each', async () => {
  await playForm({ name: 'Cy', preset: 'cutthroat', players: 3, dummy: false, title: 'Cutthroat', shot: trickShot('cutthroat.png', 2) });
});

test('three-handed with a dummy: face down while bidding, taken by the maker, who discards three', async (t) => {
  let taken = false;
  const seen = await playForm({
    name: 'Di', preset: 'three_handed', players: 3, dummy: true, title: 'Three-handed, with a dummy',
    async shot(page) {
      // The player to bid, the up-card and the dummy face down (no trick held).
      if (taken || await page.locator('.dummy-pile').count() === 0 || await page.locator('.felt .up-card').count() === 0
        || await page.locator('.bids button[data-action="pass"]').count() === 0) return;
      await page.screenshot({ path: join(SCREENSHOTS, 'three-handed-dummy.png') });
      taken = true;
    },
  });
  assert.ok(seen.dummyWhileBidding > 0);
  // The maker's three put back are listed for him (the player makes trump
  // at every other chance to bid, so he almost always takes the dummy).
  if (seen.tookDummy > 0) assert.equal(seen.ownDummyDiscards, 3);
  else t.diagnostic('the player never took the dummy this time');
});

test('two-handed with a dummy: two seats, 20 cards, two cards to a trick', async () => {
  const seen = await playForm({ name: 'Ed', preset: 'two_handed', players: 2, dummy: true, title: 'Two-handed, with a dummy', shot: trickShot('two-handed.png', 1) });
  assert.ok(seen.dummyWhileBidding > 0);
});

test('two-handed plain: 24 cards, five each, no dummy', async () => {
  await playForm({ name: 'Flo', preset: 'two_handed_plain', players: 2, dummy: false, title: 'Two-handed' });
});

// A three-handed match as the history API gives it (a score per side, the
// winning seats, the dummy once the match is over), one known hand served
// to the page in place of the server's answers, so the list and the
// replay's words can be checked exactly.
function syntheticMatch(me) {
  const rules = {
    players: 3, dummy: true, deck: 'nine_to_ace', points_to_win: 5, all_pass: 'stick_the_dealer',
    scoring: { made: 1, march: 2, lone_march: 4, euchre: 2, lone_euchre: 4, defender_alone_euchre: 4 },
    dealer_may_discard_up_card: true, dealer_picks_up_for_partner_loner: true, turned_down_suit: 'rejected',
    loner_lead: 'left_of_dealer', farmers_hand: false, first_dealer: 'first_jack', canadian_loner: false,
    defend_alone: false, call_for_best: false, joker: false, allow_no_trump: false, rubber: false,
  };
  const summary = {
    id: 'three-1', table_id: 't', number: 1, imported: false, rules,
    seats: [
      { seat: 0, player_id: me, bot: null, name: 'Hy' },
      { seat: 1, player_id: null, bot: 'basic', name: 'basic' },
      { seat: 2, player_id: null, bot: 'basic', name: 'basic' },
    ],
    started_at: Date.UTC(2026, 10, 25, 12), ended_at: Date.UTC(2026, 10, 25, 12, 20), finished: true,
    scores: [3, 5, 2], winner: 1, winners: [1], rubber: [],
  };
  const trick = (winner, ...plays) => ({ plays: plays.map(([seat, card]) => ({ seat, card })), winner });
  const hand = {
    number: 0, dealer: 2, up_card: 'Ad',
    hands: [['As', 'Ks', 'Qs', 'Js', '9h'], ['Ah', 'Kh', 'Qh', 'Jh', 'Th'], ['Ac', 'Kc', 'Qc', 'Jc', 'Tc']],
    dummy: ['Kd', 'Qd', 'Jd'], kitty: ['9s', 'Ts', '9c', '9d', 'Td', '9h'],
    actions: [
      { seat: 0, action: 'pass' }, { seat: 1, action: 'order_up', alone: false }, { seat: 2, action: 'discard', card: 'Tc' },
      { seat: 1, action: 'discard', card: 'Th' }, { seat: 1, action: 'discard', card: 'Qh' }, { seat: 1, action: 'discard', card: 'Kh' },
    ],
    tricks: [
      trick(1, [0, 'As'], [1, 'Jd'], [2, 'Ac']), trick(1, [1, 'Jh'], [2, 'Ad'], [0, '9h']), trick(1, [1, 'Kd'], [2, 'Kc'], [0, 'Ks']),
      trick(1, [1, 'Qd'], [2, 'Qc'], [0, 'Qs']), trick(1, [1, 'Ah'], [2, 'Jc'], [0, 'Js']),
    ],
    outcome: { ending: 'played', maker: 1, makers: 1, trump: 'diamonds', alone: false, tricks: [0, 5, 0], points: [0, 2, 0] },
    scores: [3, 5, 2],
  };
  return { summary, match: { ...summary, cards_revealed: true, first_dealer: 2, hands: [hand] } };
}

test("History in the API's per-side shape: a three-handed match, its scores, winner and dummy", async () => {
  const page = await env.player('Hy');
  const me = await page.evaluate(() => JSON.parse(localStorage.getItem('euchre.identity')).id);
  const { summary, match } = syntheticMatch(me);
  await page.route((url) => url.pathname === '/api/matches', (route) => route.fulfill({ json: { matches: [summary], next_cursor: null } }));
  await page.route((url) => url.pathname === '/api/matches/three-1', (route) => route.fulfill({ json: match }));
  // The replay asks for the match's analysis: still queued, as far as this page knows.
  await page.route((url) => url.pathname === '/api/matches/three-1/analysis', (route) => route.fulfill({ status: 202, headers: { 'retry-after': '60' }, json: { status: 'queued' } }));

  await page.getByRole('link', { name: 'History', exact: true }).click();
  const row = page.locator('.match-row').first();
  await row.waitFor();
  assert.equal(await row.locator('.match-result').textContent(), 'Lost');
  assert.equal(await row.locator('.match-score').textContent(), 'You 3, Left bot 5, Right bot 2');
  assert.match(await row.textContent(), /against Left bot and Right bot/);
  assert.match(await row.textContent(), /Three-handed, with a dummy, 3 players, to 5/);

  await row.getByRole('link', { name: /Replay/ }).click();
  await page.locator('.replay[data-hand="0"][data-step="0"]').waitFor();
  assert.equal(await page.locator('.replay-summary').textContent(), 'Left bot won — You 3, Left bot 5, Right bot 2 · Three-handed, with a dummy, 3 players, to 5');
  assert.equal(await page.locator('.replay-felt .seat').count(), 3);
  assert.deepEqual(await scoreBoard(page, '.replay-side'), [['You', 0], ['Left bot', 0], ['Right bot', 0]]);
  const dummy = page.locator('.replay-felt .dummy-pile');
  assert.equal(await dummy.locator('.card').count(), 3, 'the dummy, face up once the match is over');
  assert.equal(await dummy.locator('.caption').textContent(), 'The dummy');
  await page.keyboard.press('ArrowRight');
  await page.locator('.replay[data-step="1"]').waitFor();
  assert.equal(await dummy.locator('.caption').textContent(), 'The dummy, taken by Left bot');
  for (let i = 0; i < 5; i += 1) await page.keyboard.press('ArrowRight');
  await page.locator('.replay[data-last="true"]').waitFor();
  assert.equal(await page.locator('.replay-felt .trick .card').count(), 3);
  assert.equal(await dummy.locator('.card.spent').count(), 3, 'every dummy card played by the end');
  assert.deepEqual(await scoreBoard(page, '.replay-side'), [['You', 3], ['Left bot', 5], ['Right bot', 2]]);
  assert.equal(await page.locator('.replay-side .outcome').textContent(), 'March! Left bot called diamonds and took 5 tricks: Left bot +2.');
  assert.equal(await page.locator('.match-end').textContent(), 'Left bot wins the game: You 3, Left bot 5, Right bot 2.');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('a three-seat table on a phone: every seat, the dummy and the hand fit the screen', async () => {
  const page = await env.player('Gus', { viewport: { width: 390, height: 844 } });
  await createTable(page, { preset: 'three_handed', points: 5 });
  await page.locator('.hand .card').first().waitFor();
  await assertSeats(page, 3);
  // Every part the selector finds, measured in one look: the page moves on
  // between two (a dummy pile can go before a second look would reach it).
  const fits = async (selector) => {
    const boxes = await page.locator(selector).evaluateAll((parts) => parts
      .map((part) => part.getBoundingClientRect())
      .filter((box) => box.width > 0 || box.height > 0)
      .map(({ x, width }) => ({ x, width })));
    for (const { x, width } of boxes) {
      assert.ok(x >= 0 && x + width <= 390, `${selector} fits the width: ${x} + ${width}`);
    }
    return boxes.length;
  };
  // Until a trick is on the table: then every part has been drawn once.
  for (let i = 0; i < 400 && await page.locator('.trick .card').count() < 2; i += 1) {
    if (await page.locator('.dummy-pile').count() > 0) await fits('.dummy-pile');
    if (!await playOneStep(page)) await page.waitForTimeout(25);
  }
  // The felt may be between two views (a hand's last trick held with its
  // result), and may move on again between a wait and a look: look until
  // one look finds all three seats drawn (each look checks what it finds).
  let seats = 0;
  for (let i = 0; i < 200 && seats !== 3; i += 1) {
    seats = await fits('.felt .seat');
    if (seats !== 3) await page.waitForTimeout(25);
  }
  assert.equal(seats, 3);
  assert.ok(await fits('.hand .card') > 0, 'the hand is on screen');
  await fits('.trick .card');
  assert.ok(await page.evaluate(() => document.scrollingElement.scrollWidth <= innerWidth), 'no sideways scrolling');
  await page.screenshot({ path: join(SCREENSHOTS, '..', '..', 'target', 'three-handed-phone.png') }).catch(() => {});
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
