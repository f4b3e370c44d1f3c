// The lobby: the public tables, live, and the form that creates a table with
// its options shown plainly. The form sends only the options changed from
// the preset (js/rules.js).

import { h, replaceChildren } from './dom.js';
import { PRESETS, describeRules, playersIn, ruleOverrides, tableName, unavailable } from './rules.js';
import { QuickPlayPanel } from './quickplay.js';
import { TournamentsPanel } from './tournament.js';
import { dailyLink } from './puzzles.js';

// The bot seats the form offers, by the number of players (you sit in seat 1).
const BOT_SEATS = {
  4: [[1, 'Left opponent (seat 2)'], [2, 'Partner (seat 3)'], [3, 'Right opponent (seat 4)']],
  3: [[1, 'Left opponent (seat 2)'], [2, 'Right opponent (seat 3)']],
  2: [[1, 'Opponent (seat 2)']],
};

// The bot levels, strongest first: `basic` is the easy level's wire name.
const BOT_LEVELS = [
  ['expert', 'Expert (searches, with a learned card player)'],
  ['hard', 'Hard (searches the deals it cannot see)'],
  ['medium', 'Medium'],
  ['basic', 'Easy'],
  ['naive', 'Naive'],
  ['random', 'Random'],
];
const levelSelect = (name, first, label) => h('select', { name, 'aria-label': label },
  first ? h('option', { value: '' }, first) : null,
  BOT_LEVELS.map(([value, text]) => h('option', { value, selected: !first && value === 'basic' }, text)));

// What the lobby can show, as `list_tables` filters: open tables first.
export const LOBBY_FILTERS = {
  open: { label: 'Open tables with a free seat', query: { status: 'open', free_seat: true }, none: 'No open tables yet. Start one!' },
  playing: { label: 'Games in play', query: { status: 'playing' }, none: 'No games in play right now.' },
  all: { label: 'All tables', query: {}, none: 'No tables yet. Start one!' },
};

// The lobby's list as the server pages it: the pages asked for so far
// under one filter, kept up to date by the filter's changes. Kept in the
// page's state, not in the view, so the list outlasts a visit elsewhere.
export class LobbyPages {
  constructor() {
    this.filter = 'open'; // a key of LOBBY_FILTERS
    this.tables = null; // Map of table id → summary, once listed: the pages so far
    this.next = null; // the next page's `after`, while there are more
    this.total = 0; // how many tables match the filter
  }

  // The `list_tables` for the filter's first page, or for the page after
  // `after`; the server sends the filter's changes from then on.
  query(after = null) {
    const query = { type: 'list_tables', ...LOBBY_FILTERS[this.filter].query };
    if (after) query.after = after;
    return query;
  }

  // A `lobby` page: a first one (no `after`) starts the list again; a later
  // one adds to it.
  page(message) {
    if (!message.after || !this.tables) this.tables = new Map();
    for (const t of message.tables) this.tables.set(t.table, t);
    this.next = message.next ?? null;
    this.total = message.total ?? this.tables.size;
  }

  // A `lobby_update`: a table listed, or changed.
  update(table) {
    // Past the pages listed (ids sort like the pages): it comes with a later page.
    if (this.next !== null && table.table > this.next) return;
    this.tables ??= new Map();
    if (!this.tables.has(table.table)) this.total += 1;
    this.tables.set(table.table, table);
  }

  // A `lobby_removed`.
  remove(id) {
    if (this.tables?.delete(id)) this.total = Math.max(0, this.total - 1);
  }

  // Another filter: the list is gone until its first page is asked for
  // again. False if `name` is no filter or the one already shown.
  choose(name) {
    if (!LOBBY_FILTERS[name] || name === this.filter) return false;
    this.filter = name;
    this.tables = null;
    this.next = null;
    return true;
  }

  list() {
    return this.tables ? [...this.tables.values()] : null;
  }
}

// The presets grouped by the number of players, for the form's list.
const FORMS = [
  [4, 'Four players, two partnerships'],
  [3, 'Three players, each for himself'],
  [2, 'Two players'],
];

