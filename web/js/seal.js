// Provably fair deals (docs/security.md): before the first bid the server
// sends each hand's commitment, the SHA-256 of `euchre-deal-v1:<deck>:<salt>`;
// once the hand is over it reveals the deck and the salt. Anyone can hash
// them again: this file does it in the browser, with Web Crypto.

export const preimage = (deck, salt) => `euchre-deal-v1:${deck.join(',')}:${salt}`;

// Whether this page can hash (Web Crypto is only on https or localhost).
export const canHash = () => Boolean(globalThis.crypto?.subtle);

// Whether `deck` (in the committed order) and `salt` hash to `commitment`.
export async function opens(deck, salt, commitment) {
  const bytes = new TextEncoder().encode(preimage(deck, salt));
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  const hex = [...digest].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return hex === commitment;
}
