// Quick play in the lobby: a button per game form that asks the server for
// a game with strangers (rated or casual, alone or with a partner, bots
// after a wait if the player wants them), and the searching state with the
// time waited, the players waiting and Cancel. The request itself belongs
// to the page's state, not to the panel (it outlasts the lobby view):
// quickPlayFlow keeps it from the server's messages and asks for it.

import { h, replaceChildren } from './dom.js';
import { PRESETS, playersIn } from './rules.js';

// The forms offered: the preset, the button's title and what it says under it.
export const QUICK_FORMS = [
  ['standard', 'Standard', 'Four players, two partnerships'],
  ['cutthroat', 'Cutthroat', 'Three players, the maker alone'],
  ['three_handed', 'Three-handed', 'Three players, with a dummy'],
  ['two_handed_plain', 'Two-handed', 'Two players, 24 cards'],
];

// The waits a casual player may choose before bots fill the missing seats
// (the server takes 5 to 300 seconds).
const BOT_WAITS = [5, 15, 30, 60, 120];

// Refusals that say "not now" rather than "no": a request renewed after a
// reconnection asks again after RENEW_AFTER_MS.
const TRANSIENT = new Set(['busy', 'unavailable', 'rate_limited', 'shutting_down']);
const RENEW_AFTER_MS = 1000;

// Only a form with two sides of two can be played with a partner.
export const hasPartners = (preset) => playersIn(PRESETS[preset].rules) === 4;

