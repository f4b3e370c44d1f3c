// Shared by the browser tests: start the real server binary on a free port
// with a fresh data folder, launch Debian's Chromium, and small helpers to
// drive the client the way a person would (only through what is on screen).

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { chromium } from 'playwright-core';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SCREENSHOTS = join(ROOT, 'docs', 'screenshots');
const BINARY = process.env.EUCHRE_SERVER_BIN ?? join(ROOT, 'target', 'debug', 'euchre-server');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

// Starts the server; resolves to { url, data, stop() } once it logs its
// address. `data` and `bind` let a test start it again where it was;
// `stop({ keep: true })` leaves the data folder for that, and
// `stop({ signal: 'SIGKILL' })` crashes it rather than stop it. `env` adds
// settings (`EUCHRE_LIMITS__…`).
export async function startServer({ botDelayMs = 0, data = null, bind = '127.0.0.1:0', env = {} } = {}) {
  data ??= mkdtempSync(join(tmpdir(), 'euchre-browser-'));
  const child = spawn(BINARY, [
    '--bind', bind, '--log-format', 'json',
    '--data-dir', data, '--database-url', `sqlite://${data}/e.db`,
  ], {
    env: {
      ...process.env,
      EUCHRE_TIMING__BOT_DELAY_MS: String(botDelayMs),
      EUCHRE_TIMING__RECONNECT_AFTER_MS: '300',
      // Every replay opened asks for the match's analysis: a few worlds
      // keep that background work small on a CI box.
      EUCHRE_ANALYSIS__WORLDS: '16',
      // Browser tests finish matches constantly; the analysis tests ask.
      EUCHRE_ANALYSIS__AT_MATCH_END: 'false',
      RUST_LOG: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const address = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the server did not log its address in 20 s')), 20000);
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}`)));
    lines.on('line', (line) => {
      try {
        const entry = JSON.parse(line);
        if (entry.fields?.address) {
          clearTimeout(timer);
          resolve(entry.fields.address);
        }
      } catch {
        // not JSON: ignore
      }
    });
  });
  // Keep draining the log so the server never blocks on a full pipe.
  lines.on('line', () => {});
  return {
    url: `http://${address}`,
    address,
    data,
    async stop({ keep = false, signal = 'SIGTERM' } = {}) {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill(signal);
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      if (!keep) rmSync(data, { recursive: true, force: true });
    },
  };
}

export async function launchBrowser() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

// A fresh browser profile (its own localStorage: its own guest) on the
// client, with console errors and page errors collected for the test to check.
export async function openPlayer(browser, url, name, { viewport = { width: 1280, height: 860 } } = {}) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  // CI machines are small and sometimes busy: waits get room, steps stay short.
  page.setDefaultTimeout(60000);
  page.problems = [];
  page.on('pageerror', (error) => page.problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') page.problems.push(`console: ${message.text()}`);
  });
  await page.goto(url);
  await page.getByLabel('Display name').fill(name);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.locator('#connection[data-status="online"]').waitFor();
  return page;
}

// One step of play, clicked as a person would (Playwright's real mouse
// click, which also checks the control is visible, enabled and not covered):
// the first legal card, else the first bid that makes trump (a game ends
// sooner), else pass; with `pass`, a pass where one is allowed. Returns
// what it did, or null when nothing was to do.
export async function playOneStep(page, { pass: preferPass = false } = {}) {
  const card = page.locator('.hand .card[data-legal="true"]').first();
  const makeTrump = page.locator('.bids button:not([disabled]):not([data-action="pass"])').first();
  const pass = page.locator('.bids button[data-action="pass"]:not([disabled])');
  let target = null;
  for (const candidate of preferPass ? [card, pass, makeTrump] : [card, makeTrump, pass]) {
    if (await candidate.count() > 0) {
      target = candidate;
      break;
    }
  }
  if (!target) return null;
  try {
    const what = (await target.getAttribute('data-card', { timeout: 1000 }))
      ?? (await target.getAttribute('data-action', { timeout: 1000 }));
    await target.click({ timeout: 2000 });
    return what;
  } catch {
    return null; // the choice went away meanwhile (the turn passed): look again
  }
}

