// The table: seats around the felt, the trick, the up-card, the player's
// hand, the bidding choices, the score, the log of plays, and the chat.
// `TableView.update()` redraws from the model (js/model.js) in the words of
// js/text.js; the chat box and the log are kept, so typing and screen
// readers are never interrupted. At a practice table the player may ask
// for a hint: the choice suggested is marked and why is said beneath; and
// with "Review each hand" on, each hand's biggest mistake is said after it.

import { h, replaceChildren } from './dom.js';
import { cardBack, cardFace, cardName, cardShort, effectiveSuit, isJoker, SUIT_SYMBOLS, suitClass, suitName, upSuit } from './cards.js';
import {
  DUMMY_SIZE, botLevelName, cardChoices, contractMade, gamesWon, hasPartners, isRubber, partnerOf, previousTrick, seatsOfSide, sidesOf,
  sittingOut, trickOnTable,
} from './model.js';
import { PRESETS, goal, tableName } from './rules.js';
import { playerMenu } from './social.js';
import {
  actionText, aloneWords, bidText, gameBreakText, myRating, outcomeText, phaseNote, position, rubberResultText, rubberTally, rulesOf, scoreText, seatCount,
  seatName, sideOf, sideOrder, teamName, verb,
} from './text.js';

// The prompt's actions shown as bid buttons.
const BIDS = ['pass', 'order_up', 'call', 'call_no_trump', 'farmers_hand', 'defend_alone', 'name_suit'];
const LOG_KEEP = 60;
// How long a trick just won stays on the felt before the next lead clears it.
export const TRICK_HOLD_MS = 1100;
// How long a hand's review stays up, unless dismissed first.
const REVIEW_SHOW_MS = 8000;

// The seats at this table: 0 to 3, 0 to 2, or 0 and 1.
const seatsAt = (table) => Array.from({ length: seatCount(table) }, (_, seat) => seat);

const isOver = (game) => game?.winner !== null && game?.winner !== undefined;

// The current deal's seal in words: its commitment's first digits, and
// once the hand is over whether the deal matched. `kind` is a class.
function sealStatus(table) {
  const seal = table.seal;
  if (!seal) return null;
  const short = seal.commitment.slice(0, 8);
  const [text, kind] = {
    verified: ['✓ Deal verified: it is the one sealed before the bidding, and the one played', 'verified'],
    mismatch: [`✗ Deal mismatch: ${seal.why}`, 'mismatch'],
    not_checked: [`Deal not checked: ${seal.why}`, 'not-checked'],
  }[seal.check] ?? [`Deal sealed ${short}…: checked here when the hand ends`, 'sealed'];
  return { text, kind };
}

// The log's lines about sealed deals: the checks go to the table's details
// rather than among the plays (the current seal is said there already). A
// mismatch stays among the plays: everyone should see it.
const SEAL_CHECKS = new Set(['deal-verified', 'deal-not_checked']);
const SEAL_KEEP = 20;

// The bids worth a speech bubble now: the bidding's, or (against a loner)
// the defenders' answers.
function bidsNow(game) {
  if (!contractMade(game)) return game.bids;
  if (game.phase !== 'defending_alone') return [];
  const made = game.bids.findLastIndex(([, a]) => ['order_up', 'call', 'call_no_trump'].includes(a.action));
  // (A snapshot's bids may lack the call: then none is shown rather than all.)
  return made < 0 ? [] : game.bids.slice(made + 1);
}

// The up-card in the middle of the felt; a joker with the suit it stands
// for beside it (or a note that the dealer has yet to name one).
function upCard(game) {
  const turnedDown = game.phase === 'calling';
  const joker = isJoker(game.up_card);
  const suit = upSuit(game.up_card, game.joker_suit);
  let label = `Up-card: ${cardName(game.up_card)}`;
  if (joker) label += suit ? `, standing for ${suit}` : ', its suit not named yet';
  if (turnedDown) label += ', turned down';
  const named = joker && (suit
    ? h('span', { class: ['joker-suit', `suit-${suit}`], 'data-suit': suit },
      h('span', { class: 'big', 'aria-hidden': 'true' }, SUIT_SYMBOLS[suit]), ` ${suitName(suit)}`)
    : h('span', { class: 'joker-suit pending' }, 'Suit to be named'));
  return h('div', { class: ['up-card', turnedDown && 'turned-down'] },
    h('div', { class: 'up-card-row' }, cardFace(game.up_card, { label }), named),
    h('span', { class: 'caption' }, turnedDown ? 'Turned down' : game.up_card_picked_up ? 'Picked up' : 'Up-card'));
}

// The dummy (the games with one): three cards face down until the maker
// takes them; a maker going alone plays without it. Drawn where no seat
// is, at the top of a three-seat table and on the left of a two-seat one.
function dummyPile(table) {
  const game = table.game;
  if (!rulesOf(table)?.dummy || !game || game.dummy_taken || isOver(game) || game.phase === 'finished') return null;
  const without = contractMade(game) && game.alone;
  const caption = without
    ? `${seatName(table, game.maker)} ${verb(table, game.maker, 'play', 'plays')} without the dummy`
    : 'The dummy';
  const backs = Array.from({ length: DUMMY_SIZE }, () => cardBack());
  return h('div', { class: ['dummy-pile', `dummy-at-${seatCount(table) === 3 ? 'top' : 'left'}`, without && 'unused'], role: 'group', 'aria-label': `${caption}: three cards, face down` },
    h('div', { class: 'backs', 'aria-hidden': 'true' }, backs),
    h('span', { class: 'caption' }, caption));
}