export class LobbyView {
  // `app` gives: tables(), filter(), setFilter(name), total(), hasMore(),
  // more(), myTables(), createTable(settings), join(id), watch(id),
  // open(id), quickGame(), quickPlay (js/quickplay.js) and tournaments
  // (js/tournament.js).
  constructor(app) {
    this.app = app;
    this.quickPlay = new QuickPlayPanel(app.quickPlay);
    this.tournaments = new TournamentsPanel(app.tournaments);
    this.list = h('div', { class: 'table-list', 'aria-live': 'polite' });
    this.filter = h('select', { name: 'lobby-filter', 'aria-label': 'Show', onchange: () => this.app.setFilter(this.filter.value) },
      Object.entries(LOBBY_FILTERS).map(([value, f]) => h('option', { value }, f.label)));
    this.count = h('p', { class: 'muted lobby-count' });
    this.more = h('button', { type: 'button', class: 'secondary', 'data-action': 'more-tables', onclick: () => this.app.more() }, 'More tables');
    this.mine = h('section', { class: 'my-tables', 'aria-label': 'Your tables' });
    this.closed = h('section', { class: 'recently-closed', 'aria-label': 'Recently closed' });
    this.form = this.buildForm();
    this.root = h('section', { class: 'lobby' },
      h('div', { class: 'lobby-main' },
        h('div', { class: 'quick' },
          h('h1', {}, 'Play Euchre'),
          h('p', {}, 'Four players in two partnerships, first side to the target wins; or three or two, each for himself (New table). Bots fill any empty seat.'),
          h('button', { type: 'button', class: 'primary big', 'data-action': 'quick-game', onclick: () => this.app.quickGame() }, 'Play now with three bots')),
        this.quickPlay.root,
        dailyLink(),
        this.mine,
        this.closed,
        this.tournaments.root,
        h('section', { class: 'open-tables', 'aria-labelledby': 'tables-heading' },
          h('div', { class: 'lobby-head' }, h('h2', { id: 'tables-heading' }, 'Tables'), this.filter),
          this.list, this.count, this.more)),
      h('section', { class: 'create', 'aria-labelledby': 'create-heading' },
        h('h2', { id: 'create-heading' }, 'New table'),
        this.form));
  }

  mount(container) {
    replaceChildren(container, this.root);
    this.tournaments.start();
    this.update();
  }

  unmount() {
    this.quickPlay.unmount();
    this.tournaments.stop();
  }

  update() {
    this.quickPlay.update();
    // Tables this player sits at: a way back after visiting the lobby.
    const mine = this.app.myTables();
    this.mine.hidden = mine.length === 0;
    replaceChildren(this.mine, h('h2', {}, 'Your tables'), h('ul', { class: 'tables' }, mine.map((t) =>
      h('li', { class: 'table-row mine', 'data-table': t.id },
        h('div', { class: 'who' }, h('strong', { title: `Table ${t.id}` }, tableName(t.summary))),
        h('div', { class: 'what muted' }, describeRules(t.summary)),
        h('div', {}, { open: 'waiting for players', playing: 'playing', finished: 'game over' }[t.summary.status]),
        h('div', { class: 'row-actions' },
          h('button', { type: 'button', class: 'primary', 'data-focus': `back-${t.id}`, onclick: () => this.app.open(t.id) }, 'Resume'))))));
    // Tables of theirs that closed a little while ago, and how their game ended.
    const closed = this.app.recentlyClosed?.() ?? [];
    this.closed.hidden = closed.length === 0;
    replaceChildren(this.closed, h('h2', {}, 'Recently closed'), h('ul', { class: 'tables' }, closed.map((t) =>
      h('li', { class: 'table-row closed', 'data-table': t.id },
        h('div', { class: 'who' }, h('strong', {}, t.name ?? 'A table')),
        h('div', { class: 'what' }, t.line),
        h('div', { class: 'row-actions' },
          h('a', { class: 'button secondary', href: `#/history/${encodeURIComponent(t.match.id)}` }, 'Replay'))))));
    const tables = this.app.tables();
    const filter = this.app.filter();
    this.filter.value = filter;
    this.more.hidden = tables === null || !this.app.hasMore();
    this.count.hidden = tables === null || tables.length === 0;
    this.count.textContent = tables && `Showing ${tables.length} of ${this.app.total()}`;
    if (tables === null) {
      replaceChildren(this.list, h('p', { class: 'muted' }, 'Loading tables…'));
      return;
    }
    if (tables.length === 0) {
      replaceChildren(this.list, h('p', { class: 'muted' }, LOBBY_FILTERS[filter].none));
      return;
    }
    const order = { open: 0, playing: 1, finished: 2 };
    const sorted = [...tables].sort((a, b) => order[a.status] - order[b.status] || a.table.localeCompare(b.table));
    replaceChildren(this.list, h('ul', { class: 'tables' }, sorted.map((t) => {
      const players = playersIn(t.rules);
      const free = players - t.seated;
      const status = t.status === 'open' ? `${free} seat${free === 1 ? '' : 's'} free` : t.status === 'playing' ? 'playing' : 'game over';
      return h('li', { class: 'table-row', 'data-table': t.table },
        h('div', { class: 'who' }, h('strong', { title: `Table ${t.table}` }, tableName(t))),
        h('div', { class: 'what muted' }, describeRules(t)),
        h('div', { class: 'seats', 'data-players': players, 'aria-label': `${t.seated} of ${players} seats taken` },
          Array.from({ length: players }, (_, i) => i).map((i) => h('span', { class: ['pip-seat', i < t.seated && 'taken'], 'aria-hidden': 'true' })), ` ${status}`),
        h('div', { class: 'row-actions' },
          t.status === 'open' && free > 0 && h('button', { type: 'button', class: 'primary', 'data-focus': `join-${t.table}`, onclick: () => this.app.join(t.table) }, 'Join'),
          h('button', { type: 'button', class: 'secondary', 'data-focus': `watch-${t.table}`, onclick: () => this.app.watch(t.table) }, 'Watch')));
    })));
  }

