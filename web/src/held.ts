// The writer's own comments that wait for a moderator, remembered in this browser. Lists carry
// approved comments only (for their writer too, API.md "Moderation"), so without this a held
// comment would vanish from its writer's page on the next load. GET /api/v1/comments/{id}
// shows a held comment to its writer, so the ids are enough; once a comment is approved, gone
// or spam-deleted it is forgotten. Kept per API origin, user and thread; at most kMax ids. A
// guest's (user 0) are read back with their edit tokens (guest.ts).
import { Api, ApiError, Comment } from './api';

const kMax = 20;

function key(api: Api, userId: number, articleId: number): string {
  return `plaudit:held:${api.origin}:${userId}:${articleId}`;
}

function read(k: string): number[] {
  try {
    const v = JSON.parse(localStorage.getItem(k) || '[]');
    return Array.isArray(v) ? v.filter((x) => Number.isSafeInteger(x) && x > 0) : [];
  } catch {
    return [];  // storage blocked or a damaged entry: nothing remembered
  }
}

function write(k: string, ids: number[]): void {
  try {
    if (ids.length) localStorage.setItem(k, JSON.stringify(ids.slice(-kMax)));
    else localStorage.removeItem(k);
  } catch { /* storage blocked: remembered for this page view only (it is on screen) */ }
}

export function rememberHeld(api: Api, c: Comment): void {
  const k = key(api, api.user ? api.user.id : 0, c.articleId);
  const ids = read(k);
  if (!ids.includes(c.id)) write(k, [...ids, c.id]);
}

// The caller's held comments of a thread, oldest first; forgets those no longer held.
export async function heldComments(api: Api, articleId: number): Promise<Comment[]> {
  const k = key(api, api.user ? api.user.id : 0, articleId);
  const ids = read(k);
  if (!ids.length) return [];
  // 404: gone (or no longer ours to see); another failure keeps the id for the next load.
  const found = await Promise.all(ids.map((id) =>
    api.getComment(id).then(
      (c) => ({ id, c, keep: !c.deleted && !!c.status && c.status !== 'approved' }),
      (e) => ({ id, c: null, keep: !(e instanceof ApiError && e.status === 404) }))));
  write(k, found.filter((x) => x.keep).map((x) => x.id));
  return found.filter((x) => x.keep && x.c).map((x) => x.c as Comment);
}
