// The rules presets, mirroring crates/engine/src/rules.rs (`Preset::rules`),
// so the form can show each option's value plainly before a table exists,
// and short descriptions of a table's rules.

const STANDARD = {
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
};

// The rule options that differ from the preset's.
export function ruleOverrides(preset, chosen) {
  const base = PRESETS[preset].rules;
  const overrides = {};
  for (const [key, value] of Object.entries(chosen)) {
    if (JSON.stringify(base[key]) !== JSON.stringify(value)) overrides[key] = value;
  }
  return overrides;
}

export function describeRules(summary) {
  const r = summary.rules;
  const parts = [PRESETS[summary.preset]?.title ?? summary.preset, `to ${r.points_to_win}`];
  if (r.all_pass === 'stick_the_dealer') parts.push('stick the dealer');
  if (r.farmers_hand) parts.push("farmer's hand");
  if (r.canadian_loner) parts.push('Canadian loner');
  if (r.defend_alone) parts.push('defend alone');
  if (r.call_for_best) parts.push('call for best');
  if (r.joker) parts.push('joker');
  if (r.allow_no_trump) parts.push('no trump');
  if (r.rubber) parts.push('rubber (best of three)');
  if (r.deck === 'eight_to_ace') parts.push('28 cards');
  if (r.deck === 'seven_to_ace') parts.push('32 cards');
  if (r.scoring.lone_euchre !== 2) parts.push(`lone euchre ${r.scoring.lone_euchre}`);
  if (summary.turn_seconds) parts.push(`${summary.turn_seconds} s turns`);
  if (!summary.chat) parts.push('no chat');
  return parts.join(' · ');
}