  buildForm() {
    const field = (label, control, hint) => {
      control.id = `create-${control.name}`;
      const hintId = hint ? `${control.id}-hint` : null;
      if (hintId) control.setAttribute('aria-describedby', hintId);
      return h('div', { class: 'field' },
        h('label', { class: 'label', for: control.id }, label), control,
        hint && h('small', { class: 'muted', id: hintId }, hint));
    };
    const preset = h('select', { name: 'preset' },
      FORMS.map(([players, label]) => h('optgroup', { label },
        Object.entries(PRESETS).filter(([, p]) => playersIn(p.rules) === players)
          .map(([key, p]) => h('option', { value: key }, p.title)))));
    const about = h('p', { class: 'muted preset-about' });
    const stick = h('input', { type: 'checkbox', name: 'stick' });
    const loneEuchre = h('select', { name: 'lone_euchre' }, h('option', { value: '2' }, '2 points'), h('option', { value: '4' }, '4 points'));
    const points = h('select', { name: 'points' }, [5, 7, 10, 11, 15].map((n) => h('option', { value: String(n) }, `${n} points`)));
    const farmers = h('input', { type: 'checkbox', name: 'farmers' });
    const timer = h('select', { name: 'timer' },
      h('option', { value: '' }, 'No limit'),
      [15, 30, 60, 120].map((n) => h('option', { value: String(n) }, `${n} seconds`)));
    const visibility = h('select', { name: 'visibility' },
      h('option', { value: 'public' }, 'Public: listed in the lobby'),
      h('option', { value: 'private' }, 'Private: only with the invite link'));
    const chat = h('input', { type: 'checkbox', name: 'chat', checked: true });
    // Only a game with a person in every seat is ever rated; this lets
    // people play one that counts for nothing.
    const rated = h('input', { type: 'checkbox', name: 'rated', checked: true });
    // The table's level (it also stands in for an absent player), and each
    // bot seat's own if chosen.
    const botKind = levelSelect('bot');
    // The seats bots may take: as many as the form has (redrawn with it).
    const botSeatBox = h('div', { class: 'bot-seats' });
    let botSeats = [];
    const drawBotSeats = (players) => {
      botSeats = BOT_SEATS[players].map(([seat, text]) =>
        h('div', { class: 'bot-seat' },
          h('label', { class: 'check' }, h('input', { type: 'checkbox', name: `bot${seat}`, value: String(seat), checked: true }), ` ${text}`),
          levelSelect(`bot_level${seat}`, 'the table’s level', `Bot level for the ${text.toLowerCase()}`)));
      replaceChildren(botSeatBox, ...botSeats);
    };
    const botLegend = h('legend', {});
    const discardUp = h('input', { type: 'checkbox', name: 'discard_up' });
    const turnedDown = h('select', { name: 'turned_down' },
      h('option', { value: 'rejected' }, 'may not be named'),
      h('option', { value: 'counts_as_pass' }, 'counts as a pass'));
    const lonerLead = h('select', { name: 'loner_lead' },
      h('option', { value: 'left_of_dealer' }, 'left of the dealer'),
      h('option', { value: 'left_of_loner' }, 'left of the loner'));
    const deck = h('select', { name: 'deck' },
      h('option', { value: 'ten_to_ace' }, '20 cards: ten to ace (2 or 3 players)'),
      h('option', { value: 'nine_to_ace' }, '24 cards: nine to ace'),
      h('option', { value: 'eight_to_ace' }, '28 cards: eight to ace'),
      h('option', { value: 'seven_to_ace' }, '32 cards: seven to ace'));
    const canadian = h('input', { type: 'checkbox', name: 'canadian_loner' });
    const defendAlone = h('input', { type: 'checkbox', name: 'defend_alone' });
    const callForBest = h('input', { type: 'checkbox', name: 'call_for_best' });
    // The joker and no trump cannot be played together (the server refuses
    // it): choosing one turns the other off, and a note says why.
    const joker = h('input', { type: 'checkbox', name: 'joker', 'aria-describedby': 'create-joker-no-trump' });
    const noTrump = h('input', { type: 'checkbox', name: 'allow_no_trump', 'aria-describedby': 'create-joker-no-trump' });
    const exclusive = h('small', { class: 'muted', id: 'create-joker-no-trump' }, 'The joker and no trump cannot be played together: choose one.');
    const exclude = () => {
      noTrump.disabled = joker.checked;
      joker.disabled = noTrump.checked;
      exclusive.textContent = joker.checked
        ? 'No trump is off: it cannot be played with the joker (the joker is always a trump).'
        : noTrump.checked
          ? 'The joker is off: it cannot be played with no trump (the joker is always a trump).'
          : 'The joker and no trump cannot be played together: choose one.';
    };
    joker.addEventListener('change', exclude);
    noTrump.addEventListener('change', exclude);
    const rubber = h('input', { type: 'checkbox', name: 'rubber' });
    const firstDealer = h('select', { name: 'first_dealer' },
      h('option', { value: 'first_jack' }, 'first jack dealt'),
      h('option', { value: 'draw' }, 'a draw (sets partners too)'));

    // Options a form cannot have (partners' options without partners, a
    // rubber among three, the loner's without a way to go alone): off, with
    // the reason beside them.
    const offNotes = new Map();
    const offNote = (name) => {
      const note = h('small', { class: 'muted why-off', id: `create-${name}-off` });
      offNotes.set(name, note);
      return note;
    };
    const optional = { canadian_loner: canadian, defend_alone: defendAlone, call_for_best: callForBest, rubber, lone_euchre: loneEuchre, loner_lead: lonerLead };

    const fill = () => {
      const rules = PRESETS[preset.value].rules;
      const players = playersIn(rules);
      about.textContent = PRESETS[preset.value].about;
      drawBotSeats(players);
      // Short enough for one line on a phone: a title that wraps runs
      // into the group's border.
      botLegend.textContent = players === 2 ? 'A bot (you sit in seat 1)' : 'Bots (you sit in seat 1)';
      stick.checked = rules.all_pass === 'stick_the_dealer';
      loneEuchre.value = String(rules.scoring.lone_euchre);
      points.value = String(rules.points_to_win);
      farmers.checked = rules.farmers_hand;
      discardUp.checked = rules.dealer_may_discard_up_card;
      turnedDown.value = rules.turned_down_suit;
      lonerLead.value = rules.loner_lead;
      firstDealer.value = rules.first_dealer;
      deck.value = rules.deck;
      canadian.checked = rules.canadian_loner;
      defendAlone.checked = rules.defend_alone;
      callForBest.checked = rules.call_for_best;
      joker.checked = rules.joker;
      noTrump.checked = rules.allow_no_trump;
      rubber.checked = rules.rubber;
      // Four hands and an up-card need more than 20 cards.
      deck.querySelector('option[value="ten_to_ace"]').disabled = players === 4;
      const off = unavailable(rules);
      for (const [name, control] of Object.entries(optional)) {
        const why = off[name] ?? '';
        control.disabled = Boolean(why);
        if (why && control.type === 'checkbox') control.checked = false;
        const note = offNotes.get(name);
        note.textContent = why;
        note.hidden = !why;
        if (why) control.setAttribute('aria-describedby', note.id);
        else control.removeAttribute('aria-describedby');
      }
      exclude();
    };
    preset.addEventListener('change', fill);

    const submit = (event) => {
      event.preventDefault();
      const base = PRESETS[preset.value].rules;
      const chosen = {
        all_pass: stick.checked ? 'stick_the_dealer' : 'redeal',
        scoring: { ...base.scoring, lone_euchre: Number(loneEuchre.value) },
        points_to_win: Number(points.value),
        farmers_hand: farmers.checked,
        dealer_may_discard_up_card: discardUp.checked,
        turned_down_suit: turnedDown.value,
        loner_lead: lonerLead.value,
        first_dealer: firstDealer.value,
        deck: deck.value,
        canadian_loner: canadian.checked,
        defend_alone: defendAlone.checked,
        call_for_best: callForBest.checked,
        joker: joker.checked,
        allow_no_trump: noTrump.checked,
        rubber: rubber.checked,
      };
      const overrides = ruleOverrides(preset.value, chosen);
      const settings = {
        preset: preset.value,
        private: visibility.value === 'private',
        bot_seats: botSeats.map((l) => l.querySelector('input')).filter((i) => i.checked).map((i) => Number(i.value)),
        bot: botKind.value,
        seat_bots: botSeats.filter((l) => l.querySelector('input').checked && l.querySelector('select').value)
          .map((l) => ({ seat: Number(l.querySelector('input').value), bot: l.querySelector('select').value })),
        chat: chat.checked,
        rated: rated.checked,
        ...(Object.keys(overrides).length > 0 ? { rules: overrides } : {}),
        ...(timer.value ? { turn_seconds: Number(timer.value) } : {}),
      };
      this.app.createTable(settings);
    };

    const form = h('form', { class: 'create-form', onsubmit: submit, 'aria-describedby': 'create-note' },
      field('Rules', preset), about,
      h('fieldset', {}, h('legend', {}, 'Options'),
        h('label', { class: 'check' }, stick, ' Stick the dealer (the dealer must call in round two)'),
        field('Lone euchre gives the defenders', loneEuchre), offNote('lone_euchre'),
        field('Points to win', points),
        h('label', { class: 'check' }, farmers, " Farmer's hand (nines and tens may be thrown in)"),
        field('Turn timer', timer, 'A bot plays for a player who runs out of time.'),
        field('Table', visibility),
        h('label', { class: 'check' }, chat, ' Chat at the table'),
        h('label', { class: 'check' }, rated, ' Rated (when every seat is an account)')),
      h('fieldset', {}, botLegend,
        field('Bot level', botKind, 'Also plays for a player who is away.'), botSeatBox),
      h('details', {}, h('summary', {}, 'More rules'),
        h('label', { class: 'check' }, discardUp, ' The dealer may discard the card just picked up'),
        field('Naming the turned-down suit', turnedDown),
        field('Against a loner, the lead is', lonerLead), offNote('loner_lead'),
        field('The first dealer is chosen by', firstDealer),
        field('The pack', deck),
        h('label', { class: 'check' }, canadian, ' Canadian loner (in round one the dealer’s partner may order it up only alone)'), offNote('canadian_loner'),
        h('label', { class: 'check' }, defendAlone, ' Defend alone (against a loner, a defender may play alone too; euchring the loner then gives 4)'), offNote('defend_alone'),
        h('label', { class: 'check' }, callForBest, ' Call for best (the loner’s partner passes him a card, face down; the loner discards one)'), offNote('call_for_best'),
        h('label', { class: 'check' }, joker, ' Joker (one card more, the highest trump whatever trump is; turned up, the dealer names the suit it stands for)'),
        h('label', { class: 'check' }, noTrump, ' No trump (in round two a player may call no trump: no bowers, jacks between ten and queen, the led suit wins)'),
        exclusive,
        h('label', { class: 'check' }, rubber, ' Rubber (best of three games, scored in rubber points)'), offNote('rubber')),
      h('p', { id: 'create-note', class: 'muted' }, 'Seats without a bot wait for people; the host can start at any time and bots fill the rest.'),
      h('button', { type: 'submit', class: 'primary', 'data-action': 'create' }, 'Create table'));
    fill();
    return form;
  }
}