function sameAction(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

// Whether a button for `action` is the one the hint suggests: the same
// choice, whether alone or not (the hint's words say which).
function hinted(table, action) {
  const suggested = table.hint?.action;
  if (!suggested) return false;
  const { alone: _a, ...plain } = suggested;
  const { alone: _b, ...mine } = action;
  return sameAction(plain, mine);
}

export class TableView {
  // `app` gives: table(), act(action), sit(seat), start(), rematch(),
  // leave(), chat(text), isHost(), inFlight(), inviteLink(), hintOffered(),
  // hint(), reviewOffered(), reviewEachHand(), setReviewEachHand(on).
  constructor(app) {
    this.app = app;
    this.alone = false;
    this.timer = null;
    this.root = h('section', { class: 'table-view', 'aria-label': 'Card table' });
    this.bar = h('div', { class: 'table-bar' });
    this.felt = h('div', { class: 'felt' });
    // The table's details (its code, the sealed deals): behind a small
    // disclosure button, kept across redraws so it stays open and focused.
    this.details = h('div', { class: 'table-details', id: 'table-details', role: 'region', 'aria-label': 'Table details', hidden: true });
    this.detailsButton = h('button', {
      type: 'button', class: 'info-toggle', 'data-focus': 'table-details', 'aria-expanded': 'false',
      'aria-controls': 'table-details', 'aria-label': 'Table details', title: 'Table details: its code and the sealed deals',
      onclick: () => this.toggleDetails(),
    }, h('span', { 'aria-hidden': 'true' }, 'i'));
    for (const part of [this.details, this.detailsButton]) {
      part.addEventListener('keydown', (event) => {
        if (event.key === 'Escape' && !this.details.hidden) this.toggleDetails(false);
      });
    }
    this.sealLines = [];
    this.controls = h('div', { class: 'controls', 'aria-label': 'Your choices' });
    // The hint's words: a live region of its own, kept across redraws, so
    // the hint is read out once when it comes.
    this.hintBox = h('div', { class: 'hint-box', 'aria-live': 'polite' });
    this.hintShown = null;
    // A hand's review: a status region of its own, kept across redraws,
    // filled for a moment when an answer comes; and the option that asks
    // for one, shown at a practice table only.
    this.reviewBox = h('div', { class: 'review-box', role: 'status' });
    this.reviewShown = null;
    this.reviewTimer = null;
    this.reviewCheck = h('input', {
      type: 'checkbox', id: 'review-each-hand', 'aria-describedby': 'review-each-hand-about',
      onchange: () => this.app.setReviewEachHand(this.reviewCheck.checked),
    });
    this.reviewOption = h('p', { class: 'review-option', hidden: true },
      h('label', { for: 'review-each-hand' }, this.reviewCheck, ' Review each hand'), ' ',
      h('small', { class: 'muted', id: 'review-each-hand-about' }, '(your biggest mistake in it, said when it ends)'));
    this.hand = h('div', { class: 'hand-area' });
    this.score = h('div', { class: 'scoreboard', 'aria-label': 'Score' });
    this.info = h('div', { class: 'hand-info' });
    this.log = h('ol', { class: 'play-log', role: 'log', 'aria-live': 'polite', 'aria-label': 'Plays' });
    this.chatLog = h('ol', { class: 'chat-log', role: 'log', 'aria-live': 'polite', 'aria-label': 'Chat messages' });
    this.chatInput = h('input', { type: 'text', maxlength: '500', 'aria-label': 'Message', placeholder: 'Say something…', autocomplete: 'off' });
    this.chatForm = h('form', { class: 'chat-form', onsubmit: (e) => this.sendChat(e) },
      this.chatInput, h('button', { type: 'submit' }, 'Send'));
    this.chat = h('section', { class: 'chat', 'aria-label': 'Chat' },
      h('h2', {}, 'Chat'), this.chatLog, this.chatForm);
    const side = h('aside', { class: 'side' },
      this.score, this.info,
      h('section', { class: 'log-box' }, h('h2', {}, 'Plays'), this.log),
      this.chat);
    this.root.append(this.bar, this.details, h('div', { class: 'table-main' },
      h('div', { class: 'play-area' }, this.felt, this.controls, this.hintBox, this.reviewBox, this.hand, this.reviewOption), side));
    this.backlogShown = false;
    this.logShown = 0;
    this.chatShown = 0;
    // The trick held on the felt (see `noticeTrick`), and the last one seen.
    this.held = null;
    this.heldTimer = null;
    this.seenTrick = undefined;
    this.felt.addEventListener('click', () => this.release());
  }

  // Every choice goes through here: acting ends a trick's hold at once.
  act(action) {
    this.release(false);
    this.app.act(action);
  }

  // A trick just won stays on the felt for a moment, even when the next
  // lead has come (bots are quick), so everyone sees who took it; the last
  // trick of a hand shows the hand's result with it. A click on the felt,
  // Enter on the trick, or the player's own next move skips the wait; so
  // does the player's turn to follow a card already led, and a prompt in
  // the next hand (a bid is about the up-card, which the held trick hides).
  noticeTrick(table) {
    const last = table.game?.last_trick ?? null;
    const key = last ? `${table.id}:${last.key}` : null;
    const first = this.seenTrick === undefined;
    if (key !== this.seenTrick) {
      this.seenTrick = key;
      // A table just opened has nothing to hold.
      if (!first && last) {
        this.held = last;
        clearTimeout(this.heldTimer);
        this.heldTimer = setTimeout(() => this.release(), TRICK_HOLD_MS);
      }
    }
    // The player must follow a trick already led: show that one instead.
    const led = trickOnTable(table.game)?.winner === null;
    if (this.held && led && cardChoices(table.prompt).size > 0) this.release(false);
    const dealt = this.held && this.held.hand !== table.game?.hand_number;
    if (dealt && table.prompt?.actions?.length > 0) this.release(false);
  }

  release(redraw = true) {
    clearTimeout(this.heldTimer);
    if (!this.held) return;
    this.held = null;
    if (redraw) this.update();
  }

  // Opens or closes the table's details; Escape inside closes them and
  // gives the focus back to the button.
  toggleDetails(open = this.details.hidden) {
    this.details.hidden = !open;
    this.detailsButton.setAttribute('aria-expanded', String(open));
    if (!open && this.details.contains(document.activeElement)) this.detailsButton.focus();
  }

  mount(container) {
    replaceChildren(container, this.root);
    this.timer = setInterval(() => this.tick(), 250);
    this.update();
  }

  unmount() {
    clearInterval(this.timer);
    this.timer = null;
    clearTimeout(this.heldTimer);
    this.held = null;
    clearTimeout(this.reviewTimer);
  }

  sendChat(event) {
    event.preventDefault();
    const text = this.chatInput.value.trim();
    if (!text) return;
    this.app.chat(text).then(() => {
      this.chatInput.value = '';
    }, () => {});
  }

  tick() {
    const table = this.app.table();
    const asking = this.root.querySelector('.rematch-countdown');
    if (asking && table?.rematch?.deadline) {
      asking.textContent = `(${Math.max(0, Math.ceil((table.rematch.deadline - Date.now()) / 1000))} s)`;
    }
    const countdown = this.root.querySelector('.countdown');
    if (!countdown || !table?.prompt?.deadline) return;
    const left = Math.max(0, Math.ceil((table.prompt.deadline - Date.now()) / 1000));
    countdown.textContent = `${left} s`;
    countdown.classList.toggle('urgent', left <= 5);
  }

  update() {
    const table = this.app.table();
    if (!table) {
      replaceChildren(this.felt, h('p', { class: 'waiting' }, 'Joining the table…'));
      return;
    }
    // The seq drawn, for tests that wait for the next change.
    this.root.dataset.seq = String(table.seq);
    this.noticeTrick(table);
    document.title = `${tableName(table.summary)} · Euchre`;
    replaceChildren(this.bar, ...this.renderBar(table));
    replaceChildren(this.felt, ...this.renderFelt(table));
    replaceChildren(this.controls, ...this.renderControls(table));
    this.renderHint(table);
    this.renderReview(table);
    replaceChildren(this.hand, ...this.renderHand(table));
    replaceChildren(this.score, ...this.renderScore(table));
    replaceChildren(this.info, ...this.renderInfo(table));
    // The log and the chat only grow: new lines are appended, so a screen
    // reader announces each once.
    if (!this.backlogShown) {
      // The backlog of a table just opened is shown, not read out.
      this.backlogShown = true;
      for (const log of [this.log, this.chatLog]) {
        log.setAttribute('aria-live', 'off');
        setTimeout(() => log.setAttribute('aria-live', 'polite'), 0);
      }
      this.logShown = Math.max(0, table.log.length - LOG_KEEP);
    }
    for (const { text, kind } of table.log.slice(this.logShown)) {
      if (SEAL_CHECKS.has(kind)) this.sealLines.push(text);
      else if (kind !== 'deal_committed') this.log.append(h('li', { class: kind }, text));
    }
    this.sealLines.splice(0, Math.max(0, this.sealLines.length - SEAL_KEEP));
    replaceChildren(this.details, ...this.renderDetails(table));
    this.logShown = table.log.length;
    while (this.log.children.length > LOG_KEEP) this.log.firstElementChild.remove();
    this.log.scrollTop = this.log.scrollHeight;
    this.chat.hidden = !table.summary.chat;
    for (const message of table.chat.slice(this.chatShown)) {
      // Each in its own <bdi>: a direction mark in a name or a line (from an
      // older server, or a name stored before they were refused) cannot
      // reorder the rest of the line.
      this.chatLog.append(h('li', {}, h('b', {}, h('bdi', {}, message.from)), ' ', h('bdi', {}, message.text)));
    }
    this.chatShown = table.chat.length;
    this.chatLog.scrollTop = this.chatLog.scrollHeight;
    this.tick();
  }

  renderBar(table) {
    const s = table.summary;
    const rubber = isRubber(s.rules);
    const status = { open: 'Waiting for players', playing: 'Playing', finished: rubber ? 'Rubber over' : 'Game over' }[s.status];
    const tally = rubber && s.status !== 'open' && table.rubber?.known ? rubberTally(table) : null;
    const invite = this.app.inviteLink();
    return [
      h('h1', {}, tableName(s)),
      h('span', { class: 'tag' }, PRESETS[s.preset]?.title ?? s.preset),
      h('span', { class: 'tag' }, goal(s.rules)),
      // The options around a loner, which change what players are asked.
      s.rules.canadian_loner && h('span', { class: 'tag' }, 'Canadian loner'),
      s.rules.defend_alone && h('span', { class: 'tag' }, 'defend alone'),
      s.rules.call_for_best && h('span', { class: 'tag' }, 'call for best'),
      s.rules.joker && h('span', { class: 'tag' }, 'joker'),
      myRating(table) && h('span', { class: 'tag rating-change', title: 'Your rating after this game' }, myRating(table)),
      s.rules.allow_no_trump && h('span', { class: 'tag' }, 'no trump'),
      table.seal?.check === 'mismatch' && h('span', { class: 'tag deal-seal mismatch' }, '✗ Deal mismatch'),
      rubber && (tally
        ? h('span', { class: 'tag rubber-tally', 'aria-label': tally.label, title: 'Games won in the rubber (best of three)' }, `Rubber: ${tally.text}`)
        : h('span', { class: 'tag rubber-tally' }, 'Rubber (best of three)')),
      s.private && h('span', { class: 'tag' }, 'private'),
      s.turn_seconds && h('span', { class: 'tag' }, `${s.turn_seconds} s turns`),
      h('span', { class: 'status' }, status),
      this.detailsButton,
      h('span', { class: 'spacer' }),
      invite && h('button', { type: 'button', class: 'secondary', onclick: () => this.copyInvite(invite) }, 'Copy invite link'),
      h('button', { type: 'button', class: 'secondary', 'data-focus': 'leave', onclick: () => this.app.leave() },
        table.yourSeat === null ? 'Back to lobby' : 'Leave table'),
    ];
  }

  copyInvite(link) {
    navigator.clipboard?.writeText(link).then(
      () => this.app.notice('Invite link copied.'),
      () => this.app.notice(`Invite link: ${link}`),
    ) ?? this.app.notice(`Invite link: ${link}`);
  }

  renderFelt(table) {
    const game = table.game;
    const seats = seatsAt(table).map((seat) => this.renderSeat(table, seat));
    this.felt.dataset.players = String(seatCount(table));
    return [...seats, dummyPile(table), h('div', { class: 'center' }, ...this.renderCenter(table, game))];
  }

  renderSeat(table, seat) {
    const game = table.game;
    const occupant = table.seats[seat];
    const where = position(table, seat);
    const playing = game && game.phase !== 'finished' && !isOver(game);
    const badges = [];
    if (game && game.dealer === seat && table.summary.status !== 'open') badges.push(h('span', { class: 'badge dealer', title: 'Dealer' }, 'Dealer'));
    if (game?.maker === seat && contractMade(game)) {
      const what = game.trump ? SUIT_SYMBOLS[game.trump] : 'no trump';
      badges.push(h('span', { class: 'badge maker' }, `Maker ${what}${game.alone ? ` ${aloneWords(table)}` : ''}`));
    }
    const out = game && playing && sittingOut(game).has(seat);
    if (out) badges.push(h('span', { class: 'badge out', title: 'Sits this hand out' }, 'Sits out'));
    if (game?.lone_defender === seat && playing) badges.push(h('span', { class: 'badge maker' }, 'Defends alone'));
    if (occupant?.kind === 'player' && !occupant.connected) badges.push(h('span', { class: 'badge away' }, 'Away'));
    if (occupant?.kind === 'bot') badges.push(h('span', { class: 'badge bot' }, `Bot: ${botLevelName(occupant.bot)}`));
    const turn = playing && game.turn === seat;
    const canSit = !occupant && table.yourSeat === null && table.summary.status === 'open';
    const cards = [];
    if (where !== 'bottom' && game && playing) {
      for (let i = 0; i < game.hand_sizes[seat]; i += 1) cards.push(cardBack());
    }
    const lastBid = game && playing ? bidsNow(game).filter(([s]) => s === seat).at(-1) : null;
    const label = `${seatName(table, seat)}, seat ${seat + 1}${turn ? ', to act' : ''}`;
    return h('div', { class: ['seat', `seat-${where}`, turn && 'turn', out && 'sitting-out'], 'aria-label': label, role: 'group' },
      occupant?.kind === 'player' && seat !== table.yourSeat
        ? playerMenu(this.app.social, occupant.player, { table: table.summary.table }, seatName(table, seat), 'seat-name')
        : h('div', { class: 'seat-name' }, seatName(table, seat)),
      h('div', { class: 'badges' }, badges),
      lastBid && h('div', { class: 'bubble' }, bidText(table, seat, lastBid[1])),
      canSit && h('button', { type: 'button', 'data-focus': `sit-${seat}`, 'data-sit': seat, onclick: () => this.app.sit(seat) }, 'Sit here'),
      cards.length > 0 && h('div', { class: 'backs', role: 'img', 'aria-label': `${cards.length} cards` }, cards),
    );
  }

  renderCenter(table, game) {
    if (!game) {
      const waiting = seatCount(table) - table.seats.slice(0, seatCount(table)).filter(Boolean).length;
      return [h('p', { class: 'waiting' }, waiting > 0
        ? `Waiting for ${waiting} more player${waiting === 1 ? '' : 's'}.`
        : 'Starting…')];
    }
    const parts = [];
    const held = this.held;
    const trick = held ? held.trick : trickOnTable(game);
    if (game.trump) {
      parts.push(h('div', { class: ['trump-chip', `suit-${game.trump}`] },
        h('span', { 'aria-hidden': 'true', class: 'big' }, SUIT_SYMBOLS[game.trump]),
        ` Trump: ${suitName(game.trump)}`));
    } else if (game.no_trump) {
      parts.push(h('div', { class: ['trump-chip', 'no-trump'] }, 'No trump'));
    }
    // A rubber's game just won: said until the next game's first hand is over.
    if (table.rubber?.fresh && !isOver(game)) {
      parts.push(h('p', { class: 'game-break', role: 'status' }, gameBreakText(table)));
    }
    if (trick) {
      const done = trick.winner !== null;
      const hold = held ? {
        role: 'button',
        tabindex: '0',
        'data-held': 'true',
        'data-focus': 'held-trick',
        'aria-label': `Trick ${held.number}, won by ${seatName(table, trick.winner)}. Continue`,
        title: 'Click to go on',
        onkeydown: (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); this.release(); } },
      } : { 'aria-label': 'The trick' };
      parts.push(h('div', { class: ['trick', done && 'done', held && 'held'], ...hold },
        trick.cards.map(([seat, card]) => cardFace(card, {
          class: ['played', `at-${position(table, seat)}`, done && seat === trick.winner && 'winner'].filter(Boolean).join(' '),
          trump: held ? held.trump : game.trump,
          label: `${cardName(card)}, played by ${seatName(table, seat)}${done && seat === trick.winner ? ', winning' : ''}`,
        }))));
      if (done) parts.push(h('p', { class: 'trick-winner' }, `${seatName(table, trick.winner)} ${verb(table, trick.winner, 'win', 'wins')} the trick`));
      // The hand's last trick: its result with it.
      const handOver = held && (held.hand !== game.hand_number || game.phase === 'finished');
      if (handOver && game.last_outcome) parts.push(h('p', { class: 'result' }, outcomeText(table, game.last_outcome)));
      if (held) return parts;
    } else if (game.up_card && ['naming_joker_suit', 'ordering_up', 'calling', 'dealer_discard'].includes(game.phase)) {
      parts.push(upCard(game));
    }
    const note = phaseNote(table, game);
    if (note) parts.push(h('p', { class: 'phase-note' }, note));
    if (isOver(game)) {
      const us = table.yourSeat !== null && sideOf(table, table.yourSeat) === game.winner;
      const rubber = isRubber(game.rules) && table.rubber?.result;
      const what = rubber ? ' the rubber' : '';
      const partners = hasPartners(game.rules);
      // The winners by name: a partnership's two, or the one player.
      const winners = seatsOfSide(game.winner, game.rules).map((seat) => seatName(table, seat));
      const heading = table.yourSeat === null
        ? `${teamName(table, game.winner)} win${partners ? '' : 's'}${what}`
        : us ? `You win${what}!` : partners ? `You lose${what}` : `${winners[0]} wins${what}`;
      const last = partners
        ? `${game.scores[game.winner]} to ${game.scores[1 - game.winner]}`
        : scoreText(table, game.scores);
      parts.push(h('div', { class: ['game-over', rubber && 'rubber-over'], role: 'status' },
        h('h2', {}, heading),
        partners && h('p', { class: 'winners' }, `Won by ${winners.join(' and ')}`),
        rubber
          ? [h('p', { class: 'rubber-result' }, rubberResultText(table)),
            h('p', {}, `The last game: ${last}`)]
          : h('p', { class: 'final-score' }, last)));
    } else if (game.phase === 'finished' && game.last_outcome) {
      parts.push(h('p', { class: 'result' }, outcomeText(table, game.last_outcome)));
    }
    return parts;
  }

  // The status line and, on the player's turn, the choices.
  renderControls(table) {
    const game = table.game;
    const out = [];
    if (table.summary.status === 'open') {
      const host = this.app.isHost();
      out.push(h('p', { class: 'status-line' }, host
        ? `Start when you are ready: empty seats get bots. The game also starts once all ${['', '', 'two', 'three', 'four'][seatCount(table)]} seats are taken.`
        : table.yourSeat === null ? 'Pick a free seat to play, or watch.' : 'Waiting for the host to start the game.'));
      if (host) out.push(h('button', { type: 'button', class: 'primary', 'data-action': 'start', 'data-focus': 'start', onclick: () => this.app.start() }, 'Start game'));
      return out;
    }
    if (isOver(game)) {
      if (table.rematch) {
        out.push(...this.renderRematchVote(table, table.rematch));
      } else if (this.app.isHost()) {
        out.push(h('button', { type: 'button', class: 'primary', 'data-action': 'rematch', 'data-focus': 'rematch', onclick: () => this.app.rematch() }, 'Rematch'));
      } else {
        out.push(h('p', { class: 'status-line' }, 'The host may start a rematch.'));
      }
      out.push(h('button', { type: 'button', class: 'secondary', 'data-focus': 'lobby', onclick: () => this.app.toLobby() }, 'Back to lobby'));
      return out;
    }
    const prompt = table.prompt;
    if (!prompt) {
      let line = '';
      if (this.app.inFlight()) line = 'Sending…';
      else if (game && game.turn !== null && game.turn === table.yourSeat) {
        // The prompt is on its way: no "Waiting for You" in between.
        line = 'Your turn…';
      } else if (game && game.turn !== null) {
        const who = seatName(table, game.turn);
        const doing = {
          naming_joker_suit: "to name the Joker's suit",
          ordering_up: 'to bid',
          calling: 'to name trump',
          dealer_discard: 'to discard',
          dummy_discard: 'to discard three for the dummy',
          passing_best: 'to pass a card to the loner',
          loner_discard: 'to discard',
          defending_alone: 'to decide whether to defend alone',
          playing: 'to play',
        }[game.phase] ?? '';
        line = `Waiting for ${who} ${doing}…`;
      }
      out.push(h('p', { class: 'status-line' }, line));
      return out;
    }
    const timer = prompt.deadline ? h('span', { class: 'countdown', 'aria-label': 'Time left' }) : null;
    const kinds = new Set(prompt.actions.map((a) => a.action));
    let line = 'Your turn. ';
    if (kinds.has('discard') && game.phase === 'dummy_discard') {
      const left = Math.max(1, DUMMY_SIZE - (game.dummy_discarded ?? 0));
      line = `Your turn: you took the dummy. Discard ${left === DUMMY_SIZE ? 'three cards' : left === 1 ? 'one more card' : `${left} more cards`}. `;
    } else if (kinds.has('discard') && game.phase === 'loner_discard') line = 'Your turn: you hold six cards. Choose one to discard (the passed card too, if you like). ';
    else if (kinds.has('discard')) line = 'Your turn: choose a card to discard. ';
    else if (kinds.has('pass_card')) line = 'Your turn: your partner goes alone. Choose the card to pass them, face down. ';
    else if (kinds.has('play')) line = 'Your turn: play a highlighted card. ';
    else if (kinds.has('defend_alone')) line = 'Your turn: defend alone against the loner, or pass. ';
    else if (kinds.has('name_suit')) line = 'Your turn: the Joker is turned up. Name the suit it stands for; round one is then about that suit. ';
    else if (game.phase === 'calling' && kinds.has('call_no_trump')) line = 'Your turn: name trump, call no trump, or pass. ';
    else if (game.phase === 'calling') line = 'Your turn: name trump or pass. ';
    // The dealer's button says "Pick up": so does the dealer's prompt.
    else if (kinds.has('order_up')) line = game.dealer === table.yourSeat ? 'Your turn: pick it up or pass. ' : 'Your turn: order it up or pass. ';
    out.push(h('p', { class: 'status-line your-turn' }, line, timer, this.hintButton(table)));
    const bids = prompt.actions.filter((a) => BIDS.includes(a.action));
    if (bids.length > 0) out.push(this.renderBids(table, prompt, bids));
    // Anything else the server offers that this client has no words for
    // still gets a button: a player is never left without a way to act.
    const known = new Set([...BIDS, 'claim', 'concede']);
    const others = prompt.actions.filter((a) => !known.has(a.action) && typeof a.card !== 'string');
    if (others.length > 0) {
      out.push(h('div', { class: 'bids', role: 'group', 'aria-label': 'Other choices' }, others.map((action) =>
        h('button', { type: 'button', class: hinted(table, action) && 'hinted', 'data-action': action.action, 'data-focus': `other-${JSON.stringify(action)}`, onclick: () => this.act(action) },
          action.action.replaceAll('_', ' ')))));
    }
    const extras = [];
    if (kinds.has('claim')) {
      extras.push(h('button', { type: 'button', class: hinted(table, { action: 'claim' }) && 'hinted', 'data-action': 'claim', 'data-focus': 'claim', onclick: () => this.act({ action: 'claim' }) }, 'Claim the rest'));
    }
    if (kinds.has('concede') && kinds.has('play')) {
      extras.push(h('button', { type: 'button', class: 'secondary', 'data-focus': 'concede', onclick: () => {
        if (confirm('Give every remaining trick of this hand to the other side?')) this.act({ action: 'concede' });
      } }, 'Concede hand'));
    }
    if (extras.length > 0) out.push(h('div', { class: 'extras' }, extras));
    return out;
  }

  // The Hint button, at the player's turn at a practice table: one hint a
  // decision, so once asked it stays (for the focus) but does nothing.
  hintButton(table) {
    if (!this.app.hintOffered()) return null;
    const hint = table.hint;
    const text = !hint ? 'Hint' : hint.asking ? 'Thinking…' : 'Hint';
    return h('button', {
      type: 'button', class: 'hint-button', 'data-action': 'hint', 'data-focus': 'hint',
      'aria-disabled': hint ? 'true' : 'false',
      title: hint ? 'One hint a decision' : 'What would the expert bot do here, and why?',
      onclick: () => { if (!table.hint) this.app.hint(); },
    }, text);
  }

  // The review option, and a review just come: shown for a few seconds
  // or until dismissed, and kept while the focus is on it.
  renderReview(table) {
    const offered = this.app.reviewOffered();
    this.reviewOption.hidden = !offered;
    this.reviewCheck.checked = this.app.reviewEachHand();
    const review = table.review;
    if (!offered || !review || review === this.reviewShown || Date.now() - review.at > REVIEW_SHOW_MS) return;
    this.reviewShown = review;
    const dismiss = h('button', { type: 'button', class: 'secondary', onclick: () => this.hideReview(true) }, 'Dismiss');
    replaceChildren(this.reviewBox, h('p', { class: 'review-line', 'data-hand': String(review.hand) },
      h('span', {}, review.text), ' ', dismiss));
    clearTimeout(this.reviewTimer);
    this.reviewTimer = setTimeout(() => this.hideReview(), REVIEW_SHOW_MS);
  }

  // Takes the review down; the timer waits while the focus is in it
  // (someone about to press Dismiss), the button does not.
  hideReview(dismissed = false) {
    const focused = this.reviewBox.contains(document.activeElement);
    if (focused && !dismissed) {
      this.reviewTimer = setTimeout(() => this.hideReview(), REVIEW_SHOW_MS);
      return;
    }
    clearTimeout(this.reviewTimer);
    replaceChildren(this.reviewBox);
    if (focused) this.hand.querySelector('[tabindex="0"], button')?.focus();
  }

  // The hint's words under the choices, until the player acts.
  renderHint(table) {
    const hint = table.prompt && table.hint?.action ? table.hint : null;
    if (hint === this.hintShown) return;
    this.hintShown = hint;
    replaceChildren(this.hintBox, hint && h('p', { class: 'hint-line' },
      h('strong', {}, `Hint: ${actionText(table, hint.action)}.`), ' ', hint.why));
  }

  // A table without a host (quick play's): each player asks for the
  // rematch, which starts once every person still seated has.
  renderRematchVote(table, vote) {
    if (table.yourSeat === null) return [];
    const people = table.seats.map((occupant, seat) => (occupant?.kind === 'player' ? seat : null)).filter((seat) => seat !== null);
    const names = (seats) => seats.map((seat) => seatName(table, seat)).join(', ');
    const countdown = vote.deadline ? h('span', { class: 'rematch-countdown', 'aria-label': 'Time left to ask' }) : null;
    if (vote.asked.includes(table.yourSeat)) {
      const waiting = people.filter((seat) => !vote.asked.includes(seat));
      return [h('p', { class: 'status-line', 'data-rematch': 'asked' },
        waiting.length > 0 ? `You asked for a rematch. Waiting for ${names(waiting)} ` : 'Starting the rematch…', countdown)];
    }
    const others = vote.asked.filter((seat) => seat !== table.yourSeat);
    const line = others.length > 0
      ? h('p', { class: 'status-line' }, `${names(others)} asked for a rematch. `, countdown)
      : people.length > 1 && h('p', { class: 'status-line' }, 'A rematch starts when everyone still seated asks for one.');
    return [line, h('button', { type: 'button', class: 'primary', 'data-action': 'rematch', 'data-focus': 'rematch', onclick: () => this.app.rematch() }, 'Rematch')].filter(Boolean);
  }

  renderBids(table, prompt, bids) {
    const game = table.game;
    const buttons = [];
    // One button per bid, the "Go alone" box choosing the variant; a bid
    // offered only alone (Canadian loner: the dealer's partner in round
    // one) says so and goes alone whatever the box.
    const plain = bids.filter((a) => !a.alone || !bids.some((b) => sameAction(b, { ...a, alone: false })));
    // The box only where it chooses something: a bid offered both ways.
    // (A Canadian loner's order-up, offered only alone, says so itself.)
    const optional = plain.some((a) => a.alone === false && bids.some((b) => sameAction(b, { ...a, alone: true })));
    if (!optional) this.alone = false;
    for (const action of plain) {
      const onlyAlone = action.alone === true;
      const wanted = 'alone' in action ? { ...action, alone: onlyAlone || this.alone } : action;
      const allowed = bids.some((a) => sameAction(a, wanted));
      let text;
      let key;
      switch (action.action) {
        case 'pass': text = 'Pass'; key = 'pass'; break;
        case 'order_up': {
          const suit = upSuit(game.up_card, game.joker_suit);
          text = `${game.dealer === table.yourSeat ? 'Pick up' : 'Order up'} ${SUIT_SYMBOLS[suit]} ${suitName(suit)}`;
          key = 'order_up';
          break;
        }
        case 'call': text = `${SUIT_SYMBOLS[action.suit]} ${suitName(action.suit)}`; key = `call-${action.suit}`; break;
        case 'call_no_trump': text = 'No trump'; key = 'call_no_trump'; break;
        case 'farmers_hand': text = "Farmer's hand (throw in)"; key = 'farmers_hand'; break;
        case 'defend_alone': text = 'Defend alone'; key = 'defend_alone'; break;
        case 'name_suit': text = `${SUIT_SYMBOLS[action.suit]} ${suitName(action.suit)}`; key = `name-${action.suit}`; break;
        default: text = action.action; key = action.action;
      }
      if (wanted.alone) text += ' alone';
      buttons.push(h('button', {
        type: 'button',
        title: onlyAlone ? 'Canadian loner: the dealer’s partner may order it up only alone'
          : action.action === 'call_no_trump' ? 'No trump suit, no bowers: the highest card of the suit led wins' : undefined,
        class: ['bid', action.suit && `suit-${action.suit}`, action.action !== 'pass' && 'primary', hinted(table, action) && 'hinted'],
        'data-action': key,
        'data-focus': `bid-${key}`,
        disabled: !allowed,
        onclick: () => this.act(wanted),
      }, text));
    }
    const toggle = optional && h('label', { class: 'alone-toggle' },
      h('input', { type: 'checkbox', checked: this.alone, 'data-focus': 'alone', onchange: (e) => { this.alone = e.target.checked; this.update(); } }),
      rulesOf(table).dummy ? ' Go alone (without the dummy)' : ' Go alone');
    const naming = bids.some((a) => a.action === 'name_suit');
    return h('div', { class: 'bids', role: 'group', 'aria-label': naming ? "The Joker's suit" : 'Your bid' }, buttons, toggle);
  }

  renderHand(table) {
    const game = table.game;
    if (table.yourSeat === null) {
      return [h('p', { class: 'spectating' }, 'You are watching this table.')];
    }
    if (!game?.hand || isOver(game)) return [];
    const choices = cardChoices(table.prompt);
    const putAway = [...choices.values()].find((a) => a.action !== 'play')?.action;
    const choiceWord = { discard: ', discard', pass_card: ', pass to partner' }[putAway] ?? ', legal';
    const cards = game.hand;
    // Roving tabindex: one card in the tab order, the arrows move along the hand.
    const firstLegal = cards.findIndex((c) => choices.has(c));
    const focusIndex = firstLegal >= 0 ? firstLegal : 0;
    const buttons = cards.map((card, index) => {
      const choice = choices.get(card);
      // Only while cards are to be chosen does each say whether it may be.
      let state = '';
      if (choices.size > 0) state = choice ? choiceWord : ', not playable now';
      // The card a partner passed the loner, marked in the loner's hand until he discards.
      const passed = card === game.passed_card && game.maker === table.yourSeat && game.phase === 'loner_discard';
      const suggested = choice && hinted(table, choice);
      return cardFace(card, {
        tag: 'button',
        trump: game.trump,
        class: ['in-hand', choice ? 'legal' : 'idle', passed && 'passed', suggested && 'hinted'].filter(Boolean).join(' '),
        label: `${cardName(card)}${game.trump && effectiveSuit(card, game.trump) === game.trump ? ', trump' : ''}${passed ? ', passed to you' : ''}${state}${suggested ? ', the hint' : ''}`,
        'aria-disabled': choice ? 'false' : 'true',
        'data-card': card,
        'data-legal': choice ? 'true' : 'false',
        'data-focus': `card-${card}`,
        tabindex: index === focusIndex ? '0' : '-1',
        onclick: () => { if (choice) this.act(choice); },
        onkeydown: (e) => this.handKeys(e),
      });
    });
    const mine = `${seatName(table, table.yourSeat) === 'You' ? 'Your hand' : 'Hand'}`;
    const out = game.phase === 'playing' && sittingOut(game).has(table.yourSeat);
    const why = game.lone_defender !== null && game.lone_defender !== undefined && partnerOf(game.lone_defender) === table.yourSeat
      ? 'You sit this hand out: your partner defends alone.'
      : 'You sit this hand out: your partner plays alone.';
    return [
      out && h('p', { class: 'sit-out-note' }, why),
      h('div', { class: ['hand', out && 'sitting-out'], role: 'toolbar', 'aria-label': mine, 'data-focus-group': 'hand' }, buttons),
    ];
  }

  handKeys(event) {
    const keys = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
    const buttons = [...event.currentTarget.parentElement.querySelectorAll('button')];
    const index = buttons.indexOf(event.currentTarget);
    let target = null;
    if (event.key in keys) target = buttons[(index + keys[event.key] + buttons.length) % buttons.length];
    else if (event.key === 'Home') target = buttons[0];
    else if (event.key === 'End') target = buttons.at(-1);
    if (!target) return;
    event.preventDefault();
    for (const b of buttons) b.tabIndex = -1;
    target.tabIndex = 0;
    target.focus();
  }

  renderScore(table) {
    const game = table.game;
    const scores = game?.scores ?? Array.from({ length: sidesOf(rulesOf(table)) }, () => 0);
    const mine = table.yourSeat === null ? 0 : sideOf(table, table.yourSeat);
    const order = sideOrder(table);
    const rubber = isRubber(table.summary.rules) && game;
    let which = null;
    if (rubber && table.rubber?.known) {
      const won = gamesWon(table.rubber);
      const number = Math.min(3, table.rubber.games.length + (isOver(game) || game.game_ended ? 0 : 1));
      which = h('p', { class: 'rubber-line' }, `Game ${number} of the rubber · games won: ${teamName(table, mine)} ${won[mine]}, ${teamName(table, 1 - mine)} ${won[1 - mine]}`);
    } else if (rubber) {
      which = h('p', { class: 'rubber-line' }, 'A rubber: the best of three games');
    }
    return [
      h('h2', {}, `Score (${goal(table.summary.rules)})`),
      which,
      h('dl', { class: 'scores', 'data-sides': order.length }, order.map((team) => [
        h('dt', {}, teamName(table, team)),
        h('dd', { 'data-team': team }, String(scores[team] ?? 0)),
      ])),
    ];
  }

  // The table's details: its code (for a report of a problem) and how its
  // deals are sealed, with what this browser found of each.
  renderDetails(table) {
    const seal = sealStatus(table);
    return [
      h('p', {}, 'Table code ', h('code', { class: 'table-id' }, table.id), ': quote it when reporting a problem.'),
      h('p', {}, 'Fair deals: the server seals each deal (a commitment, a fingerprint of the cards) before the bidding, '
        + 'and reveals it when the hand ends; this browser checks the two match. Every replay checks them again.'),
      seal && h('p', { class: ['deal-seal', seal.kind] }, seal.text),
      this.sealLines.length > 0 && h('ul', { class: 'seal-lines' }, this.sealLines.map((line) => h('li', {}, line))),
    ];
  }

  renderInfo(table) {
    const game = table.game;
    if (!game) return [];
    const lines = [];
    const alone = game.alone ? ` (${aloneWords(table)})` : '';
    if (game.trump) {
      lines.push(h('p', {}, h('span', { class: `suit-${game.trump}` }, `${SUIT_SYMBOLS[game.trump]} ${suitName(game.trump)}`),
        ` made by ${seatName(table, game.maker)}${alone}`));
    } else if (game.no_trump) {
      lines.push(h('p', { class: 'no-trump-line' }, `No trump, called by ${seatName(table, game.maker)}${alone}`));
    } else if (game.phase !== 'finished') {
      const stage = { naming_joker_suit: "The dealer names the Joker's suit", calling: 'Round two of bidding' }[game.phase];
      lines.push(h('p', {}, stage ?? 'Round one of bidding'));
    }
    if (isJoker(game.up_card ?? '') && game.joker_suit) {
      lines.push(h('p', { class: 'joker-note' }, 'The Joker turned up stands for ',
        h('span', { class: `suit-${game.joker_suit}` }, `${SUIT_SYMBOLS[game.joker_suit]} ${suitName(game.joker_suit)}`)));
    }
    lines.push(h('p', { class: 'tricks' }, `Tricks: ${sideOrder(table).map((side) => `${teamName(table, side)} ${game.tricks_won[side] ?? 0}`).join(', ')}`));
    if (game.lone_defender !== null && game.lone_defender !== undefined) {
      lines.push(h('p', {}, `Defended alone by ${seatName(table, game.lone_defender)}`));
    }
    if (game.discard) lines.push(h('p', {}, `Your discard: ${cardShort(game.discard)}`));
    // The dummy: the maker's three put back, known to him alone.
    if (game.dummy_discards?.length) {
      lines.push(h('p', { class: 'dummy-discards' }, 'You took the dummy and put back: ',
        game.dummy_discards.map((card) => h('span', { class: suitClass(card) }, cardShort(card), ' '))));
    } else if (rulesOf(table).dummy && game.dummy_taken && game.maker !== table.yourSeat) {
      lines.push(h('p', { class: 'dummy-note' }, `${seatName(table, game.maker)} took the dummy.`));
    }
    // Call for best: the passed card, known to the loner and his partner only.
    if (game.passed_card && game.maker !== null) {
      const toMe = game.maker === table.yourSeat;
      lines.push(h('p', { class: 'passed-card' }, toMe ? 'Your partner passed you: ' : 'You passed your partner: ',
        h('span', { class: suitClass(game.passed_card) }, cardShort(game.passed_card))));
    }
    if (game.loner_discard) lines.push(h('p', {}, `Your discard (from six): ${cardShort(game.loner_discard)}`));
    const last = previousTrick(game);
    if (last && last !== trickOnTable(game)) {
      lines.push(h('div', { class: 'last-trick' }, h('span', {}, 'Last trick: '),
        last.cards.map(([seat, card]) => h('span', { class: [suitClass(card), seat === last.winner && 'winner'] }, cardShort(card), ' ')),
        h('span', {}, `(${seatName(table, last.winner)})`)));
    }
    if (game.last_outcome && game.phase !== 'finished') {
      lines.push(h('p', { class: 'last-hand' }, 'Last hand: ', outcomeText(table, game.last_outcome)));
    }
    return [h('h2', {}, `Hand ${game.hand_number + 1}`), ...lines];
  }
}