// Plays at every page given until `done()` is true or time runs out.
export async function playUntil(pages, done, { timeoutMs = 90000, onStep } = {}) {
  const deadline = Date.now() + timeoutMs;
  let steps = 0;
  while (Date.now() < deadline) {
    if (await done()) return steps;
    let acted = false;
    for (const page of pages) {
      const step = await playOneStep(page);
      if (step) {
        acted = true;
        steps += 1;
        if (onStep) await onStep(page, step, steps);
      }
    }
    if (!acted) await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`play did not finish within ${timeoutMs} ms (${steps} steps)`);
}

// The host's rematch, when a game ended before what a test waits for:
// 'rematch' if it was clicked, else null.
export async function rematchStep(page) {
  const rematch = page.getByRole('button', { name: 'Rematch' });
  if (await rematch.count() === 0) return null;
  try {
    await rematch.click({ timeout: 2000 });
    return 'rematch';
  } catch {
    return null;
  }
}

export async function gameOver(page) {
  return (await page.locator('.game-over').count()) > 0;
}

// The set-up every test file shares: one server (with `serverOptions`) and
// one browser for the file, started before its first test and stopped
// after its last. Returns `env`, filled in once started: `env.server`,
// `env.browser`, and `env.player(name, options)`, a fresh guest's page
// whose browser context is closed with the rest at the end.
export function withServerAndBrowser(serverOptions = {}) {
  const contexts = [];
  const env = {
    server: null,
    browser: null,
    async player(name, options) {
      const page = await openPlayer(env.browser, env.server.url, name, options);
      contexts.push(page.context());
      return page;
    },
  };
  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    env.server = await startServer(serverOptions);
    env.browser = await launchBrowser();
  });
  after(async () => {
    for (const context of contexts) await context.close().catch(() => {});
    await env.browser?.close();
    await env.server?.stop();
  });
  return env;
}

// Fills in and submits the lobby's "New table" form: `preset` the rules
// (a value of its list: 'standard', 'cutthroat', 'two_handed', …); `bots`
// the seats (1 to 3, as many as the form has) bots take, the others wait
// for people; `more` the "More rules" boxes to tick, by the start of their
// label. Resolves once the table shows.
export async function createTable(page, { preset = null, bots = [1, 2, 3], points = null, more = [], isPrivate = false } = {}) {
  // The lobby first: a click on its link mounts it a moment later (on the
  // hashchange), and the boxes below are listed without waiting. Listed
  // too early, none were unticked and the table was made with its default
  // three bots, leaving no seat for the next player (the accounts test's
  // "Sit here" timeouts, one run in ten).
  await page.locator('.bot-seats input[type="checkbox"]').first().waitFor();
  if (preset) await page.getByLabel('Rules', { exact: true }).selectOption(preset);
  // The form offers a box for each seat but the player's own.
  for (const box of await page.locator('.bot-seats input[type="checkbox"]').all()) {
    await box.setChecked(bots.includes(Number(await box.getAttribute('value'))));
  }
  if (points) await page.getByLabel('Points to win').selectOption(String(points));
  if (isPrivate) await page.getByLabel('Table', { exact: true }).selectOption('private');
  if (more.length > 0) {
    await page.getByText('More rules').click();
    for (const label of more) await page.getByLabel(new RegExp(`^\\s*${label}`)).check();
  }
  await page.getByRole('button', { name: 'Create table' }).click();
  await page.locator('.felt').waitFor();
  return page.url();
}

// Takes `seat` (0 to 3) at the table behind `link`, by its "Sit here" button.
export async function takeSeat(page, link, seat) {
  await page.goto(link);
  await page.locator(`[data-sit="${seat}"]`).click();
  await page.locator('.seat-bottom .seat-name', { hasText: 'You' }).waitFor();
}

// Opens History and returns its first row once it shows a finished match:
// a match is stored a moment after it ends, so the list is opened again
// (through the lobby) until it does.
export async function firstStoredMatch(page) {
  await page.getByRole('link', { name: 'History', exact: true }).click();
  const row = page.locator('.match-row').first();
  for (let i = 0; i < 50 && !/Won|Lost/.test((await row.textContent({ timeout: 10000 }).catch(() => '')) ?? ''); i += 1) {
    await page.waitForTimeout(200);
    await page.getByRole('link', { name: 'Lobby', exact: true }).click();
    await page.getByRole('link', { name: 'History', exact: true }).click();
  }
  return row;
}

