// What a player does about another (docs/protocol.md, "Mutes, blocks and
// reports"): mute, block and report, over the WebSocket. The server keeps
// the lists (an account's for good, a guest's while it runs) and hides a
// muted player's chat before it leaves for this page; the report's
// evidence (the match, the player's lines at the table) is the server's
// to attach. Here: the menu on a player's name, the report form, and the
// lists with their Undo buttons on the account page.

import { h, replaceChildren } from './dom.js';

export const REPORT_REASONS = [
  ['abusive_chat', 'Abusive chat'],
  ['cheating_or_collusion', 'Cheating or collusion'],
  ['throwing_games', 'Throwing games'],
  ['offensive_name', 'Offensive name'],
  ['other', 'Something else'],
];
const DETAILS_MAX = 500;

// `client` (js/main.js) gives: connection, notice(text, kind), failed(error).
// Gives: social, with mute/block/undo, report(target) and lists().
export function socialFlow(client) {
  const send = (message) => client.connection.send(message);
  // Names seen for players on the lists: a guest's lists come back by id.
  const names = new Map();

  async function relate(type, player, done) {
    try {
      await send({ type, player: player.id });
      if (player.name) names.set(player.id, player.name);
      client.notice(done);
      return true;
    } catch (error) {
      client.failed(error);
      return false;
    }
  }

  const social = {
    mute: (player) => relate('mute', player, `${player.name}'s chat is hidden from you now, at every table.`),
    block: (player) => relate('block', player, `You blocked ${player.name}: you will not be seated together, and their chat is hidden.`),
    unmute: (player) => relate('unmute', player, `${player.name ?? 'The player'} is no longer muted.`),
    unblock: (player) => relate('unblock', player, `${player.name ?? 'The player'} is no longer blocked.`),
    async lists() {
      const answer = await send({ type: 'social' });
      const named = (listed) => ({ ...listed, name: listed.name ?? names.get(listed.id) ?? null });
      return { muted: answer.muted.map(named), blocked: answer.blocked.map(named) };
    },
    // `target`: { player: {id, name}, table?, match? } — where it was seen.
    report(target) {
      reportDialog(target, async (reason, details) => {
        await send({
          type: 'report', player: target.player.id, reason, details,
          ...(target.table ? { table: target.table } : {}),
          ...(target.match ? { match_id: target.match } : {}),
        });
        client.notice(`Thank you: your report of ${target.player.name} went to the moderators.`);
      });
    },
  };
  return { social };
}

// Whose menu is open: the table is drawn again at every event, and an open
// menu (and the focus in it) stays open across the redraws.
let openFor = null;

// The menu on another player's name: Mute, Block, Report… The name is the
// menu's summary, with `nameClass` (the table's `seat-name`).
export function playerMenu(social, player, where, label = player.name, nameClass = null) {
  const item = (action, text, act) => h('button', {
    type: 'button', 'data-action': action, 'data-focus': `${action}-${player.id}`,
    onclick: () => {
      openFor = null;
      menu.open = false;
      act();
    },
  }, text);
  const menu = h('details', {
    class: 'player-menu',
    open: openFor === player.id,
    ontoggle: () => { if (menu.isConnected) openFor = menu.open ? player.id : (openFor === player.id ? null : openFor); },
  },
  h('summary', { class: nameClass, 'data-player': player.id, 'data-focus': `menu-${player.id}` }, label),
  h('div', { class: 'player-menu-items', role: 'group', 'aria-label': `About ${player.name}` },
    item('mute', 'Mute', () => social.mute(player)),
    item('block', 'Block', () => social.block(player)),
    item('report', 'Report…', () => social.report({ player, ...where }))));
  return menu;
}

// The report form, in a modal dialog: a reason, a few words, Send.
function reportDialog(target, submit) {
  const reason = h('select', { id: 'report-reason', name: 'reason', required: true },
    REPORT_REASONS.map(([value, title]) => h('option', { value }, title)));
  const details = h('textarea', { id: 'report-details', name: 'details', maxlength: String(DETAILS_MAX), rows: '4' });
  const error = h('p', { class: 'error', role: 'alert', hidden: true });
  const dialog = h('dialog', { class: 'report-dialog', 'aria-labelledby': 'report-title' });
  const form = h('form', {
    method: 'dialog',
    onsubmit: async (event) => {
      event.preventDefault();
      const button = form.querySelector('button[type="submit"]');
      button.disabled = true;
      try {
        await submit(reason.value, details.value);
        dialog.close();
      } catch (failure) {
        error.hidden = false;
        replaceChildren(error, failure.message);
      } finally {
        button.disabled = false;
      }
    },
  },
  h('h2', { id: 'report-title' }, 'Report ', h('bdi', {}, target.player.name)),
  h('p', { class: 'muted' }, target.table
    ? 'The moderators see this game and what this player wrote in its chat.'
    : target.match ? 'The moderators see this game.' : 'The moderators see this player.'),
  h('label', { for: 'report-reason' }, 'Why'), reason,
  h('label', { for: 'report-details' }, `What happened (up to ${DETAILS_MAX} characters)`), details,
  error,
  h('div', { class: 'dialog-actions' },
    h('button', { type: 'button', onclick: () => dialog.close() }, 'Cancel'),
    h('button', { type: 'submit', class: 'primary' }, 'Send report')));
  dialog.append(form);
  dialog.addEventListener('close', () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  reason.focus();
}

// The account page's lists: each player with an Undo.
export class SocialLists {
  constructor(social) {
    this.social = social;
    this.root = h('section', { class: 'social-lists', 'aria-labelledby': 'social-title' },
      h('h2', { id: 'social-title' }, 'Muted and blocked players'), h('p', { class: 'muted' }, 'Loading…'));
    this.load();
  }

  async load() {
    try {
      this.render(await this.social.lists());
    } catch (error) {
      replaceChildren(this.root, h('h2', { id: 'social-title' }, 'Muted and blocked players'), h('p', {}, error.message));
    }
  }

  render({ muted, blocked }) {
    const list = (kind, players, undo) => (players.length === 0
      ? h('p', { class: 'muted', dataset: { list: kind } }, kind === 'muted' ? 'Nobody muted.' : 'Nobody blocked.')
      : h('ul', { class: 'social-list', dataset: { list: kind } }, players.map((player) => h('li', {},
        h('bdi', {}, player.name ?? 'A guest'), ' ',
        h('button', {
          type: 'button', class: 'link', 'data-undo': player.id,
          onclick: async () => { if (await undo(player)) this.load(); },
        }, 'Undo')))));
    replaceChildren(this.root,
      h('h2', { id: 'social-title' }, 'Muted and blocked players'),
      h('h3', {}, 'Muted: their chat is hidden from you'),
      list('muted', muted, (p) => this.social.unmute(p)),
      h('h3', {}, 'Blocked: never seated with you, their chat hidden'),
      list('blocked', blocked, (p) => this.social.unblock(p)));
  }
}
