// The client of plauditd's public HTTP API (/work/shared/API.md) for the widget and the site's
// own pages. On a host page authentication is the Bearer token of POST /api/v1/sessions, kept in
// localStorage under a key naming the API origin: there the session cookie would be a
// third-party cookie, which browsers block or partition (see docs/architecture.md). plauditd's
// own pages (cookie mode) use the HttpOnly session cookie instead: same origin, so no script
// (not even an injected one) ever holds the token, and the API's CSRF rule accepts the writes.

import { GuestName, editToken } from './guest';

export interface User {
  // A guest author (API.md "Guests"): id null, no username, "guest": true.
  id: number; username: string; displayName: string; role?: string; guest?: boolean;
  // The user object of /users/me, of comment authors and of the users list (API.md "Moderation").
  createdAt?: string; banned?: boolean; bannedUntil?: string | null; banReason?: string;
}
export interface Comment {
  id: number; articleId: number; parentId: number | null; author: User;
  replyTo: User | null; body: string; createdAt: string; updatedAt: string;
  // body rendered by the server (Markdown through its sanitiser); '' for a comment written
  // before comments had html, until the server's next start renders it.
  html: string;
  likeCount: number; replyCount: number; liked: boolean; deleted: boolean;
  editToken?: string;  // a guest's comment, in its 201 only
  // Held comments reach only their writer and moderators; lists carry approved ones.
  status?: 'approved' | 'pending' | 'spam';
  replies?: Comment[];
}
// What the widget's comment form sends beside the text (API.md "Moderation", spam signals):
// the hidden `website` field people never fill, and how long the form was open.
export interface FormSignals { website: string; formAgeMs: number }
export interface CommentList { items: Comment[]; total: number; nextCursor: string | null }
export interface ThreadInfo { articleId: number | null; commentCount: number; likeCount: number; liked: boolean }
export interface LikeState { liked: boolean; likeCount: number }
export type Sort = 'new' | 'old' | 'hot';
// GET /api/v1/auth/providers: the ways in this server offers.
export interface Providers { items: { name: string; kind: 'oidc' | 'github' | 'sso' }[]; guests: 'off' | 'moderated' | 'on' }

export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string,
              readonly retryAfter: number | null = null) {
    super(message);
  }
}

// `sso`: the host site's iss and sub this session was signed in for (embed.ts data-sso-token).
interface Session { token: string; user: User; expiresAt: string; sso?: string }
type Query = Record<string, string | number | string[] | undefined>;

function queryString(q: Query): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) p.append(k, String(one));
  }
  const s = p.toString();
  return s ? '?' + s : '';
}

// localStorage may be unavailable (storage blocked for third parties, private modes): then
// the session lasts as long as the page.
class Store {
  private memory: string | null = null;
  constructor(private key: string) {}
  get(): string | null {
    try { return localStorage.getItem(this.key); } catch { return this.memory; }
  }
  set(v: string | null): void {
    this.memory = v;
    try { v === null ? localStorage.removeItem(this.key) : localStorage.setItem(this.key, v); } catch { /* memory only */ }
  }
}

export class Api {
  private store: Store;
  session: Session | null = null;
  onSessionChange: () => void = () => {};

  constructor(readonly origin: string, readonly cookie = false) {
    this.store = new Store('plaudit:session:' + origin);
    if (cookie) return;  // the user is learnt from GET /users/me (refreshUser)
    try {
      const s = JSON.parse(this.store.get() || 'null') as Session | null;
      if (s && s.token && Date.parse(s.expiresAt) > Date.now()) this.session = s;
    } catch { /* a damaged entry is no session */ }
  }

  get user(): User | null { return this.session ? this.session.user : null; }

  private setSession(s: Session | null): void {
    // In cookie mode the token is not kept (''): the user tells sessions apart.
    const key = (x: Session | null) => x && (x.token || 'user:' + x.user.id);
    const changed = key(this.session) !== key(s);
    if (s && this.cookie) s = { ...s, token: '' };
    this.session = s;
    if (!this.cookie) this.store.set(s ? JSON.stringify(s) : null);
    if (changed) this.onSessionChange();
  }