// Plays `count` whole games for the page's own guest, straight over the
// protocol from inside the page (its saved token, so they are this
// player's matches): one private table of `preset` ('standard' unless
// said) with bots in every other seat, games to 1 point, each hand made
// and then conceded (or, `playOut`, each choice made at random and every
// card played, for decisions the puzzles can be mined from), a rematch
// after each game. Resolves to the number of games finished.
export async function playQuickGames(page, count, { preset = 'standard', players = 4, playOut = false } = {}) {
  const bots = Array.from({ length: players - 1 }, (_, i) => i + 1);
  return page.evaluate(async ({ games, preset, bots, playOut }) => {
    const { token } = JSON.parse(localStorage.getItem('euchre.identity'));
    const ws = new WebSocket(`ws://${location.host}/ws`);
    await new Promise((resolve, reject) => {
      ws.addEventListener('open', resolve);
      ws.addEventListener('error', reject);
    });
    let id = 0;
    let lastSent = 0;
    const waiting = new Map();
    let table = null;
    let seq = 0;
    let prompt = null;
    let inFlight = false;
    let finished = 0;
    let onGameOver = null;
    // Well under the server's rate limit (20 a second).
    const send = async (command) => {
      const wait = lastSent + 80 - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      lastSent = Date.now();
      id += 1;
      const mine = id;
      return new Promise((resolve) => {
        waiting.set(mine, resolve);
        ws.send(JSON.stringify({ ...command, id: mine }));
      });
    };
    // The quickest end: make trump (so a concession is a euchre), then concede.
    const anyButConceding = (actions) => {
      const open = actions.filter((a) => a.action !== 'concede');
      return open[Math.floor(Math.random() * open.length)] ?? actions[0];
    };
    const choose = (actions) => (playOut ? anyButConceding(actions) : null)
      ?? actions.find((a) => a.action === 'concede')
      ?? actions.find((a) => (a.action === 'order_up' || a.action === 'call') && !a.alone)
      ?? actions.find((a) => a.action !== 'pass')
      ?? actions[0];
    const actNow = () => {
      if (inFlight || !prompt || prompt.seq < seq) return;
      const action = choose(prompt.actions);
      prompt = null;
      inFlight = true;
      send({ type: 'act', table, ...action }).then(() => {
        inFlight = false;
        actNow();
      });
    };
    ws.addEventListener('message', (frame) => {
      const message = JSON.parse(frame.data);
      if (message.id !== undefined && waiting.has(message.id)) {
        waiting.get(message.id)(message);
        waiting.delete(message.id);
      }
      if (message.table !== table) return;
      if (message.type === 'snapshot' || message.type === 'event') seq = Math.max(seq, message.seq);
      if (message.type === 'event' && message.event?.event === 'game_won') {
        finished += 1;
        prompt = null;
        onGameOver?.();
      }
      if (message.type === 'your_turn') {
        prompt = message;
        actNow();
      }
    });
    await send({ type: 'hello', protocol_version: 1, token });
    const created = await send({ type: 'create_table', preset, rules: { points_to_win: 1 }, private: true, bot_seats: bots, bot: 'basic', chat: false });
    table = created.table;
    for (let game = 0; game < games; game += 1) {
      const over = new Promise((resolve) => { onGameOver = resolve; });
      if (game === 0) await send({ type: 'sit', table, seat: 0, invite: created.invite });
      else await send({ type: 'rematch', table });
      await over;
    }
    await send({ type: 'leave', table });
    ws.close();
    return finished;
  }, { games: count, preset, bots, playOut });
}

// The password the tests' accounts claim their names with.
export const PASSWORD = 'correct horse';

// The page's guest claims its name with PASSWORD, on the Account page, and
// is online again as the account.
export async function claim(page, name) {
  await page.getByRole('link', { name: 'Account', exact: true }).click();
  await page.getByLabel('Password (8 characters or more)').fill(PASSWORD);
  await page.getByRole('button', { name: 'Claim name' }).click();
  await page.getByRole('heading', { name: `Your account: ${name}` }).waitFor();
  await page.locator('#connection[data-status="online"]').waitFor();
}
