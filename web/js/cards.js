// Cards as the protocol writes them ("Jc": rank then suit letter; "JK" the
// joker), their names for people and screen readers, the display order, and
// how they are drawn. Pure functions except `cardFace`, which builds DOM.

import { h } from './dom.js';

export const SUITS = ['spades', 'hearts', 'clubs', 'diamonds'];
const SUIT_LETTERS = 's h c d'.split(' ');
export const SUIT_SYMBOLS = { spades: '♠', hearts: '♥', clubs: '♣', diamonds: '♦' };
const RANKS = '789TJQKA';
const RANK_NAMES = ['Seven', 'Eight', 'Nine', 'Ten', 'Jack', 'Queen', 'King', 'Ace'];
const RANK_SHOWN = ['7', '8', '9', '10', 'J', 'Q', 'K', 'A'];

// The joker (rules option `joker`): the highest trump whatever trump is. It
// has no suit of its own; turned up, the dealer names the suit it stands for.
export const JOKER = 'JK';
export const isJoker = (code) => code === JOKER;
const JOKER_SYMBOL = '★';

// { rank: 0..7 (seven to ace), suit: 'spades'… } of a card code; the
// joker's is { rank: 8, suit: null, joker: true }.
export function parseCard(code) {
  if (isJoker(code)) return { rank: 8, suit: null, joker: true };
  const rank = RANKS.indexOf(code[0]);
  const suit = SUITS[SUIT_LETTERS.indexOf(code[1])];
  return { rank, suit, joker: false };
}

// The printed suit (null for the joker).
export function suitOf(code) {
  return parseCard(code).suit;
}

// The suit round one is about: the up-card's, or the one the dealer named
// for a turned-up joker (null until named).
export function upSuit(upCard, jokerSuit) {
  return isJoker(upCard) ? jokerSuit ?? null : suitOf(upCard);
}

// The other suit of the same colour: where the left bower comes from.
export function sameColour(suit) {
  return SUITS[SUITS.indexOf(suit) ^ 2];
}

const isJack = (card) => card.rank === 4;

// The suit a card belongs to once trump is known (the left bower and the
// joker are trump; before trump the joker belongs to no suit).
export function effectiveSuit(code, trump) {
  const card = parseCard(code);
  if (card.joker) return trump ?? null;
  if (trump && isJack(card) && card.suit === sameColour(trump)) return trump;
  return card.suit;
}

// Strength within the card's effective suit: the joker highest, then the
// right bower, the left, then by rank.
function power(code, trump) {
  const card = parseCard(code);
  if (card.joker) return 21;
  if (isJack(card) && card.suit === trump) return 20;
  if (isJack(card) && card.suit === sameColour(trump)) return 19;
  return card.rank;
}

// The server's display order (crates/engine/src/view.rs): trump first once
// known (the joker first of all), then the other suits in protocol order;
// strongest first in each. Before trump the joker leads the hand.
export function sortForDisplay(cards, trump) {
  const key = (code) => {
    if (trump) {
      const suit = effectiveSuit(code, trump);
      const group = suit === trump ? 0 : 1 + SUITS.indexOf(suit);
      return [group, -power(code, trump)];
    }
    const card = parseCard(code);
    if (card.joker) return [0, 0];
    return [1 + SUITS.indexOf(card.suit), -card.rank];
  };
  return [...cards].sort((a, b) => {
    const [ga, pa] = key(a);
    const [gb, pb] = key(b);
    return ga - gb || pa - pb;
  });
}

export function cardName(code) {
  const { rank, suit, joker } = parseCard(code);
  if (joker) return 'Joker';
  return `${RANK_NAMES[rank]} of ${suit}`;
}

// "J♣": short text for logs and announcements' visual twin ("★Joker").
export function cardShort(code) {
  const { rank, suit, joker } = parseCard(code);
  if (joker) return `${JOKER_SYMBOL}Joker`;
  return `${RANK_SHOWN[rank]}${SUIT_SYMBOLS[suit]}`;
}

// The class that colours a card's text: its suit's, or the joker's.
export function suitClass(code) {
  return isJoker(code) ? 'joker' : `suit-${suitOf(code)}`;
}

export function suitName(suit) {
  return suit.charAt(0).toUpperCase() + suit.slice(1);
}

// The face of a card: rank and suit symbol in a corner, the symbol large in
// the middle. The four suits have four colours and four shapes, so they are
// told apart without colour too; the joker has a colour, a star and its
// name of its own. `tag` is 'button' for a playable hand.
export function cardFace(code, { tag = 'div', label, trump, class: extra, ...attributes } = {}) {
  const { rank, suit, joker } = parseCard(code);
  const isTrump = trump && effectiveSuit(code, trump) === trump;
  const name = label ?? cardName(code);
  const shell = {
    class: ['card', suitClass(code), isTrump && 'trump', extra],
    'aria-label': name,
    title: tag === 'div' ? name : undefined,
    ...(tag === 'div' ? { role: 'img' } : { type: 'button' }),
    ...attributes,
  };
  if (joker) {
    const corner = (where) => h('span', { class: ['corner', where], 'aria-hidden': 'true' },
      h('span', { class: 'pip' }, JOKER_SYMBOL));
    return h(tag, shell,
      corner(),
      h('span', { class: 'middle', 'aria-hidden': 'true' },
        h('span', { class: 'star' }, JOKER_SYMBOL),
        h('span', { class: 'word' }, 'Joker')),
      corner('bottom'));
  }
  const corner = (where) => h('span', { class: ['corner', where], 'aria-hidden': 'true' },
    h('span', { class: 'rank' }, RANK_SHOWN[rank]),
    h('span', { class: 'pip' }, SUIT_SYMBOLS[suit]));
  return h(tag, shell,
    corner(),
    h('span', { class: 'middle', 'aria-hidden': 'true' }, SUIT_SYMBOLS[suit]),
    corner('bottom'));
}

// The back of a card (another player's hand).
export function cardBack(attributes = {}) {
  return h('div', { class: 'card back', 'aria-hidden': 'true', ...attributes });
}
