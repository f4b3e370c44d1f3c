// #/moderation, for moderators and admins only (the server refuses its
// routes to anyone else, and the page is linked only once the server said
// the role): the open reports, a player looked up by name or id (their
// view, and the actions on them), bans of addresses, and the moderation
// log for admins. And the page a banned player sees instead of any other.

import { h, replaceChildren } from './dom.js';
import { api } from './account.js';

// The caller's role, or null (no role, a guest, or the server not saying).
export async function askRole(token) {
  try {
    return (await api('GET', '/api/sessions/current', { token }))?.role ?? null;
  } catch {
    return null;
  }
}

const REASONS = {
  abusive_chat: 'abusive chat',
  cheating_or_collusion: 'cheating or collusion',
  throwing_games: 'throwing games',
  offensive_name: 'an offensive name',
  other: 'other',
};

function when(ms) {
  return ms == null ? 'for good' : new Date(ms).toLocaleString();
}

// What a banned player sees on every page: the server's words, which say
// until when.
export class BannedView {
  constructor(reason) {
    this.root = h('section', { class: 'card-panel banned', 'data-banned': '' },
      h('h1', {}, 'Banned'),
      h('p', { class: 'ban-reason' }, `A moderator banned this account: ${reason}.`),
      h('p', {}, 'You cannot play here until the ban ends.'));
  }

  mount(container) {
    replaceChildren(container, this.root);
  }
}

// `app`: token(), role() ('moderator' or 'admin'), notice(text, kind).
export class ModerationView {
  constructor(app) {
    this.app = app;
    this.player = null;
    this.reports = null; // the open reports, once loaded
    this.reportsError = null;
    // Filled in place as they load, so that a load never redraws the
    // forms (and what was being typed in them).
    this.reportsBox = h('div', { class: 'reports-box' }, h('p', { class: 'muted' }, 'Loading…'));
    this.logBox = h('div', { class: 'log-box' }, h('p', {}, 'Loading…'));
    this.root = h('section', { class: 'moderation card-panel' });
  }

  mount(container) {
    replaceChildren(container, this.root);
    this.render();
    this.loadReports();
    if (this.app.role() === 'admin') this.loadLog();
  }

  call(method, url, body = null) {
    return api(method, url, { token: this.app.token(), body });
  }

  render() {
    const lookup = h('form', { class: 'lookup', onsubmit: (event) => this.lookUp(event) },
      h('label', { for: 'mod-who' }, 'Player (name or id)'),
      h('input', { id: 'mod-who', name: 'who', required: true, autocomplete: 'off' }),
      h('button', { type: 'submit' }, 'Look up'));
    const addressForm = h('form', { class: 'address-ban', onsubmit: (event) => event.preventDefault() },
      h('label', { for: 'mod-address' }, 'Address or its hash'),
      h('input', { id: 'mod-address', name: 'address', required: true, autocomplete: 'off' }),
      h('label', { for: 'mod-address-minutes' }, 'Minutes (a week at most)'),
      h('input', { id: 'mod-address-minutes', name: 'minutes', type: 'number', min: 1, max: 10080, value: 60 }),
      h('label', { for: 'mod-address-reason' }, 'Reason'),
      h('input', { id: 'mod-address-reason', name: 'reason', maxlength: 500 }),
      h('button', { type: 'button', onclick: () => this.address(addressForm, 'ban') }, 'Ban the address'),
      h('button', { type: 'button', onclick: () => this.address(addressForm, 'lift') }, 'Lift its ban'));
    replaceChildren(this.root,
      h('h1', {}, 'Moderation'),
      h('section', { class: 'reports', 'data-reports': '' },
        h('h2', {}, 'Open reports'), this.reportsBox),
      h('section', { class: 'player-lookup' }, h('h2', {}, 'A player'), lookup,
        this.player ? this.playerPanel(this.player) : null),
      h('section', { class: 'addresses' }, h('h2', {}, 'An address'), addressForm),
      this.app.role() === 'admin'
        ? h('section', { class: 'log' }, h('h2', {}, 'The moderation log'), this.logBox)
        : null);
  }

  // The open reports, oldest first, each with its evidence as the server
  // attached it: the reported player's chat lines and the match (whose
  // replay and analysis the link opens).
  reportList() {
    if (this.reports === null) return h('p', { class: 'muted' }, this.reportsError ?? 'Loading…');
    if (this.reports.length === 0) return h('p', { class: 'muted' }, 'No open reports.');
    const name = (player) => player.name ?? player.id;
    return h('ol', { class: 'report-list' }, this.reports.map((report) => h('li', { class: 'report', 'data-report': String(report.id) },
      h('p', {}, h('strong', {}, name(report.reported)), ` reported by ${name(report.reporter)}, ${when(report.at)}: ${REASONS[report.reason] ?? report.reason}`),
      report.details ? h('blockquote', {}, report.details) : null,
      report.chat.length
        ? h('ul', { class: 'report-chat', 'aria-label': 'Their chat at the table' }, report.chat.map((line) => h('li', {}, `${new Date(line.at).toLocaleTimeString()}: ${line.text}`)))
        : h('p', { class: 'muted' }, 'No chat lines with it.'),
      h('p', {},
        report.match_id ? h('a', { href: `#/history/${encodeURIComponent(report.match_id)}` }, 'The match: its replay and analysis') : null,
        ' ',
        h('button', { type: 'button', 'data-action': 'look-up', onclick: () => this.lookUp(null, report.reported.id) }, `Look up ${name(report.reported)}`)),
      h('form', { class: 'close-report', onsubmit: (event) => this.closeReport(event, report.id) },
        h('label', { for: `mod-note-${report.id}` }, 'Note (what was done)'),
        h('input', { id: `mod-note-${report.id}`, name: 'note', required: true, maxlength: 500 }),
        h('button', { type: 'submit' }, 'Close the report')))));
  }

