// One comment thread: header with counts, the page like and the sort switch; sign in/up/out;
// the composer; the list with inline replies, "more replies" and "load more". Plain DOM, built
// with dom.ts (text only), updated in place so focus stays where the reader is.
// Used by embed.ts on host pages; the site's own pages can mount it on an article too.
import { Api, ApiError, Comment, FormSignals, LikeState, Providers, Sort, ThreadSource, User } from './api';
import { append, h, linkify } from './dom';
import { GuestName, editToken, forgetToken, lastGuest, rememberGuest } from './guest';
import { heldComments, rememberHeld } from './held';
import { Lang, T, relativeTime } from './i18n';

export interface ThreadOptions {
  api: Api;
  source: ThreadSource;
  lang: Lang;
  t: T;
  editWindowMs?: number;  // plauditd's --comment-edit-window-s (default 15 minutes)
}

interface View {
  c: Comment;
  el: HTMLLIElement;
  body: HTMLElement;
  actions: HTMLElement;
  slot: HTMLElement;  // where the reply or edit form opens
  like: HTMLButtonElement;
  top: View | null;   // the top-level comment a reply sits under
  replies?: HTMLOListElement;
  more?: HTMLButtonElement;
  replyCursor?: string | null;
}

const kSorts: Sort[] = ['new', 'old', 'hot'];
let seq = 0;  // unique ids for label/aria wiring when several widgets share a page

export class Thread {
  readonly el: HTMLElement;
  private api: Api;
  private src: ThreadSource;
  private t: T;
  private lang: Lang;
  private editWindowMs: number;
  private live = h('p', { class: 'live', role: 'status', 'aria-live': 'polite' });
  private heading = h('h2', { class: 'count', tabindex: -1 });
  private pageLike = h('button', { type: 'button', class: 'like page-like', 'aria-pressed': 'false' });
  private sortBar = h('div', { class: 'sort', role: 'group' });
  private auth = h('div', { class: 'auth' });
  private composerSlot = h('div', { class: 'composer' });
  private list = h('ol', { class: 'list' });
  private empty = h('p', { class: 'empty', hidden: true });
  private loadMore = h('button', { type: 'button', class: 'more', hidden: true });
  private views = new Map<number, View>();
  private sort: Sort = 'new';
  private cursor: string | null = null;
  private count = 0;
  private countKnown = false;  // the heading says "Comments" until the thread's count arrives
  private page: LikeState = { liked: false, likeCount: 0 };
  private gen = 0;  // bumped by reload(): answers to an older list are dropped
  private loadingGen = -1;  // the generation whose next page is being fetched
  private pending = new Set<object>();
  private reported = new Set<number>();
  private articleId: number | null = null;  // the thread's, once info() or a post says
  private providers: Providers | null = null;  // the ways in (GET /auth/providers), once known
  private composerKind: string | null = null;  // setComposer's
  // Live updates (API.md "Live updates"): the thread's events while the page is visible; new
  // comments wait behind a button so the reader's place never moves under them.
  private events: EventSource | null = null;
  private liveRetry = 0;  // ms before following again after a refused stream
  private lastEventId = '';
  private incoming: Comment[] = [];
  private newButton = h('button', { type: 'button', class: 'new-comments', hidden: true });

  constructor(o: ThreadOptions) {
    this.api = o.api; this.src = o.source; this.t = o.t; this.lang = o.lang;
    this.editWindowMs = o.editWindowMs ?? 15 * 60 * 1000;
    const t = this.t;
    const hid = 'plaudit-h' + ++seq;
    this.heading.id = hid;
    this.heading.textContent = t('comments_region');
    this.el = h('section', { class: 'thread', 'aria-labelledby': hid, lang: this.lang },
      h('header', { class: 'head' }, this.heading, this.pageLike, this.sortBar),
      this.live, this.auth, this.composerSlot, this.newButton, this.empty, this.list, this.loadMore);
    this.newButton.addEventListener('click', () => this.showIncoming());
    document.addEventListener('visibilitychange', () => this.follow());
    this.sortBar.setAttribute('aria-label', t('sortLabel'));
    for (const s of kSorts) {
      const label = t(s === 'new' ? 'sortNew' : s === 'old' ? 'sortOld' : 'sortHot');
      this.sortBar.append(h('button', { type: 'button', 'data-sort': s, 'aria-pressed': String(s === this.sort),
                                        onclick: () => this.setSort(s) }, label));
    }
    this.pageLike.addEventListener('click', () =>
      this.toggleLike(this.pageLike, this.page, (on) => this.src.like(on), () => this.renderPageLike()));
    this.loadMore.textContent = t('loadMore');
    this.loadMore.addEventListener('click', () => this.loadPage(this.gen, true));
    this.api.onSessionChange = () => { this.renderAuth(); void this.reload(); };
    this.renderAuth();
    this.renderPageLike();
    // The list may come after the reader opened the sign-in form: that form is kept.
    void this.api.providers().then((p) => { this.providers = p; this.renderAuth(true); }, () => {});
    void this.api.refreshUser().catch(() => {});
    void this.reload();
  }

