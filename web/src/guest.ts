// A guest in this browser (API.md "Guests and sign-in from elsewhere"): the name and e-mail
// they last used (so the form is filled next time), and the edit tokens of the comments they
// posted (the 201's "editToken", given once), by comment id. Kept per API origin in
// localStorage; at most kMax tokens (the edit window is short, so old ones are useless anyway).
// Storage blocked: remembered for this page view only.

const kMax = 50;

export interface GuestName { name: string; email: string }

interface Kept { name: string; email: string; tokens: [number, string][] }

const memory = new Map<string, Kept>();

function key(origin: string): string { return 'plaudit:guest:' + origin; }

function read(origin: string): Kept {
  const fallback = memory.get(origin) || { name: '', email: '', tokens: [] };
  try {
    const v = JSON.parse(localStorage.getItem(key(origin)) || 'null');
    if (!v || typeof v !== 'object') return fallback;
    const tokens = Array.isArray(v.tokens)
      ? v.tokens.filter((t: unknown) => Array.isArray(t) && Number.isSafeInteger(t[0]) && typeof t[1] === 'string')
      : [];
    return { name: String(v.name || ''), email: String(v.email || ''), tokens };
  } catch {
    return fallback;
  }
}

function write(origin: string, k: Kept): void {
  k.tokens = k.tokens.slice(-kMax);
  memory.set(origin, k);
  try { localStorage.setItem(key(origin), JSON.stringify(k)); } catch { /* memory only */ }
}

export function lastGuest(origin: string): GuestName {
  const k = read(origin);
  return { name: k.name, email: k.email };
}

export function rememberGuest(origin: string, g: GuestName, commentId: number, token: string): void {
  const k = read(origin);
  k.name = g.name;
  k.email = g.email;
  k.tokens = k.tokens.filter(([id]) => id !== commentId);
  k.tokens.push([commentId, token]);
  write(origin, k);
}

export function editToken(origin: string, commentId: number): string | null {
  const found = read(origin).tokens.find(([id]) => id === commentId);
  return found ? found[1] : null;
}

export function forgetToken(origin: string, commentId: number): void {
  const k = read(origin);
  k.tokens = k.tokens.filter(([id]) => id !== commentId);
  write(origin, k);
}

// The comment ids this browser posted as a guest.
export function guestCommentIds(origin: string): number[] {
  return read(origin).tokens.map(([id]) => id);
}