  async loadReports() {
    try {
      this.reports = (await this.call('GET', '/api/admin/reports')).reports;
      this.reportsError = null;
    } catch (error) {
      this.reports = null;
      this.reportsError = error.message;
    }
    replaceChildren(this.reportsBox, this.reportList());
  }

  async closeReport(event, id) {
    event.preventDefault();
    const note = new FormData(event.target).get('note');
    try {
      await this.call('POST', `/api/admin/reports/${id}/close`, { note });
      this.app.notice('The report is closed.');
      await this.loadReports();
      if (this.app.role() === 'admin') this.loadLog();
    } catch (error) {
      this.app.notice(error.message, 'error');
    }
  }

  async lookUp(event, id = null) {
    event?.preventDefault();
    const who = event ? new FormData(event.target).get('who') : id ?? this.player?.id;
    try {
      this.player = await this.call('GET', `/api/admin/players/${encodeURIComponent(who)}`);
    } catch (error) {
      this.player = null;
      this.app.notice(error.message, 'error');
    }
    this.render();
  }

  playerPanel(player) {
    const form = h('form', { class: 'actions', onsubmit: (event) => event.preventDefault() },
      h('label', { for: 'mod-reason' }, 'Reason (a warning\'s text)'),
      h('input', { id: 'mod-reason', name: 'reason', maxlength: 500 }),
      h('label', { for: 'mod-minutes' }, 'Minutes (empty: a ban for good)'),
      h('input', { id: 'mod-minutes', name: 'minutes', type: 'number', min: 1 }),
      ...['warn', 'mute', 'unmute', 'ban', 'unban', 'rename'].map((action) =>
        h('button', { type: 'button', 'data-action': action, onclick: () => this.act(form, action) }, action)));
    const list = (items, render) => (items.length ? h('ul', {}, items.map((item) => h('li', {}, render(item)))) : h('p', {}, 'None.'));
    return h('article', { class: 'dossier', 'data-player': player.id },
      h('h3', {}, `${player.name} `, h('small', {}, player.account ? 'account' : 'guest', player.role ? `, ${player.role}` : '')),
      h('p', {}, player.banned ? `Banned until ${when(player.banned.until)}.` : 'Not banned.',
        ' ', player.muted_until ? `Chat muted until ${when(player.muted_until)}.` : ''),
      form,
      h('h4', {}, 'Names taken away'), list(player.former_names, (n) => `${n.name} (until ${when(n.until)})`),
      h('h4', {}, 'Recent matches'), list(player.recent_matches, (m) => h('a', { href: `#/history/${encodeURIComponent(m.id)}` }, new Date(m.started_at).toLocaleString())),
      h('h4', {}, 'Actions'), list(player.actions, (a) => `${when(a.at)}: ${a.action} by ${a.actor.name ?? a.actor.id}${a.reason ? ` (${a.reason})` : ''}`),
      h('h4', {}, 'Addresses (hashed)'), list(player.addresses, (a) => `${a.address_hash}: ${a.other_players} other players`));
  }

  async act(form, action) {
    const values = Object.fromEntries(new FormData(form));
    const body = { reason: values.reason ?? '' };
    if (values.minutes) body.minutes = Number(values.minutes);
    try {
      const done = await this.call('POST', `/api/admin/players/${encodeURIComponent(this.player.id)}/${action}`, body);
      this.app.notice(`${action}: done${done.until ? `, until ${when(done.until)}` : ''}${done.name ? `, now ${done.name}` : ''}`);
      await this.lookUp();
      if (this.app.role() === 'admin') this.loadLog();
    } catch (error) {
      this.app.notice(error.message, 'error');
    }
  }

  async address(form, what) {
    const values = Object.fromEntries(new FormData(form));
    const given = values.address.trim();
    const body = /^[0-9a-f]{32}$/i.test(given) ? { address_hash: given } : { address: given };
    body.reason = values.reason ?? '';
    if (what === 'ban') body.minutes = Number(values.minutes);
    try {
      await this.call('POST', what === 'ban' ? '/api/admin/address-bans' : '/api/admin/address-bans/lift', body);
      this.app.notice(what === 'ban' ? 'The address is banned.' : 'The address is let in again.');
    } catch (error) {
      this.app.notice(error.message, 'error');
    }
  }

  async loadLog() {
    let table;
    try {
      const log = await this.call('GET', '/api/admin/log');
      table = h('table', {},
        h('thead', {}, h('tr', {}, ['When', 'Who', 'What', 'To whom', 'Why'].map((c) => h('th', {}, c)))),
        h('tbody', {}, log.entries.map((e) => h('tr', {},
          h('td', {}, when(e.at)), h('td', {}, e.actor.name ?? e.actor.id), h('td', {}, e.action),
          h('td', {}, e.target?.name ?? e.target?.id ?? ''), h('td', {}, e.reason)))));
    } catch (error) {
      table = h('p', {}, error.message);
    }
    replaceChildren(this.logBox, table);
  }
}