  // ---- messages -------------------------------------------------------------------------

  private say(text: string, error = false): void {
    this.live.textContent = text;
    this.live.classList.toggle('error', error);
  }

  private fail(e: unknown, context: 'login' | 'info' | 'other' = 'other'): void {
    const t = this.t;
    if (!(e instanceof ApiError)) { this.say(t('errOther', String(e)), true); return; }
    let text: string;
    switch (e.status) {
      case 0: text = t('errNetwork'); break;
      case 401:
        text = context === 'login' ? t('errBadLogin') : t('errAuth');
        if (context !== 'login') this.openAuth('in');
        break;
      case 403:
        text = e.code === 'banned' ? t('errBanned') : context === 'info' ? t('errSite') : t('errForbidden');
        break;
      case 404: text = t('errNotFound'); break;
      case 409: text = e.code === 'duplicate' ? t('errDuplicate') : t('errTaken'); break;
      case 413: text = t('errTooLarge'); break;
      case 429: text = e.retryAfter !== null ? t('errRate', e.retryAfter) : t('errRateSoon'); break;
      case 503: text = t('errUnavailable'); break;
      case 400: text = t('errInvalid', e.message); break;
      default: text = t('errOther', e.status);
    }
    this.say(text, true);
  }

  // ---- header ---------------------------------------------------------------------------

  private renderCount(): void {
    if (this.countKnown) {
      this.heading.textContent = this.count === 1 ? this.t('comment1') : this.t('comments', this.count);
    }
    this.empty.textContent = this.t(this.loadingGen >= 0 ? 'loading' : 'noComments');
    this.empty.hidden = this.views.size > 0;
  }

  private renderPageLike(): void {
    likeButton(this.pageLike, this.page, this.t('likePage'));
  }

  private setSort(s: Sort): void {
    if (s === this.sort) return;
    this.sort = s;
    for (const b of this.sortBar.querySelectorAll('button')) {
      b.setAttribute('aria-pressed', String(b.dataset.sort === s));
    }
    void this.reload();
  }

  // ---- sign in / up / out ---------------------------------------------------------------

  // `keepForm`: leave an open sign-in form as it is (only the composer follows).
  private renderAuth(keepForm = false): void {
    const t = this.t;
    const user = this.api.user;
    const formOpen = keepForm && !user && this.auth.querySelector('form') !== null;
    const post = async (text: string, signals: FormSignals, guest?: GuestName) => {
      const c = await this.src.post(text, undefined, undefined, signals, guest);
      this.posted(c, guest);
      // A held comment shows to its writer only and counts for nobody yet.
      if (held(c)) rememberHeld(this.api, c);
      else this.count++;
      this.insertTop(c, true);
      this.say(t(held(c) ? 'postedPending' : 'posted'));
    };
    if (user) {
      this.auth.replaceChildren(
        h('span', { class: 'who' }, t('signedInAs', name(user))),
        h('button', { type: 'button', class: 'link', onclick: () => this.signOut() }, t('signOut')));
      this.setComposer('user:' + user.id, () => this.composer({
        label: t('writeComment'), submit: t('post'), send: post }));
    } else {
      const guests = this.guestsWelcome();
      const social = (this.providers?.items || []).filter((p) => p.kind !== 'sso');
      if (!formOpen) this.auth.replaceChildren(
        h('span', { class: 'who' }, t(guests ? 'guestOrSignIn' : 'signInToComment')),
        h('button', { type: 'button', class: 'link', onclick: () => this.openAuth('in') }, t('signIn')),
        h('button', { type: 'button', class: 'link', onclick: () => this.openAuth('up') }, t('signUp')),
        ...social.map((p) => h('button', { type: 'button', class: 'link social', 'data-provider': p.name,
                                           onclick: () => this.signInWith(p.name) },
                               t('signInWith', p.kind === 'github' ? 'GitHub' : providerLabel(p.name)))));
      this.setComposer(guests ? 'guest' : null, () => this.composer({
        label: t('writeComment'), submit: t('post'), guest: true, send: post }));
    }
  }

