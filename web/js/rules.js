// The rules presets, mirroring crates/engine/src/rules.rs (`Preset::rules`),
// so the form can show each option's value plainly before a table exists,
// and short descriptions of a table's rules.

const STANDARD = {
  players: 4,
  dummy: false,
  deck: 'nine_to_ace',
  points_to_win: 10,
  all_pass: 'redeal',
  scoring: { made: 1, march: 2, lone_march: 4, euchre: 2, lone_euchre: 2, defender_alone_euchre: 4 },
  dealer_may_discard_up_card: true,
  dealer_picks_up_for_partner_loner: true,
  turned_down_suit: 'rejected',
  loner_lead: 'left_of_dealer',
  farmers_hand: false,
  first_dealer: 'first_jack',
  canadian_loner: false,
  defend_alone: false,
  call_for_best: false,
  joker: false,
  allow_no_trump: false,
  rubber: false,
};

// Sheet 000's three-handed game, which its two-handed game builds on.
const THREE_HANDED = {
  ...STANDARD,
  players: 3,
  dummy: true,
  all_pass: 'stick_the_dealer',
  scoring: { ...STANDARD.scoring, lone_euchre: 4 },
};

export const PRESETS = {
  standard: { title: 'Standard', about: 'Our defaults: everybody passes twice and the hand is redealt.', rules: STANDARD },
  stick_the_dealer: {
    title: 'Stick the dealer',
    about: 'The dealer must name trump if everybody passes; a euchred loner gives 4.',
    rules: { ...STANDARD, all_pass: 'stick_the_dealer', scoring: { ...STANDARD.scoring, lone_euchre: 4 } },
  },
  tournament: {
    title: 'Tournament',
    about: 'The picked-up card stays; naming the turned-down suit counts as a pass.',
    rules: { ...STANDARD, dealer_may_discard_up_card: false, turned_down_suit: 'counts_as_pass' },
  },
  classic: {
    title: 'Classic',
    about: 'A draw sets partners and the first dealer; the dealer keeps the up-card.',
    rules: { ...STANDARD, dealer_may_discard_up_card: false, first_dealer: 'draw' },
  },
  farmers: { title: "Farmer's hand", about: 'A hand of only nines and tens may be thrown in.', rules: { ...STANDARD, farmers_hand: true } },
  online: {
    title: 'Online',
    about: 'Stick the dealer; the player left of a loner leads.',
    rules: { ...STANDARD, all_pass: 'stick_the_dealer', loner_lead: 'left_of_loner' },
  },
  // The two- and three-handed games: every player for himself.
  three_handed: {
    title: 'Three-handed, with a dummy',
    about: 'Three players, each for himself. The maker takes a three-card dummy and discards three, or goes alone without it. Stick the dealer; a euchred loner gives 4.',
    rules: THREE_HANDED,
  },
  cutthroat: {
    title: 'Cutthroat',
    about: 'Three players, each for himself: the maker always plays alone against the other two. A march scores 3; a euchre gives each defender 2.',
    rules: { ...STANDARD, players: 3, scoring: { ...STANDARD.scoring, march: 3 } },
  },
  two_handed: {
    title: 'Two-handed, with a dummy',
    about: 'Two players, 20 cards (the nines out). The maker takes a three-card dummy and discards three, or goes alone without it.',
    rules: { ...THREE_HANDED, players: 2, deck: 'ten_to_ace' },
  },
  two_handed_plain: {
    title: 'Two-handed',
    about: 'Two players, 24 cards, five each: two cards to a trick.',
    rules: { ...STANDARD, players: 2 },
  },
};

// How many play under a preset (or a table's rules).
export const playersIn = (rules) => rules?.players ?? 4;

// The options that only mean something with partners, and why they are off
// without them (the server refuses them at a two- or three-seat table).
export function unavailable(rules) {
  const players = playersIn(rules);
  const off = {};
  if (players !== 4) {
    const why = 'Only the four-handed game has partners.';
    off.canadian_loner = why;
    off.defend_alone = why;
    off.call_for_best = why;
    off.rubber = 'Rubbers are played between partnerships, at four-seat tables.';
  }
  // Going alone: without a partner, or without the dummy. Cutthroat's maker
  // is always alone and the plain two-handed game has nobody to leave out.
  if (players !== 4 && !rules.dummy) {
    off.lone_euchre = 'Nobody goes alone in this game.';
    off.loner_lead = 'Nobody goes alone in this game.';
  }
  return off;
}

// The rule options that differ from the preset's.
export function ruleOverrides(preset, chosen) {
  const base = PRESETS[preset].rules;
  const overrides = {};
  for (const [key, value] of Object.entries(chosen)) {
    if (JSON.stringify(base[key]) !== JSON.stringify(value)) overrides[key] = value;
  }
  return overrides;
}

// A table's name in lists: its host's ("Ada's table"; its form follows in
// `describeRules`), not an id nobody reads. Pool tables are hosted by no
// player (the server names their host "Quick play").
export function tableName(summary) {
  return summary.host === 'Quick play' ? 'Quick play table' : `${summary.host}'s table`;
}

// How a game is won: "to 10", or "8 hands" for a game of a fixed number of
// hands (a progressive night's round).
export function goal(rules) {
  return rules?.game_hands ? `${rules.game_hands} hands` : `to ${rules?.points_to_win ?? '?'}`;
}

export function describeRules(summary) {
  const r = summary.rules;
  const players = playersIn(r);
  const parts = [PRESETS[summary.preset]?.title ?? summary.preset, `${players} players`, goal(r)];
  if (r.all_pass === 'stick_the_dealer') parts.push('stick the dealer');
  if (r.farmers_hand) parts.push("farmer's hand");
  if (r.canadian_loner) parts.push('Canadian loner');
  if (r.defend_alone) parts.push('defend alone');
  if (r.call_for_best) parts.push('call for best');
  if (r.joker) parts.push('joker');
  if (r.allow_no_trump) parts.push('no trump');
  if (r.rubber) parts.push('rubber (best of three)');
  if (r.deck === 'ten_to_ace') parts.push('20 cards');
  if (r.deck === 'eight_to_ace') parts.push('28 cards');
  if (r.deck === 'seven_to_ace') parts.push('32 cards');
  if (r.scoring.lone_euchre !== 2) parts.push(`lone euchre ${r.scoring.lone_euchre}`);
  if (summary.turn_seconds) parts.push(`${summary.turn_seconds} s turns`);
  if (!summary.chat) parts.push('no chat');
  return parts.join(' · ');
}
