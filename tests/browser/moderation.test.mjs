// Moderation in a real browser against the real server: the operator makes
// an account a moderator with the server's own command; only that account's
// page links the moderation page; the moderator looks a player up and bans
// them; the banned player's open page is told, with until when, and every
// page says so after, a reload too. Reports are made from the table, a
// replay and a profile, and each reaches the moderator's list.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { claim, createTable, ROOT, withServerAndBrowser } from './support.mjs';

const env = withServerAndBrowser();
const BINARY = process.env.EUCHRE_SERVER_BIN ?? join(ROOT, 'target', 'debug', 'euchre-server');

// `euchre-server admin ARGS` on the test server's database.
function admin(...args) {
  const data = env.server.data;
  return execFileSync(BINARY, ['--data-dir', data, '--database-url', `sqlite://${data}/e.db`, 'admin', ...args],
    { encoding: 'utf8' });
}

test('a moderator bans a player, whose open page is told and who cannot come back', async () => {
  const eve = await env.player('Eve');
  await claim(eve, 'Eve');
  await eve.getByRole('link', { name: 'Lobby', exact: true }).click();
  await createTable(eve);
  await eve.locator('.hand .card').first().waitFor();

  const mo = await env.player('Mo');
  await claim(mo, 'Mo');
  assert.equal(admin('grant', 'Mo', 'moderator'), 'Mo is now a moderator\n');
  // The role is asked at each welcome: a reload shows the link.
  await mo.reload();
  await mo.locator('#connection[data-status="online"]').waitFor();
  const link = mo.getByRole('link', { name: 'Moderation', exact: true });
  await link.waitFor();
  assert.ok(await eve.locator('#moderation-link').isHidden(), 'no link for a player without a role');

  await link.click();
  await mo.getByRole('heading', { name: 'Moderation' }).waitFor();
  await mo.locator('[data-reports]').waitFor();
  await mo.getByLabel('Player (name or id)').fill('eve');
  await mo.getByRole('button', { name: 'Look up' }).click();
  const dossier = mo.locator('.dossier');
  await dossier.getByRole('heading', { name: /^Eve/ }).waitFor();
  await mo.getByLabel('Reason (a warning\'s text)').fill('abuse in chat');
  await mo.getByLabel('Minutes (empty: a ban for good)').fill('60');
  await dossier.locator('button[data-action="ban"]').click();
  await dossier.getByText(/^Banned until /).waitFor();

  // Eve's open page is told at once, with until when.
  const banned = eve.getByRole('heading', { name: 'Banned' });
  await banned.waitFor();
  assert.match(await eve.locator('.ban-reason').textContent(), /banned until \d{4}-\d\d-\d\dT/);
  // Any page says it, and so does a reload: her hello is refused.
  await eve.goto(`${env.server.url}/#/leaderboard`);
  await banned.waitFor();
  await eve.goto(`${env.server.url}/#/history`);
  await banned.waitFor();
  assert.match(await eve.locator('.ban-reason').textContent(), /until/);
  assert.deepEqual(eve.problems, []);
  assert.deepEqual(mo.problems, []);
});

test('a warned player reads the warning once; a renamed one picks a new name', async () => {
  const bob = await env.player('Bob');
  await claim(bob, 'Bob');
  const max = await env.player('Max');
  await claim(max, 'Max');
  admin('grant', 'Max', 'moderator');
  await max.reload();
  await max.getByRole('link', { name: 'Moderation', exact: true }).click();
  await max.getByLabel('Player (name or id)').fill('Bob');
  await max.getByRole('button', { name: 'Look up' }).click();
  const dossier = max.locator('.dossier');
  await dossier.getByRole('heading', { name: /^Bob/ }).waitFor();
  await max.getByLabel('Reason (a warning\'s text)').fill('mind your language');
  await dossier.locator('button[data-action="warn"]').click();
  await dossier.getByText(/warn by Max \(mind your language\)/).waitFor();

  // Shown at the next hello, until read.
  await bob.reload();
  const warning = bob.locator('.notice.warning', { hasText: 'mind your language' });
  await warning.waitFor();
  await warning.getByRole('button', { name: 'I have read this' }).click();
  await warning.waitFor({ state: 'detached' });
  await bob.reload();
  await bob.locator('#connection[data-status="online"]').waitFor();

  // Renamed: told at the next hello, and asked for a new name.
  await max.getByLabel('Reason (a warning\'s text)').fill('offensive name');
  await dossier.locator('button[data-action="rename"]').click();
  await dossier.getByRole('heading', { name: /^Player-/ }).waitFor();
  await bob.reload();
  const renamed = bob.locator('.notice.warning', { hasText: 'took the name "Bob" away' });
  await renamed.waitFor();
  await renamed.getByLabel('Your new name').fill('Robert');
  await renamed.getByRole('button', { name: 'Pick this name' }).click();
  await renamed.waitFor({ state: 'detached' });
  await bob.locator('#player-name', { hasText: 'Robert' }).waitFor();
  await bob.reload();
  await bob.locator('#connection[data-status="online"]').waitFor();
  assert.equal(await bob.locator('#player-name').textContent(), 'Robert');
  assert.equal(await bob.locator('.notice.warning').count(), 0, 'no warning left to read');
  assert.deepEqual(bob.problems, []);
  assert.deepEqual(max.problems, []);
});

