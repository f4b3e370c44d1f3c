// Who this browser plays as, kept in localStorage: the identity (name,
// token, player id, and whether it is an account's) and the tables it
// created; the name in the header and Change name; the name form a
// newcomer sees first; and starting over as a new guest when the server
// will not have the identity.

import { h, replaceChildren } from './dom.js';

const IDENTITY_KEY = 'euchre.identity';
const HOSTED_KEY = 'euchre.hosted';

const nameBadge = document.getElementById('player-name');
const changeNameButton = document.getElementById('change-name');

function load(key, fallback) {
  try {
    return JSON.parse(localStorage.getItem(key)) ?? fallback;
  } catch {
    return fallback;
  }
}

function save(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // Private browsing without storage: the identity lasts for this page only.
  }
}

// The identity kept from an earlier visit: { name, token, id, account }, or {}.
export const savedIdentity = () => load(IDENTITY_KEY, {});
// The tables this player created, kept so a reload still knows it hosts them.
export const savedHosted = () => new Set(load(HOSTED_KEY, []));

// What a name of only spaces gets instead of nothing happening.
const BLANK_NAME = 'A name needs more than spaces: type the name to play under.';

// `client` (js/main.js) gives: state, connection, notice(text, kind),
// route(moved), go(hash). Gives: setIdentity(identity), showIdentity(),
// keepHosted(id), startOver(why), nameForm(); and answers the header's
// Change name from then on.
export function session(client) {
  const { state } = client;

  // Who this browser is from now on: kept, and shown in the header.
  function setIdentity(identity) {
    state.identity = identity;
    save(IDENTITY_KEY, state.identity);
    showIdentity();
  }

  // The name in the header, and Change name only for a guest with a name:
  // an account's name is its own, and before a name there is none to change.
  function showIdentity() {
    nameBadge.textContent = state.identity.name ?? '';
    changeNameButton.hidden = !state.identity.name || Boolean(state.identity.account);
  }

  // A table this player created (the last 20 are kept).
  function keepHosted(id) {
    state.hosted.add(id);
    save(HOSTED_KEY, [...state.hosted].slice(-20));
  }

  // Forgets who this browser was and asks for a name again, saying why.
  function startOver(why) {
    setIdentity({});
    client.notice(why, 'error');
    // The name form at the page's own address (a table's link is kept for
    // after the name), but from Account (which, without a name, is only the
    // log-in) the lobby's: the notice asks for a name first.
    if (state.route.page === 'account') client.go('#/');
    else client.route(true);
  }

  function nameForm() {
    const input = h('input', { id: 'name', name: 'name', required: true, maxlength: '32', autocomplete: 'nickname', value: state.identity.name ?? '' });
    const submit = (event) => {
      event.preventDefault();
      const name = input.value.trim();
      if (!name) {
        client.notice(BLANK_NAME, 'error');
        input.focus();
        return;
      }
      setIdentity({ name });
      client.connection.restart();
      client.route(true);
    };
    const form = h('form', { class: 'name-form card-panel', onsubmit: submit },
      h('h1', {}, 'Welcome to Euchre'),
      h('p', {}, 'Pick a name to play under. It is kept in this browser, so a reload keeps your seat.'),
      h('label', { for: 'name' }, 'Display name'),
      input,
      h('button', { type: 'submit', class: 'primary', 'data-action': 'set-name' }, 'Continue'),
      h('p', { class: 'muted' }, 'Have an account? ', h('a', { href: '#/account' }, 'Log in'), ' instead.'));
    return { mount: (container) => { replaceChildren(container, form); input.focus(); } };
  }

  // The header's Change name: a new guest identity under the new name.
  function changeName() {
    if (state.identity.account) {
      client.notice('Your name is your account’s: log out first (Account) to play as someone else.', 'error');
      return;
    }
    const name = prompt('A new name starts a new guest identity (your current seats stay with the old one). New name:', state.identity.name ?? '');
    if (name === null) return; // cancelled
    if (!name.trim()) {
      client.notice(BLANK_NAME, 'error');
      return;
    }
    setIdentity({ name: name.trim().slice(0, 32) });
    state.tables.clear();
    state.quickPlay = null;
    client.connection.restart();
    client.go('#/');
  }

  changeNameButton.addEventListener('click', changeName);

  return { setIdentity, showIdentity, keepHosted, startOver, nameForm };
}