  // The composer for this kind of writer ('user:<id>', 'guest', null: none), made anew only
  // when the kind changes: a re-render (the providers' list arriving late) must not drop what
  // the reader is typing.
  private setComposer(kind: string | null, make: () => HTMLFormElement): void {
    if (kind === this.composerKind) return;
    this.composerKind = kind;
    if (kind === null) this.composerSlot.replaceChildren();
    else this.composerSlot.replaceChildren(make());
  }

  // Whether this server takes comments without an account (API.md "Guests").
  private guestsWelcome(): boolean {
    return !!this.providers && this.providers.guests !== 'off';
  }

  // A guest's new comment: its edit token kept, so this browser may edit or delete it.
  private posted(c: Comment, guest?: GuestName): void {
    if (guest && c.editToken) rememberGuest(this.api.origin, guest, c.id, c.editToken);
    delete c.editToken;
    // Its live event may have come first: it is this reader's own, shown and counted now.
    const i = this.incoming.findIndex((x) => x.id === c.id);
    if (i >= 0) {
      this.incoming.splice(i, 1);
      this.count = Math.max(0, this.count - 1);
      this.renderIncoming();
    }
  }

  private openAuth(mode: 'in' | 'up'): void {
    const t = this.t;
    const id = 'plaudit-a' + ++seq;
    const user = h('input', { id: id + 'u', name: 'username', autocomplete: 'username', required: true,
                              maxlength: 32, autocapitalize: 'none', spellcheck: 'false',
                              pattern: mode === 'up' ? '[A-Za-z0-9_.\\-]{3,32}' : undefined });
    const pass = h('input', { id: id + 'p', name: 'password', type: 'password', required: true,
                              autocomplete: mode === 'in' ? 'current-password' : 'new-password',
                              minlength: mode === 'up' ? 8 : undefined });
    const display = h('input', { id: id + 'd', name: 'displayName', autocomplete: 'nickname', maxlength: 64 });
    const submit = h('button', { type: 'submit', class: 'primary' }, mode === 'in' ? t('signIn') : t('signUp'));
    const form = h('form', { class: 'auth-form', 'aria-label': mode === 'in' ? t('signIn') : t('signUp') },
      field(id + 'u', t('username'), user), field(id + 'p', t('password'), pass),
      mode === 'up' && field(id + 'd', t('displayName'), display),
      h('div', { class: 'row' }, submit,
        h('button', { type: 'button', class: 'link', onclick: () => this.renderAuth() }, t('cancel'))));
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      submit.disabled = true;
      try {
        const u = mode === 'in' ? await this.api.signIn(user.value.trim(), pass.value)
                                : await this.api.signUp(user.value.trim(), pass.value, display.value.trim());
        this.say(t('signedIn', name(u)));
        const ta = this.composerSlot.querySelector('textarea');
        if (ta) ta.focus();
      } catch (e) {
        submit.disabled = false;
        this.fail(e, 'login');
      }
    });
    form.addEventListener('keydown', (ev) => { if (ev.key === 'Escape') this.renderAuth(); });
    this.auth.replaceChildren(form);
    user.focus();
  }

  private async signInWith(provider: string): Promise<void> {
    try {
      const u = await this.api.signInWith(provider);
      this.say(this.t('signedIn', name(u)));
    } catch (e) {
      if (e instanceof ApiError && e.code === 'closed') { this.say(this.t('signInClosed')); return; }
      if (e instanceof ApiError && e.code === 'popup_blocked') { this.say(this.t('errPopup'), true); return; }
      this.fail(e, 'login');
    }
  }

  private async signOut(): Promise<void> {
    try { await this.api.signOut(); } catch { /* the local session is gone either way */ }
    this.say(this.t('signedOut'));
  }

  // ---- the list -------------------------------------------------------------------------

  async reload(): Promise<void> {
    const gen = ++this.gen;
    this.views.clear();
    this.list.replaceChildren();
    this.cursor = null;
    this.loadMore.hidden = true;
    this.list.setAttribute('aria-busy', 'true');
    const info = this.src.info().then((i) => {
      if (gen !== this.gen) return;
      this.count = i.commentCount;
      this.countKnown = true;
      this.articleId = i.articleId;
      this.page = { liked: i.liked, likeCount: i.likeCount };
      this.renderPageLike();
      this.renderCount();
    }, (e) => this.fail(e, 'info'));
    await Promise.all([info, this.loadPage(gen)]);
    await this.showHeld(gen);
    this.incoming = [];
    this.renderIncoming();
    this.follow();
  }

  // ---- live updates ---------------------------------------------------------------------

  // Subscribes while the page is visible (and the thread exists), unsubscribes while hidden.
  private follow(): void {
    const want = this.articleId !== null && document.visibilityState === 'visible' &&
                 typeof EventSource !== 'undefined';
    if (!want) {
      this.events?.close();
      this.events = null;
      delete this.el.dataset.live;
      return;
    }
    if (this.events) return;
    // A new EventSource after a pause says where it stopped (EventSource itself sends
    // Last-Event-ID only on its own reconnects).
    const q = this.lastEventId ? '?lastEventId=' + encodeURIComponent(this.lastEventId) : '';
    const es = new EventSource(`${this.api.origin}/api/v1/articles/${this.articleId}/events${q}`);
    const on = (name: string, f: (data: any) => void) => es.addEventListener(name, (ev) => {
      const m = ev as MessageEvent;
      if (m.lastEventId) this.lastEventId = m.lastEventId;
      try { f(JSON.parse(m.data)); } catch { /* not for us */ }
    });
    on('comment', (c: Comment) => this.arrived(c));
    on('comment_updated', (c: Comment) => this.changed(c));
    on('comment_deleted', (d: { id: number }) => this.vanished(d.id));
    on('likes', (d: LikeCounts) => this.recounted(d));
    on('reset', () => { this.lastEventId = ''; es.close(); this.events = null; void this.reload(); });
    // Said on the thread's element (onopen below), for whoever waits for it (the browser tests).
    es.onerror = () => {
      delete this.el.dataset.live;
      // Refused (a 429 or 503 at a cap, a 404): EventSource gives up for good. Try again a
      // little later, as long as the page is shown.
      if (es.readyState === EventSource.CLOSED && this.events === es) {
        this.events = null;
        this.liveRetry = Math.min(60_000, Math.max(3_000, this.liveRetry * 2));
        window.setTimeout(() => this.follow(), this.liveRetry);
      }
    };
    es.onopen = () => { this.el.dataset.live = 'open'; this.liveRetry = 0; };
    this.events = es;
  }

  private arrived(c: Comment): void {
    if (this.views.has(c.id)) { this.changed(c); return; }
    if (this.incoming.some((x) => x.id === c.id)) return;
    this.incoming.push(c);
    this.count += 1;
    this.renderCount();
    this.renderIncoming();
  }

  private changed(c: Comment): void {
    const v = this.views.get(c.id);
    if (!v) {
      const i = this.incoming.findIndex((x) => x.id === c.id);
      if (i >= 0) this.incoming[i] = c;
      return;
    }
    Object.assign(v.c, c, { liked: v.c.liked });  // the stream is anonymous: the like is theirs
    this.renderBody(v);
    if (!v.top) this.renderMoreReplies(v);
  }

  // New like counts, in place; not while the reader's own like of that target is on its way
  // (its answer brings the count).
  private recounted(d: LikeCounts): void {
    const page = d.article?.[String(this.articleId)];
    if (page && typeof page.likeCount === 'number' && !this.pending.has(this.page)) {
      this.page.likeCount = page.likeCount;
      this.renderPageLike();
    }
    for (const [id, s] of Object.entries(d.comment ?? {})) {
      const v = this.views.get(Number(id));
      if (v && typeof s?.likeCount === 'number' && !this.pending.has(v.c)) {
        v.c.likeCount = s.likeCount;
        this.renderLike(v);
      }
    }
  }

  private vanished(id: number): void {
    const before = this.incoming.length;
    this.incoming = this.incoming.filter((x) => x.id !== id);
    if (this.incoming.length !== before) {
      this.count = Math.max(0, this.count - 1);
      this.renderCount();
      this.renderIncoming();
    }
    const v = this.views.get(id);
    if (v) this.dropped(v);
  }

  // A comment gone (this reader's own delete, or its live event): once, whichever comes first.
  private dropped(v: View): void {
    if (this.views.get(v.c.id) !== v || v.c.deleted) return;
    this.count = Math.max(0, this.count - 1);
    this.remove(v);
  }

  private renderIncoming(): void {
    const n = this.incoming.length;
    this.newButton.hidden = n === 0;
    this.newButton.textContent = n === 1 ? this.t('newComment1') : this.t('newComments', n);
  }

  // The waiting comments into the list: top-level ones first in the newest-first order,
  // replies under their comment (a reply whose comment is not shown waits for a reload).
  private showIncoming(): void {
    const waiting = this.incoming;
    this.incoming = [];
    for (const c of waiting) {
      if (c.parentId === null) {
        this.insertTop(c, true);
      } else {
        const top = this.views.get(c.parentId);
        if (top && !top.top) {
          this.insertReply(top, c);
          top.c.replyCount = Math.max(top.c.replyCount, top.replies!.children.length);
          this.renderMoreReplies(top);
        }
      }
    }
    this.renderIncoming();
    this.heading.focus();
  }

  // The reader's own held comments (lists leave them out, see held.ts), first, marked.
  private async showHeld(gen: number): Promise<void> {
    if (!this.articleId) return;  // a guest's held comments are theirs by token (held.ts)
    const mine = await heldComments(this.api, this.articleId);
    if (gen !== this.gen) return;
    for (const c of mine) {
      if (this.views.has(c.id)) continue;
      if (c.parentId === null) {
        this.insertTop(c, true);
      } else {
        const top = this.views.get(c.parentId);
        if (top && !top.top) this.insertReply(top, c);
      }
    }
  }

  // `focus`: move the focus to the first new comment (the "load more" button may vanish).
  private async loadPage(gen = this.gen, focus = false): Promise<void> {
    // One fetch per generation at a time; a reload (new sort) starts its own at once.
    if (this.loadingGen === gen) return;
    this.loadingGen = gen;
    this.loadMore.disabled = true;
    this.renderCount();
    try {
      const r = await this.src.list(this.sort, this.cursor ?? undefined);
      if (gen !== this.gen) return;
      const added: View[] = [];
      for (const c of r.items) added.push(...this.insertTop(c, false));
      this.cursor = r.nextCursor;
      this.loadMore.hidden = !r.nextCursor;
      if (focus && added[0]) added[0].el.querySelector<HTMLElement>('.name')?.focus();
      void this.fetchLikes(added, gen);
    } catch (e) {
      if (gen === this.gen) this.fail(e, 'info');
    } finally {
      if (this.loadingGen === gen) {
        this.loadingGen = -1;
        this.loadMore.disabled = false;
        this.list.removeAttribute('aria-busy');
        this.renderCount();
      }
    }
  }

  // The reader's own likes for a page of comments, in one call (the list may be cached for
  // everyone; this part is personal).
  private async fetchLikes(views: View[], gen: number): Promise<void> {
    if (!this.api.user || views.length === 0) return;
    try {
      const states = await this.api.commentLikes(views.map((v) => v.c.id));
      if (gen !== this.gen) return;
      for (const v of views) {
        const s = states[String(v.c.id)];
        if (s && !this.pending.has(v.c)) { v.c.liked = s.liked; v.c.likeCount = s.likeCount; this.renderLike(v); }
      }
    } catch { /* the counts from the list stay */ }
  }

  // A top-level comment and its inline replies; `fresh` (just posted) goes where the sort
  // puts it: first when newest first, else last if the end of the list is showing.
  private insertTop(c: Comment, fresh: boolean): View[] {
    if (this.views.has(c.id)) return [];
    const v = this.view(c, null);
    v.replies = h('ol', { class: 'replies' });
    v.more = h('button', { type: 'button', class: 'more-replies link', hidden: true,
                           onclick: () => this.moreReplies(v) });
    v.el.append(v.replies, v.more);
    const added = [v];
    for (const r of c.replies || []) added.push(this.insertReply(v, r));
    this.renderMoreReplies(v);
    if (fresh && this.sort === 'new') this.list.prepend(v.el);
    else if (!fresh || !this.cursor) this.list.append(v.el);
    this.renderCount();
    return added;
  }

  private insertReply(top: View, c: Comment): View {
    const existing = this.views.get(c.id);
    if (existing) return existing;
    const v = this.view(c, top);
    top.replies!.append(v.el);
    return v;
  }

  private renderMoreReplies(v: View): void {
    const shown = v.replies!.children.length;
    const rest = v.c.replyCount - shown;
    v.more!.hidden = rest <= 0 && !v.replyCursor;
    v.more!.textContent = this.t('moreReplies', Math.max(rest, 0));
  }

  private async moreReplies(v: View): Promise<void> {
    if (this.pending.has(v.more!)) return;
    this.pending.add(v.more!);
    const gen = this.gen;
    try {
      const r = await this.api.replies(v.c.id, v.replyCursor ?? undefined);
      if (gen !== this.gen) return;
      const added = r.items.filter((c) => !this.views.has(c.id)).map((c) => this.insertReply(v, c));
      // Oldest first, as the server orders replies: a reply posted here before the older ones
      // were loaded moves back to its place (ids grow with time).
      const ordered = Array.from(v.replies!.children as HTMLCollectionOf<HTMLElement>)
        .sort((a, b) => Number(a.dataset.id) - Number(b.dataset.id));
      v.replies!.append(...ordered);
      v.replyCursor = r.nextCursor;
      if (!r.nextCursor) v.c.replyCount = v.replies!.children.length;
      this.renderMoreReplies(v);
      if (added[0]) added[0].el.querySelector<HTMLElement>('.name')?.focus();
      void this.fetchLikes(added, gen);
    } catch (e) {
      this.fail(e);
    } finally {
      this.pending.delete(v.more!);
    }
  }

  // ---- one comment ----------------------------------------------------------------------

  private view(c: Comment, top: View | null): View {
    const body = h('div', { class: 'body' });
    const like = h('button', { type: 'button', class: 'like', 'aria-pressed': 'false' });
    const actions = h('div', { class: 'actions' });
    const slot = h('div', { class: 'slot' });
    const hid = 'plaudit-c' + ++seq;
    const el = h('li', { class: top ? 'c reply' : 'c', 'data-id': c.id },
      h('article', { 'aria-labelledby': hid },
        h('div', { class: 'meta' },
          h('span', { class: 'avatar', 'aria-hidden': 'true' }, initial(c.author)),
          h('strong', { class: 'name', id: hid, tabindex: -1 }, name(c.author)),
          c.author.guest && h('span', { class: 'guest-mark' }, this.t('guestMark')),
          c.replyTo && h('span', { class: 'to' }, '@' + name(c.replyTo)),
          h('time', { datetime: c.createdAt, title: new Date(c.createdAt).toLocaleString(this.lang) },
            relativeTime(c.createdAt, this.lang)),
          held(c) && !c.deleted && h('span', { class: 'held' }, this.t('awaiting'))),
        body, actions, slot));
    const v: View = { c, el, body, actions, slot, like, top };
    like.addEventListener('click', () =>
      this.toggleLike(like, c, (on) => this.api.likeComment(c.id, on), () => this.renderLike(v)));
    this.views.set(c.id, v);
    this.renderBody(v);
    this.renderActions(v);
    return v;
  }

  private renderBody(v: View): void {
    const c = v.c;
    v.el.classList.toggle('deleted', c.deleted);
    if (c.deleted) {
      v.body.replaceChildren(h('em', {}, this.t('deleted')));
      return;
    }
    v.body.classList.toggle('md', !!c.html);
    if (c.html) {
      // Sanitised by the server when the comment was written (API.md "Comment text").
      v.body.innerHTML = c.html;
    } else {
      v.body.replaceChildren(linkify(c.body));
    }
    if (c.updatedAt && c.updatedAt !== c.createdAt) v.body.append(' ', h('span', { class: 'edited' }, this.t('edited')));
  }

  private renderLike(v: View): void {
    likeButton(v.like, v.c, this.t('like'));
  }

  private renderActions(v: View): void {
    const t = this.t;
    const c = v.c;
    const me = this.api.user;
    this.renderLike(v);
    if (c.deleted) { v.actions.replaceChildren(); return; }
    const mine = me ? me.id === c.author.id : !!c.author.guest && editToken(this.api.origin, c.id) !== null;
    const editable = mine && Date.now() - Date.parse(c.createdAt) < this.editWindowMs;
    const admin = !!me && me.role === 'admin';
    // Reports are for others' comments that readers can see (a held one is already waiting).
    const reportable = !!me && !mine && !held(c);
    v.actions.replaceChildren();
    append(v.actions, [v.like,
      h('button', { type: 'button', class: 'link', onclick: () => this.openReply(v) }, t('reply')),
      editable && h('button', { type: 'button', class: 'link', onclick: () => this.openEdit(v) }, t('edit')),
      (mine || admin) && h('button', { type: 'button', class: 'link', onclick: () => this.askDelete(v) }, t('delete')),
      reportable && (this.reported.has(c.id)
        ? h('span', { class: 'reported' }, t('reported'))
        : h('button', { type: 'button', class: 'link', onclick: () => this.report(v) }, t('report')))]);
  }

  private async report(v: View): Promise<void> {
    if (this.pending.has(v)) return;
    this.pending.add(v);
    try {
      await this.api.reportComment(v.c.id);
      this.reported.add(v.c.id);
      this.renderActions(v);
      this.say(this.t('reportedSay'));
      focusFirst(v.actions);
    } catch (e) {
      this.fail(e);
    } finally {
      this.pending.delete(v);
    }
  }

  private openReply(v: View): void {
    const t = this.t;
    const asGuest = !this.api.user && this.guestsWelcome();
    if (!this.api.user && !asGuest) { this.say(t('errAuth'), true); this.openAuth('in'); return; }
    const top = v.top || v;
    const form = this.composer({
      label: t('writeReply'), submit: t('postReply'), hint: t('replyingTo', name(v.c.author)),
      guest: asGuest,
      cancel: () => { v.slot.replaceChildren(); focusFirst(v.actions); },
      send: async (text, signals, guest) => {
        // Replying to a reply: the server files it under the top-level comment and names whom
        // it answers (replyTo).
        const replies = top.c.replyCount;
        const c = await this.src.post(text, v.c.id, undefined, signals, guest);
        this.posted(c, guest);
        v.slot.replaceChildren();
        if (held(c)) {
          rememberHeld(this.api, c);
        } else {
          // One more than before the post, whether or not its live update came first.
          top.c.replyCount = Math.max(top.c.replyCount, replies + 1);
          this.count++;
        }
        const nv = this.insertReply(top, c);
        this.renderMoreReplies(top);
        this.renderCount();
        this.say(t(held(c) ? 'postedPending' : 'posted'));
        nv.el.querySelector<HTMLElement>('.name')?.focus();
      },
    });
    v.slot.replaceChildren(form);
    form.querySelector('textarea')!.focus();
  }

  private openEdit(v: View): void {
    const t = this.t;
    const form = this.composer({
      label: t('editComment'), submit: t('save'), initial: v.c.body,
      cancel: () => { v.slot.replaceChildren(); v.body.hidden = false; focusFirst(v.actions); },
      send: async (text) => {
        const c = await this.api.editComment(v.c.id, text);
        v.c.body = c.body;
        v.c.html = c.html;
        v.c.updatedAt = c.updatedAt;
        v.slot.replaceChildren();
        v.body.hidden = false;
        this.renderBody(v);
        this.say(t('saved'));
        focusFirst(v.actions);
      },
    });
    v.body.hidden = true;
    v.slot.replaceChildren(form);
    form.querySelector('textarea')!.focus();
  }

  private askDelete(v: View): void {
    const t = this.t;
    const yes = h('button', { type: 'button', class: 'danger' }, t('confirmDelete'));
    const no = h('button', { type: 'button', class: 'link' }, t('cancel'));
    no.addEventListener('click', () => { this.renderActions(v); focusFirst(v.actions); });
    yes.addEventListener('click', async () => {
      yes.disabled = true;
      try {
        await this.api.deleteComment(v.c.id);
        forgetToken(this.api.origin, v.c.id);
        this.dropped(v);
        this.say(t('removed'));
        this.heading.focus();
      } catch (e) {
        yes.disabled = false;
        this.fail(e);
      }
    });
    v.actions.replaceChildren(yes, no);
    yes.focus();
  }

  // A deleted top-level comment with replies stays as a placeholder, as on the server.
  private remove(v: View): void {
    if (!v.top && v.replies && v.replies.children.length > 0) {
      v.c.deleted = true;
      v.c.body = '';
      v.c.html = '';
      this.renderBody(v);
      this.renderActions(v);
      return;
    }
    v.el.remove();
    this.views.delete(v.c.id);
    if (v.top) {
      v.top.c.replyCount = Math.max(0, v.top.c.replyCount - 1);
      this.renderMoreReplies(v.top);
    }
    this.renderCount();
  }

  // ---- shared pieces --------------------------------------------------------------------

  // Optimistic: the button shows the new state at once and goes back if the server says no.
  private async toggleLike(btn: HTMLButtonElement, state: LikeState,
                           call: (on: boolean) => Promise<LikeState>, render: () => void): Promise<void> {
    if (!this.api.user) { this.say(this.t('errAuth'), true); this.openAuth('in'); return; }
    if (this.pending.has(state)) return;
    this.pending.add(state);
    const before = { liked: state.liked, likeCount: state.likeCount };
    state.liked = !state.liked;
    state.likeCount = Math.max(0, state.likeCount + (state.liked ? 1 : -1));
    render();
    btn.classList.add('busy');
    try {
      const r = await call(state.liked);
      state.liked = r.liked;
      state.likeCount = r.likeCount;
    } catch (e) {
      state.liked = before.liked;
      state.likeCount = before.likeCount;
      this.fail(e);
    } finally {
      this.pending.delete(state);
      btn.classList.remove('busy');
      render();
    }
  }

  // `send` gets the spam signals (API.md "Moderation"): the honeypot's value and the time since
  // this form was first shown. Edits ignore them (the server takes only a body there).
  // With `guest`, it also asks a name (required) and an e-mail (optional, never shown), filled
  // with what this browser used last.
  private composer(o: { label: string; submit: string; hint?: string; initial?: string; guest?: boolean;
                        send: (text: string, signals: FormSignals, guest?: GuestName) => Promise<void>;
                        cancel?: () => void }): HTMLFormElement {
    const id = 'plaudit-t' + ++seq;
    const shownAt = Date.now();
    const ta = h('textarea', { id, rows: 3, maxlength: 10000, required: true });
    const last = lastGuest(this.api.origin);
    const guestName = h('input', { id: id + 'n', name: 'name', autocomplete: 'nickname', required: true,
                                   maxlength: 50, value: last.name });
    const guestEmail = h('input', { id: id + 'e', name: 'email', type: 'email', autocomplete: 'email',
                                    maxlength: 254, value: last.email });
    const guestFields = o.guest && h('div', { class: 'guest' },
      field(id + 'n', this.t('guestName'), guestName), field(id + 'e', this.t('guestEmail'), guestEmail));
    ta.value = o.initial || '';
    // A field people never see nor reach (off-screen, no tab stop, hidden from screen readers)
    // but form-filling bots do: a value in it holds the comment for a moderator.
    const trap = h('input', { id: id + 'w', type: 'text', name: 'website', tabindex: -1, autocomplete: 'off',
                              'aria-hidden': 'true' });
    const submit = h('button', { type: 'submit', class: 'primary' }, o.submit);
    // The text as it will show (the server renders it: POST /comments/preview), in place of
    // the box until the reader goes back to writing.
    const shown = h('div', { class: 'body md preview', hidden: true, 'aria-live': 'polite' });
    const previewBtn = h('button', { type: 'button', class: 'link', 'aria-pressed': 'false' }, this.t('preview'));
    const writing = (): void => {
      shown.hidden = true; shown.replaceChildren(); ta.hidden = false;
      previewBtn.textContent = this.t('preview'); previewBtn.setAttribute('aria-pressed', 'false');
    };
    previewBtn.addEventListener('click', async () => {
      if (!ta.hidden) {
        const text = ta.value.trim();
        if (!text) { this.say(this.t('errEmpty'), true); ta.focus(); return; }
        previewBtn.disabled = true;
        try {
          const r = await this.api.previewComment(text);
          shown.innerHTML = r.html;  // sanitised by the server
          shown.hidden = false; ta.hidden = true;
          previewBtn.textContent = this.t('write'); previewBtn.setAttribute('aria-pressed', 'true');
        } catch (e) {
          this.fail(e);
        } finally {
          previewBtn.disabled = false;
        }
      } else {
        writing();
        ta.focus();
      }
    });
    const form = h('form', { class: 'compose' },
      guestFields, h('label', { for: id }, o.label), o.hint && h('p', { class: 'hint' }, o.hint), ta, shown,
      h('p', { class: 'hint md-hint' }, this.t('markdownHint')),
      h('div', { class: 'hp', 'aria-hidden': 'true' }, h('label', { for: trap.id }, this.t('honeypot')), trap),
      h('div', { class: 'row' }, submit, previewBtn,
        o.cancel && h('button', { type: 'button', class: 'link', onclick: o.cancel }, this.t('cancel'))));
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      const text = ta.value.trim();
      if (!text) { this.say(this.t('errEmpty'), true); ta.focus(); return; }
      const guest = o.guest ? { name: guestName.value.trim(), email: guestEmail.value.trim() } : undefined;
      if (guest && !guest.name) { this.say(this.t('errGuestName'), true); guestName.focus(); return; }
      submit.disabled = true;
      try {
        await o.send(text, { website: trap.value, formAgeMs: Math.max(0, Date.now() - shownAt) }, guest);
        ta.value = '';
        writing();
      } catch (e) {
        this.fail(e);
      } finally {
        submit.disabled = false;
      }
    });
    form.addEventListener('keydown', (ev) => {
      if (ev.key === 'Escape' && o.cancel) o.cancel();
      // Ctrl/Cmd+Enter posts, as in most comment boxes.
      if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) form.requestSubmit();
    });
    return form;
  }
}