test('a player reports another from the table; a moderator reads the chat, opens the replay, bans and closes the report', async () => {
  const eve = await env.player('Zed');
  await claim(eve, 'Zed');
  await eve.getByRole('link', { name: 'Lobby', exact: true }).click();
  const link = await createTable(eve, { bots: [2, 3] });
  const ann = await env.player('Amy');
  await ann.goto(link);
  await ann.locator('[data-sit="1"]').click();
  await ann.locator('.seat-bottom .seat-name', { hasText: 'You' }).waitFor();

  // Zed is rude; Amy reports him from the table.
  await eve.getByRole('textbox', { name: 'Message' }).fill('you are all hopeless');
  await eve.getByRole('button', { name: 'Send' }).click();
  await ann.locator('.chat-log li', { hasText: 'you are all hopeless' }).waitFor();
  await ann.locator('.player-menu summary.seat-name', { hasText: 'Zed' }).click();
  await ann.locator('.player-menu[open]').getByRole('button', { name: 'Report…', exact: true }).click();
  const dialog = ann.getByRole('dialog', { name: 'Report Zed' });
  await dialog.getByLabel('Why').selectOption('abusive_chat');
  await dialog.getByLabel(/What happened/).fill('insults at the table');
  await dialog.getByRole('button', { name: 'Send report' }).click();
  await ann.locator('#notices', { hasText: 'went to the moderators' }).waitFor();

  // The moderator's page lists it with the chat line the server kept.
  const mo = await env.player('Moe');
  await claim(mo, 'Moe');
  admin('grant', 'Moe', 'moderator');
  await mo.reload();
  await mo.getByRole('link', { name: 'Moderation', exact: true }).click();
  const report = mo.locator('.report', { hasText: 'reported by Amy' });
  await report.waitFor();
  assert.match(await report.textContent(), /Zed reported by Amy.*abusive chat/);
  await report.locator('.report-chat li', { hasText: 'you are all hopeless' }).waitFor();
  await report.getByText('insults at the table').waitFor();

  // The match's replay opens from it.
  await report.getByRole('link', { name: 'The match: its replay and analysis' }).click();
  await mo.locator('.replay[data-hand]').waitFor();
  await mo.goBack();

  // Looked up from the report and banned: Zed's open page is told.
  await mo.locator('.report', { hasText: 'reported by Amy' }).getByRole('button', { name: 'Look up Zed' }).click();
  const dossier = mo.locator('.dossier');
  await dossier.getByRole('heading', { name: /^Zed/ }).waitFor();
  await mo.getByLabel('Reason (a warning\'s text)').fill('abuse in chat, reported');
  await mo.getByLabel('Minutes (empty: a ban for good)').fill('1440');
  await dossier.locator('button[data-action="ban"]').click();
  await dossier.getByText(/^Banned until /).waitFor();
  await eve.getByRole('heading', { name: 'Banned' }).waitFor();

  // Closed with a note: the list is empty again.
  const open = mo.locator('.report', { hasText: 'reported by Amy' });
  await open.getByLabel('Note (what was done)').fill('banned for a day');
  await open.getByRole('button', { name: 'Close the report' }).click();
  await mo.locator('[data-reports]').getByText('No open reports.').waitFor();
  assert.deepEqual(mo.problems, []);
  assert.deepEqual(ann.problems, []);
});