  async request<T>(method: string, path: string, query: Query = {}, body?: unknown,
                   extra: Record<string, string> = {}): Promise<T> {
    const headers: Record<string, string> = { ...extra };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const token = this.session && this.session.token;
    if (token) headers['Authorization'] = 'Bearer ' + token;
    let res: Response;
    try {
      res = await fetch(this.origin + path + queryString(query), {
        method, headers, credentials: this.cookie ? 'same-origin' : 'omit', mode: this.cookie ? 'same-origin' : 'cors',
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch {
      throw new ApiError(0, 'network', 'network error');
    }
    if (res.status === 204) return undefined as T;
    let data: any = null;
    try { data = await res.json(); } catch { /* not JSON: a proxy's page */ }
    if (!res.ok) {
      const e = (data && data.error) || {};
      // An expired or revoked token answers 401 everywhere: forget it so the reader can read on.
      if (res.status === 401 && token && this.session && this.session.token === token) this.setSession(null);
      const ra = res.headers.get('Retry-After');
      throw new ApiError(res.status, e.code || 'http_' + res.status, e.message || res.statusText,
                         ra !== null && /^\d+$/.test(ra) ? Number(ra) : null);
    }
    return data as T;
  }

  async signIn(username: string, password: string): Promise<User> {
    const s = await this.request<Session>('POST', '/api/v1/sessions', {}, { username, password });
    this.setSession(s);
    return s.user;
  }

  // A host site's signed token (API.md "Site sign-in"); `sso` names whom it was for.
  async signInSso(token: string, sso: string): Promise<User> {
    const s = await this.request<Session>('POST', '/api/v1/sessions/sso', {}, { token });
    this.setSession({ ...s, sso });
    return s.user;
  }

  // Sign-in with an OpenID provider or GitHub (API.md "Guests and sign-in from elsewhere"): a
  // popup goes through the provider and plauditd's callback, which hands the session back by
  // postMessage to this page's origin; only a message from plauditd's origin is taken.
  signInWith(name: string): Promise<User> {
    return new Promise((resolve, reject) => {
      const url = `${this.origin}/api/v1/auth/${encodeURIComponent(name)}/start` +
                  queryString({ return: location.href });
      const popup = window.open(url, 'plaudit-signin', 'popup,width=520,height=680');
      if (!popup) { reject(new ApiError(0, 'popup_blocked', 'the sign-in window was blocked')); return; }
      let done = false;
      const finish = () => { done = true; window.removeEventListener('message', onMessage); clearInterval(timer); };
      const onMessage = (ev: MessageEvent) => {
        if (ev.origin !== this.origin || !ev.data || ev.data.type !== 'plaudit:session') return;
        finish();
        const s = ev.data.session as Session;
        this.setSession(s);
        resolve(s.user);
      };
      // Closed without a session (the reader gave up, or the provider refused): after a moment,
      // so a message posted just before the window closed still arrives first.
      const timer = setInterval(() => {
        if (!popup.closed || done) return;
        setTimeout(() => { if (!done) { finish(); reject(new ApiError(0, 'closed', 'the sign-in window was closed')); } }, 500);
        clearInterval(timer);
      }, 300);
      window.addEventListener('message', onMessage);
    });
  }

  private providersOnce: Promise<Providers> | null = null;
  providers(): Promise<Providers> {
    if (!this.providersOnce) {
      this.providersOnce = this.request<Providers>('GET', '/api/v1/auth/providers').catch((e) => {
        this.providersOnce = null;
        throw e;
      });
    }
    return this.providersOnce;
  }

  // First-run setup (the token from plauditd's log): creates the first admin and signs in.
  async setup(token: string, username: string, password: string, displayName: string): Promise<User> {
    const body: Record<string, string> = { token, username, password };
    if (displayName) body.displayName = displayName;
    const s = await this.request<Session>('POST', '/api/v1/setup', {}, body);
    this.setSession(s);
    return s.user;
  }

  async signUp(username: string, password: string, displayName: string): Promise<User> {
    const body: Record<string, string> = { username, password };
    if (displayName) body.displayName = displayName;
    await this.request<User>('POST', '/api/v1/users', {}, body);
    return this.signIn(username, password);
  }

  async signOut(): Promise<void> {
    try {
      if (this.session || this.cookie) await this.request('DELETE', '/api/v1/sessions/current');
    } finally {
      this.setSession(null);
    }
  }

  // Checks a stored session once per page view; a 401 clears it (see request()).
  // In cookie mode, learns who the cookie names (401: nobody).
  async refreshUser(): Promise<void> {
    if (this.cookie) {
      try {
        const u = await this.request<User>('GET', '/api/v1/users/me');
        this.setSession({ token: '', expiresAt: '', user: u });
      } catch (e) {
        if (e instanceof ApiError && e.status === 401) this.setSession(null);
        else throw e;
      }
      return;
    }
    if (!this.session) return;
    const u = await this.request<User>('GET', '/api/v1/users/me');
    if (this.session) this.setSession({ ...this.session, user: u });
  }

  replies(id: number, cursor?: string): Promise<CommentList> {
    return this.request('GET', `/api/v1/comments/${id}/replies`, { sort: 'old', size: 20, cursor });
  }
  // A guest's own comment is edited, deleted and read back with its edit token (guest.ts).
  private asGuest(id: number): Record<string, string> {
    const token = this.session ? null : editToken(this.origin, id);
    return token ? { 'Plaudit-Edit-Token': token } : {};
  }
  getComment(id: number): Promise<Comment> {
    return this.request('GET', `/api/v1/comments/${id}`, {}, undefined, this.asGuest(id));
  }
  // The body as a comment with it would show (nothing stored).
  previewComment(body: string): Promise<{ html: string }> {
    return this.request('POST', '/api/v1/comments/preview', {}, { body });
  }
  editComment(id: number, body: string): Promise<Comment> {
    return this.request('PATCH', `/api/v1/comments/${id}`, {}, { body }, this.asGuest(id));
  }
  deleteComment(id: number): Promise<void> {
    return this.request('DELETE', `/api/v1/comments/${id}`, {}, undefined, this.asGuest(id));
  }
  // Once per reader; a second report is also 204 and changes nothing.
  reportComment(id: number): Promise<void> {
    return this.request('POST', `/api/v1/comments/${id}/reports`, {}, {});
  }
  likeComment(id: number, on: boolean): Promise<LikeState> {
    return this.request(on ? 'PUT' : 'DELETE', `/api/v1/comments/${id}/like`);
  }
  // The caller's like state for many comments: one call per 100 ids.
  async commentLikes(ids: number[]): Promise<Record<string, LikeState>> {
    const out: Record<string, LikeState> = {};
    for (let i = 0; i < ids.length; i += 100) {
      const r = await this.request<{ comment?: Record<string, LikeState> }>(
        'GET', '/api/v1/likes', { comment: ids.slice(i, i + 100).join(',') });
      Object.assign(out, r.comment || {});
    }
    return out;
  }
}

// What a thread hangs on: a page of a host site (by URL; its thread is created by the first
// write), or an article of plauditd's own site.
export interface ThreadSource {
  info(): Promise<ThreadInfo>;
  list(sort: Sort, cursor?: string): Promise<CommentList>;
  // With `guest`, posted without a session (API.md "Guests").
  post(body: string, parentId?: number, replyToUserId?: number, signals?: FormSignals,
       guest?: GuestName): Promise<Comment>;
  like(on: boolean): Promise<LikeState>;
}

// The "guest" object of a post: the e-mail only when given.
function guestBody(g?: GuestName): { name: string; email?: string } | undefined {
  if (!g) return undefined;
  return g.email ? { name: g.name, email: g.email } : { name: g.name };
}

// A host page's title as a thread title: the API takes 1-200 characters (code points) without
// control characters, and a page's <title> may be longer or empty (then the URL titles it).
export function threadTitle(title: string): string | undefined {
  const clean = title.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  return Array.from(clean).slice(0, 200).join('').trim() || undefined;
}

export function pageSource(api: Api, url: string, rawTitle: string): ThreadSource {
  const title = threadTitle(rawTitle);
  return {
    info: () => api.request('GET', '/api/v1/pages', { url }),
    list: (sort, cursor) => api.request('GET', '/api/v1/pages/comments', { url, sort, size: 20, replies: 3, cursor }),
    post: (body, parentId, replyToUserId, signals, guest) =>
      api.request('POST', '/api/v1/pages/comments', { url },
                  { body, parentId, replyToUserId, title, ...signals, guest: guestBody(guest) }),
    like: (on) => api.request(on ? 'PUT' : 'DELETE', '/api/v1/pages/like', { url }),
  };
}

export function articleSource(api: Api, id: number): ThreadSource {
  return {
    info: async () => {
      const a = await api.request<ThreadInfo & { id: number }>('GET', `/api/v1/articles/${id}`);
      return { ...a, articleId: a.id };
    },
    list: (sort, cursor) => api.request('GET', `/api/v1/articles/${id}/comments`, { sort, size: 20, replies: 3, cursor }),
    post: (body, parentId, replyToUserId, signals, guest) =>
      api.request('POST', `/api/v1/articles/${id}/comments`, {},
                  { body, parentId, replyToUserId, ...signals, guest: guestBody(guest) }),
    like: (on) => api.request(on ? 'PUT' : 'DELETE', `/api/v1/articles/${id}/like`),
  };
}
