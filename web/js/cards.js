// Cards as the protocol writes them ("Jc": rank then suit letter), their
// names for people and screen readers, the display order, and how they are
// drawn. Pure functions except `cardFace`, which builds DOM.

import { h } from './dom.js';

export const SUITS = ['spades', 'hearts', 'clubs', 'diamonds'];
const SUIT_LETTERS = 's h c d'.split(' ');
export const SUIT_SYMBOLS = { spades: '♠', hearts: '♥', clubs: '♣', diamonds: '♦' };
const RANKS = '789TJQKA';
const RANK_NAMES = ['Seven', 'Eight', 'Nine', 'Ten', 'Jack', 'Queen', 'King', 'Ace'];
const RANK_SHOWN = ['7', '8', '9', '10', 'J', 'Q', 'K', 'A'];

// { rank: 0..7 (seven to ace), suit: 'spades'… } of a card code.
export function parseCard(code) {
  const rank = RANKS.indexOf(code[0]);
  const suit = SUITS[SUIT_LETTERS.indexOf(code[1])];
  return { rank, suit };
}

export function suitOf(code) {
  return parseCard(code).suit;
}

// The other suit of the same colour: where the left bower comes from.
export function sameColour(suit) {
  return SUITS[SUITS.indexOf(suit) ^ 2];
}

const isJack = (card) => card.rank === 4;

// The suit a card belongs to once trump is known (the left bower is trump).
export function effectiveSuit(code, trump) {
  const card = parseCard(code);
  if (trump && isJack(card) && card.suit === sameColour(trump)) return trump;
  return card.suit;
}

// Strength within the card's effective suit: the right bower highest, then
// the left, then by rank.
function power(code, trump) {
  const card = parseCard(code);
  if (isJack(card) && card.suit === trump) return 20;
  if (isJack(card) && card.suit === sameColour(trump)) return 19;
  return card.rank;
}

// The server's display order (crates/engine/src/view.rs): trump first once
// known, then the other suits in protocol order; strongest first in each.
export function sortForDisplay(cards, trump) {
  const key = (code) => {
    if (trump) {
      const suit = effectiveSuit(code, trump);
      const group = suit === trump ? 0 : 1 + SUITS.indexOf(suit);
      return [group, -power(code, trump)];
    }
    const card = parseCard(code);
    return [SUITS.indexOf(card.suit), -card.rank];
  };
  return [...cards].sort((a, b) => {
    const [ga, pa] = key(a);
    const [gb, pb] = key(b);
    return ga - gb || pa - pb;
  });
}

export function cardName(code) {
  const { rank, suit } = parseCard(code);
  return `${RANK_NAMES[rank]} of ${suit}`;
}

// "J♣": short text for logs and announcements' visual twin.
export function cardShort(code) {
  const { rank, suit } = parseCard(code);
  return `${RANK_SHOWN[rank]}${SUIT_SYMBOLS[suit]}`;
}

export function suitName(suit) {
  return suit.charAt(0).toUpperCase() + suit.slice(1);
}

// The face of a card: rank and suit symbol in a corner, the symbol large in
// the middle. The four suits have four colours and four shapes, so they are
// told apart without colour too. `tag` is 'button' for a playable hand.
export function cardFace(code, { tag = 'div', label, trump, class: extra, ...attributes } = {}) {
  const { rank, suit } = parseCard(code);
  const isTrump = trump && effectiveSuit(code, trump) === trump;
  const name = label ?? cardName(code);
  return h(
    tag,
    {
      class: ['card', `suit-${suit}`, isTrump && 'trump', extra],
      'aria-label': name,
      title: tag === 'div' ? name : undefined,
      ...(tag === 'div' ? { role: 'img' } : { type: 'button' }),
      ...attributes,
    },
    h('span', { class: 'corner', 'aria-hidden': 'true' },
      h('span', { class: 'rank' }, RANK_SHOWN[rank]),
      h('span', { class: 'pip' }, SUIT_SYMBOLS[suit])),
    h('span', { class: 'middle', 'aria-hidden': 'true' }, SUIT_SYMBOLS[suit]),
    h('span', { class: 'corner bottom', 'aria-hidden': 'true' },
      h('span', { class: 'rank' }, RANK_SHOWN[rank]),
      h('span', { class: 'pip' }, SUIT_SYMBOLS[suit])),
  );
}

// The back of a card (another player's hand).
export function cardBack(attributes = {}) {
  return h('div', { class: 'card back', 'aria-hidden': 'true', ...attributes });
}