test('a player reports another from a replay and from a profile; the moderator sees both', async () => {
  const kim = await env.player('Kim');
  await kim.getByRole('link', { name: 'Lobby', exact: true }).click();
  const link = await createTable(kim, { bots: [2, 3] });
  const lou = await env.player('Lou');
  await lou.goto(link);
  await lou.locator('[data-sit="1"]').click();
  await lou.locator('.seat-bottom .seat-name', { hasText: 'You' }).waitFor();

  // The match they are playing, as the history API lists it.
  let match = null;
  for (let i = 0; i < 50 && !match; i += 1) {
    const list = await (await fetch(`${env.server.url}/api/matches?limit=100`)).json();
    match = list.matches.find((m) => ['Kim', 'Lou'].every((name) => m.seats.some((s) => s.name === name)));
    if (!match) await lou.waitForTimeout(100);
  }
  assert.ok(match, 'the match is listed');
  const kimId = match.seats.find((s) => s.name === 'Kim').player_id;

  const send = async (reason, details) => {
    const dialog = lou.getByRole('dialog', { name: 'Report Kim' });
    await dialog.getByLabel('Why').selectOption(reason);
    await dialog.getByLabel(/What happened/).fill(details);
    await dialog.getByRole('button', { name: 'Send report' }).click();
    const thanks = lou.locator('#notices .notice', { hasText: 'your report of Kim went to the moderators' });
    await thanks.waitFor();
    // Dismissed, so that the next report's thanks is its own.
    await thanks.getByRole('button', { name: 'Dismiss' }).click();
    await thanks.waitFor({ state: 'detached' });
  };
  // From the replay: a button for each other person who played (not for oneself).
  await lou.goto(`${env.server.url}/#/history/${match.id}`);
  // The page says "Loading…" in a .replay section until the match comes:
  // wait for the match itself.
  await lou.locator('.replay[data-hand]').waitFor();
  const buttons = lou.locator('.replay-report button');
  assert.deepEqual(await buttons.allTextContents(), ['Kim']);
  await lou.locator(`.replay-report [data-report="${kimId}"]`).click();
  await send('throwing_games', 'gave the hand away on purpose');

  // From her profile.
  await lou.goto(`${env.server.url}/#/players/${kimId}`);
  await lou.getByRole('heading', { name: 'Kim' }).waitFor();
  await lou.getByRole('button', { name: 'Report this player…' }).click();
  await send('offensive_name', 'her profile name is rude');

  // The moderator's list shows both, the replay's with its match.
  const mo = await env.player('Mod');
  await claim(mo, 'Mod');
  admin('grant', 'Mod', 'moderator');
  await mo.reload();
  await mo.getByRole('link', { name: 'Moderation', exact: true }).click();
  const fromReplay = mo.locator('.report', { hasText: 'gave the hand away on purpose' });
  await fromReplay.waitFor();
  assert.match(await fromReplay.textContent(), /Kim reported by Lou.*throwing games/);
  const matchLink = fromReplay.getByRole('link', { name: 'The match: its replay and analysis' });
  assert.match(await matchLink.getAttribute('href'), new RegExp(match.id));
  const fromProfile = mo.locator('.report', { hasText: 'her profile name is rude' });
  await fromProfile.waitFor();
  assert.match(await fromProfile.textContent(), /Kim reported by Lou.*offensive name/);
  assert.deepEqual(lou.problems, []);
  assert.deepEqual(mo.problems, []);
});

test('an organiser removes a player from the page; a moderator cancels the tournament there', async () => {
  const olive = await env.player('Olive');
  await claim(olive, 'Olive');
  await olive.getByRole('link', { name: 'Lobby', exact: true }).click();
  const section = olive.getByRole('region', { name: 'Tournaments' });
  await section.getByText('Organise a tournament').click();
  await section.getByLabel('Name').fill('Moderated Night');
  await section.getByLabel('Format').selectOption('progressive');
  await section.getByLabel('Starts in (minutes)').fill('30');
  await section.getByRole('button', { name: 'Create tournament' }).click();
  await olive.getByRole('heading', { name: 'Moderated Night' }).waitFor();

  const pat = await env.player('Pat');
  await pat.getByRole('link', { name: 'Moderated Night' }).click();
  await pat.getByRole('heading', { name: 'Moderated Night' }).waitFor();
  assert.equal(await pat.getByRole('button', { name: /^Cancel tournament/ }).count(), 0, 'a player cancels nothing');
  await pat.getByRole('button', { name: 'Register' }).click();
  await pat.getByRole('button', { name: 'Withdraw' }).waitFor();

  // The organiser's page lists her (it polls) with a Remove button.
  await olive.getByRole('button', { name: 'Remove Pat' }).click();
  await olive.getByText('Pat is out of the tournament.').waitFor();
  await olive.getByRole('heading', { name: 'Players (0 of 64)' }).waitFor();
  await pat.getByRole('button', { name: 'Register' }).waitFor();

  // A moderator may cancel it (and remove players), not pause it.
  const mona = await env.player('Mona');
  await claim(mona, 'Mona');
  admin('grant', 'Mona', 'moderator');
  await mona.reload();
  await mona.locator('#connection[data-status="online"]').waitFor();
  await mona.getByRole('link', { name: 'Moderation', exact: true }).waitFor();
  await mona.getByRole('link', { name: 'Lobby', exact: true }).click();
  await mona.getByRole('link', { name: 'Moderated Night' }).click();
  await mona.getByRole('heading', { name: 'Moderated Night' }).waitFor();
  await mona.getByRole('button', { name: 'Cancel tournament (moderator)' }).click();
  await mona.getByRole('button', { name: 'Yes, cancel it' }).click();
  await mona.locator('.tournament-status[data-status="cancelled"]').waitFor();
  assert.match(await mona.locator('.tournament-status').textContent(), /cancelled by a moderator/);
  await olive.locator('.tournament-status[data-status="cancelled"]').waitFor();
  assert.equal(await olive.getByRole('button', { name: /^Cancel tournament/ }).count(), 0, 'nothing to cancel once over');
  for (const page of [olive, pat, mona]) assert.deepEqual(page.problems, []);
});
