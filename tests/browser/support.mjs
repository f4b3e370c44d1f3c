// Shared by the browser tests: start the real server binary on a free port
// with a fresh data folder, launch Debian's Chromium, and small helpers to
// drive the client the way a person would (only through what is on screen).

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SCREENSHOTS = join(ROOT, 'docs', 'screenshots');
const BINARY = process.env.EUCHRE_SERVER_BIN ?? join(ROOT, 'target', 'debug', 'euchre-server');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

// Starts the server; resolves to { url, data, stop() } once it logs its
// address. `data` and `bind` let a test start it again where it was;
// `stop({ keep: true })` leaves the data folder for that.
export async function startServer({ botDelayMs = 0, data = null, bind = '127.0.0.1:0' } = {}) {
  data ??= mkdtempSync(join(tmpdir(), 'euchre-browser-'));
  const child = spawn(BINARY, [
    '--bind', bind, '--log-format', 'json',
    '--data-dir', data, '--database-url', `sqlite://${data}/e.db`,
  ], {
    env: {
      ...process.env,
      EUCHRE_TIMING__BOT_DELAY_MS: String(botDelayMs),
      EUCHRE_TIMING__RECONNECT_AFTER_MS: '300',
      RUST_LOG: 'info',
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
    async stop({ keep = false } = {}) {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
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
// sooner), else pass. Returns what it did, or null when nothing was to do.
export async function playOneStep(page) {
  const card = page.locator('.hand .card[data-legal="true"]').first();
  const makeTrump = page.locator('.bids button:not([disabled]):not([data-action="pass"])').first();
  const pass = page.locator('.bids button[data-action="pass"]:not([disabled])');
  let target = null;
  for (const candidate of [card, makeTrump, pass]) {
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

export async function gameOver(page) {
  return (await page.locator('.game-over').count()) > 0;
}