// "0:07", "1:32": the time waited.
export function waited(ms) {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

export class QuickPlayPanel {
  // `app` gives: request() (null, or { preset, rated, since, waiting,
  // team, partner, botsAfter }), ask(options), cancel().
  constructor(app) {
    this.app = app;
    this.timer = null;
    // Rated for an account, casual for a guest (rated play needs an
    // account), until the player picks one.
    this.kindChosen = false;
    const choose = () => { this.kindChosen = true; this.options(); };
    this.rated = h('input', { type: 'radio', name: 'quick-kind', value: 'rated', onchange: choose });
    this.casual = h('input', { type: 'radio', name: 'quick-kind', value: 'casual', onchange: choose });
    this.defaultKind();
    this.bots = h('select', { name: 'quick-bots', id: 'quick-bots', 'aria-describedby': 'quick-bots-hint' },
      h('option', { value: '' }, 'Never: wait for people'),
      BOT_WAITS.map((s) => h('option', { value: String(s) }, `After ${s} seconds`)));
    this.botsHint = h('small', { class: 'muted', id: 'quick-bots-hint' });
    this.partner = h('input', { type: 'checkbox', name: 'quick-partner', onchange: () => this.options() });
    this.code = h('input', {
      name: 'quick-team', id: 'quick-team', maxlength: '32', autocomplete: 'off', spellcheck: false,
      placeholder: 'e.g. K7QF2M', 'aria-describedby': 'quick-team-hint',
    });
    this.partnerBox = h('div', { class: 'quick-partner-code' },
      h('label', { class: 'label', for: 'quick-team' }, 'Your partner’s team code'),
      this.code,
      h('small', { class: 'muted', id: 'quick-team-hint' }, 'Empty: you get a code to give your partner. Got one? Type it, then press Standard.'));
    this.buttons = QUICK_FORMS.map(([preset, title, what]) => h('button', {
      type: 'button', class: 'quick-form', 'data-preset': preset, 'data-focus': `quick-${preset}`,
      onclick: () => this.ask(preset),
    }, h('strong', {}, title), h('span', {}, what)));
    this.choices = h('div', { class: 'quick-choices' },
      h('div', { class: 'quick-forms', role: 'group', 'aria-label': 'Quick play a game of' }, this.buttons),
      h('div', { class: 'quick-options' },
        h('div', { class: 'quick-kind', role: 'radiogroup', 'aria-label': 'Rated or casual' },
          h('label', { class: 'check' }, this.rated, ' Rated'),
          h('label', { class: 'check' }, this.casual, ' Casual')),
        h('div', { class: 'field quick-bots' }, h('label', { class: 'label', for: 'quick-bots' }, 'Bots fill the seats'), this.bots, this.botsHint),
        h('label', { class: 'check' }, this.partner, ' With a partner (you sit opposite)'),
        this.partnerBox));
    this.searching = h('div', { class: 'quick-searching' });
    this.clock = null; // the time waited, ticking while searching
    this.root = h('section', { class: 'quick-play', 'aria-labelledby': 'quick-play-heading' },
      h('h2', { id: 'quick-play-heading' }, 'Quick play'),
      h('p', { class: 'muted' }, 'Be matched with players near your rating, in a few seconds.'),
      this.choices, this.searching);
    this.options();
  }

  defaultKind() {
    if (this.kindChosen) return;
    const account = Boolean(this.app.isAccount?.());
    this.rated.checked = account;
    this.casual.checked = !account;
  }

  // The options that go together: bots only in a casual game (a table with
  // a bot is never rated); a partner only in a form with partners.
  options() {
    const casual = this.casual.checked;
    this.bots.disabled = !casual;
    if (!casual) this.bots.value = '';
    this.botsHint.textContent = casual
      ? 'If nobody is found in time, bots take the missing seats.'
      : this.app.isAccount?.()
        ? 'Rated games are between accounts only (no bots, no guests): choose Casual for bots.'
        : 'Rated games are between accounts only: claim your name under Account to play rated.';
    this.partnerBox.hidden = !this.partner.checked;
    for (const button of this.buttons) {
      const off = this.partner.checked && !hasPartners(button.dataset.preset);
      button.disabled = off;
      button.title = off ? 'Only a game of two partnerships is played with a partner.' : '';
    }
  }

  ask(preset) {
    const code = this.code.value.trim();
    const options = { preset, rated: this.rated.checked };
    if (!options.rated && this.bots.value) options.botsAfter = Number(this.bots.value);
    if (this.partner.checked && hasPartners(preset)) {
      if (code) options.team = code;
      else options.invitePartner = true;
    }
    this.app.ask(options);
  }

  mount() {}

  unmount() {
    clearInterval(this.timer);
    this.timer = null;
  }

  update() {
    const request = this.app.request();
    if (!this.kindChosen) {
      this.defaultKind();
      this.options();
    }
    this.choices.hidden = Boolean(request);
    this.searching.hidden = !request;
    this.root.classList.toggle('is-searching', Boolean(request));
    if (!request) {
      clearInterval(this.timer);
      this.timer = null;
      replaceChildren(this.searching);
      return;
    }
    // The clock ticks on its own; everything else changes with a message.
    this.timer ??= setInterval(() => this.tick(), 1000);
    const title = QUICK_FORMS.find(([preset]) => preset === request.preset)?.[1] ?? PRESETS[request.preset]?.title ?? request.preset;
    const kind = request.rated ? 'rated' : 'casual';
    const waitingForPartner = request.team && !request.partner;
    const lines = [];
    if (request.unknown) {
      lines.push(h('p', { class: 'muted' }, 'A request of yours was already waiting (from another tab, or before a reload). Cancel it to ask for another.'));
    } else if (waitingForPartner) {
      lines.push(h('p', { class: 'quick-team' }, 'Give your partner this code: ',
        h('code', { class: 'team-code', 'data-team': request.team }, request.team),
        h('button', { type: 'button', class: 'link', onclick: () => navigator.clipboard?.writeText(request.team).catch(() => {}) }, 'Copy')));
      lines.push(h('p', { class: 'muted' }, 'They tick “With a partner”, type it and press Standard; you are matched together once they have.'));
    } else if (request.partner) {
      lines.push(h('p', {}, 'With your partner ', h('strong', {}, request.partner.name), '.'));
    }
    const waitingCount = request.waiting === null || request.waiting === undefined
      ? null
      : `${request.waiting} player${request.waiting === 1 ? '' : 's'} waiting`;
    const botsLine = request.botsAfter ? `bots after ${request.botsAfter} s` : null;
    this.clock = h('span', { class: 'quick-waited', title: 'Time waited' });
    replaceChildren(this.searching,
      h('div', { class: 'quick-spinner', 'aria-hidden': 'true' }),
      h('div', { class: 'quick-state' },
        h('p', { role: 'status' }, h('strong', {}, request.unknown ? 'Searching' : waitingForPartner ? `Waiting for your partner: ${title}, ${kind}` : `Searching: ${title}, ${kind}`)),
        h('p', { class: 'muted quick-progress' }, this.clock, waitingCount && ` · ${waitingCount}`, botsLine && ` · ${botsLine}`),
        lines),
      h('button', { type: 'button', class: 'secondary', 'data-action': 'cancel-quick-play', 'data-focus': 'quick-cancel', onclick: () => this.app.cancel() }, 'Cancel'));
    this.tick();
  }

  // The time waited, once a second.
  tick() {
    const request = this.app.request();
    if (request && this.clock) this.clock.textContent = `${waited(Date.now() - request.since)} waited`;
  }
}

// The request belongs to the player, not to the lobby view: it goes on
// while they look at history, and a match opens the table from anywhere.
// `client` (js/main.js) gives: state, connection, redraw(), notice(text,
// kind), failed(error), go(hash), tableHash(id). Gives: onQuickPlay(message),
// the server's news of the request, and quickPlayApp, what the panel may do.
export function quickPlayFlow(client) {
  const { state } = client;

  function onQuickPlay(message) {
    const request = state.quickPlay;
    if (message.type === 'quick_play_matched') {
      state.quickPlay = null;
      // The table's snapshot follows on this connection, as after a `sit`.
      if (!state.tables.has(message.table)) state.matched.add(message.table);
      client.go(client.tableHash(message.table));
    } else if (message.type === 'quick_play_ended') {
      if (message.reason === 'shutdown' && request && !request.team) {
        // The server is restarting: the request is made again once it is back.
        client.notice('The server is restarting: your quick-play request will be made again when it is back.');
      } else {
        state.quickPlay = null;
        client.notice(message.message || 'Your quick-play request ended.', 'error');
      }
    } else if (request && message.preset === request.preset && message.rated === request.rated) {
      request.waiting = message.waiting;
      if (message.partner) request.partner = message.partner;
    }
  }

  const quickPlayApp = {
    request: () => state.quickPlay,
    isAccount: () => Boolean(state.identity.account),
    async ask({ preset, rated, botsAfter, invitePartner, team }) {
      if (state.quickPlay) return;
      const command = { type: 'quick_play', preset, rated };
      if (botsAfter) command.bots_after_seconds = botsAfter;
      if (invitePartner) command.invite_partner = true;
      if (team) command.team = team;
      // Searching at once, so a second click cannot ask twice.
      state.quickPlay = { preset, rated, botsAfter: botsAfter ?? null, since: Date.now(), waiting: null, team: null, partner: null };
      client.redraw();
      try {
        const ack = await client.connection.send(command);
        if (state.quickPlay) state.quickPlay.team = ack.team ?? null;
      } catch (error) {
        // Matched or ended meanwhile: nothing to undo.
        state.quickPlay = null;
        if (error.code === 'already_queued') {
          client.notice(`${error.message} Cancel it first to ask for another.`, 'error');
          // A request from before a reload, or from another tab: show it, so it can be cancelled.
          state.quickPlay = { preset, rated, botsAfter: null, since: Date.now(), waiting: null, team: null, partner: null, unknown: true };
        } else client.failed(error);
      }
      client.redraw();
    },
    // The request shown as waiting, asked for again after a reconnection:
    // a server that still holds it answers already_queued, which is fine.
    async renew() {
      const request = state.quickPlay;
      const command = { type: 'quick_play', preset: request.preset, rated: request.rated };
      if (request.botsAfter) command.bots_after_seconds = request.botsAfter;
      try {
        await client.connection.send(command);
      } catch (error) {
        // Still held; or the connection dropped again: the next welcome asks.
        if (error.code === 'already_queued' || error.code === 'disconnected') return;
        // A server just back and still busy: ask again in a moment.
        if (TRANSIENT.has(error.code) && state.quickPlay === request) {
          setTimeout(() => { if (state.quickPlay === request) quickPlayApp.renew(); }, RENEW_AFTER_MS);
          return;
        }
        // Matched or ended meanwhile, or refused now: it waits no more.
        if (state.quickPlay === request) state.quickPlay = null;
        client.failed(error);
      }
      client.redraw();
    },
    async cancel() {
      try {
        await client.connection.send({ type: 'cancel_quick_play' });
      } catch (error) {
        if (error.code !== 'not_queued') {
          client.failed(error);
          return;
        }
      }
      state.quickPlay = null;
      client.redraw();
    },
  };

  return { onQuickPlay, quickPlayApp };
}