// A `likes` event: anonymous counts by id.
interface LikeCounts {
  article?: Record<string, { likeCount: number }>;
  comment?: Record<string, { likeCount: number }>;
}

function name(u: User): string { return u.displayName || u.username; }
// "my-idp" → "My-idp": a provider's configured name, as a button says it.
function providerLabel(n: string): string { return n.charAt(0).toUpperCase() + n.slice(1); }
// Pending or spam: shown to its writer (and moderators) only, marked so.
function held(c: Comment): boolean { return !!c.status && c.status !== 'approved'; }
function initial(u: User): string { return Array.from(name(u))[0]?.toUpperCase() || '?'; }
function field(id: string, label: string, input: HTMLInputElement): HTMLElement {
  return h('div', { class: 'field' }, h('label', { for: id }, label), input);
}
function focusFirst(el: HTMLElement): void { el.querySelector<HTMLElement>('button')?.focus(); }

function likeButton(btn: HTMLButtonElement, s: LikeState, label: string): void {
  btn.setAttribute('aria-pressed', String(s.liked));
  btn.replaceChildren(h('span', { class: 'heart', 'aria-hidden': 'true' }, s.liked ? '♥' : '♡'),
                      h('span', { class: 'sr' }, label + ' '), h('span', { class: 'n' }, String(s.likeCount)));
}
