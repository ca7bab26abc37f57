// The moderation endpoints the console calls (API.md "Moderation"), typed. Every call goes
// through Api.request, so errors arrive as ApiError with the server's code.
import { Api, Comment, User } from './api';

export type QueueStatus = 'pending' | 'reported' | 'spam';
export type Action = 'approve' | 'spam' | 'delete' | 'restore';
export type Role = 'user' | 'author' | 'moderator' | 'admin';
export const kRoles: Role[] = ['user', 'author', 'moderator', 'admin'];

export interface QueueItem extends Comment {
  article: { id: number; title: string; url: string | null };
  reports: number;
  reasons: string[];
  guestEmail?: string;  // a guest's, to admins only
}
export interface LogEntry {
  id: number; at: string; actor: number | null; action: string;
  commentId: number | null; userId: number | null; reason: string;
}
export interface Page<T> { items: T[]; nextCursor: string | null }

export const isModerator = (u: User | null) => !!u && (u.role === 'moderator' || u.role === 'admin');

export function queue(api: Api, status: QueueStatus, cursor?: string): Promise<Page<QueueItem>> {
  return api.request('GET', '/api/v1/moderation/comments', { status, cursor, size: 20 });
}

// One request for up to 100 ids; each id answers "ok" or an error code on its own.
export async function act(api: Api, ids: number[], action: Action): Promise<Record<string, string>> {
  const r = await api.request<{ results: Record<string, string> }>(
    'POST', '/api/v1/moderation/comments', {}, { ids, action });
  return r.results;
}

export function moderationLog(api: Api, cursor?: string): Promise<Page<LogEntry>> {
  return api.request('GET', '/api/v1/moderation/log', { cursor });
}

export function ban(api: Api, userId: number, until: string | undefined, reason: string): Promise<User> {
  const body: Record<string, string> = {};
  if (until) body.until = until;
  if (reason) body.reason = reason;
  return api.request('PUT', `/api/v1/users/${userId}/ban`, {}, body);
}

export function unban(api: Api, userId: number): Promise<User> {
  return api.request('DELETE', `/api/v1/users/${userId}/ban`);
}

export function users(api: Api, q: string, cursor?: string): Promise<Page<User>> {
  return api.request('GET', '/api/v1/users', { q: q || undefined, cursor, size: 20 });
}

export function setRole(api: Api, userId: number, role: Role): Promise<User> {
  return api.request('PATCH', `/api/v1/users/${userId}`, {}, { role });
}

// Names for the ids the log and replies refer to: one request per id per page view.
export class Directory {
  private users = new Map<number, Promise<User | null>>();
  private comments = new Map<number, Promise<Comment | null>>();
  constructor(private api: Api) {}
  user(id: number): Promise<User | null> {
    let p = this.users.get(id);
    if (!p) {
      p = this.api.request<User>('GET', `/api/v1/users/${id}`).catch(() => null);
      this.users.set(id, p);
    }
    return p;
  }
  // Moderators see held comments too, so a held reply's held parent still shows.
  comment(id: number): Promise<Comment | null> {
    let p = this.comments.get(id);
    if (!p) {
      p = this.api.request<Comment>('GET', `/api/v1/comments/${id}`).catch(() => null);
      this.comments.set(id, p);
    }
    return p;
  }
}
