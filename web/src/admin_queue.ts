// One queue of the moderation console (pending, reported or spam): each comment with its
// context (author, time, article, the parent it answers, why it was held, reports), a checkbox,
// its own action buttons and a ban control; a toolbar acting on the selection; "load more".
// Acted-on comments leave the list; a failure stays with its comment and is announced.
// Keyboard: key() takes the console's shortcuts (j/k, x, a/s/d/r) while this queue shows.
import { User } from './api';
import { Action, QueueItem, QueueStatus, act, queue } from './admin_api';
import { banControl } from './admin_ban';
import { AdminCtx, errorText, safeHref, userName, when } from './admin_ctx';
import { AdminKey } from './admin_i18n';
import { h } from './dom';

interface Row {
  item: QueueItem; el: HTMLLIElement; box: HTMLInputElement; note: HTMLElement;
  renderAuthor(u: User): void;
}

const kLabel: Record<Action, AdminKey> = { approve: 'approve', spam: 'spam', delete: 'delete', restore: 'restore' };
const kKeys: Record<string, Action> = { a: 'approve', s: 'spam', d: 'delete', r: 'restore' };

export class QueuePanel {
  readonly el: HTMLElement;
  private rows = new Map<number, Row>();
  private list = h('ol', { class: 'queue' });
  private empty = h('p', { class: 'muted', hidden: true });
  private more: HTMLButtonElement;
  private all: HTMLInputElement;
  private count = h('span', { class: 'muted' });
  private tools: HTMLButtonElement[];
  private cursor: string | null = null;
  private gen = 0;
  private busy = false;
  readonly actions: Action[];

  constructor(private a: AdminCtx, readonly status: QueueStatus) {
    const at = a.at;
    // Marking spam as spam changes nothing; restoring is what the spam tab is for.
    this.actions = status === 'spam' ? ['approve', 'restore', 'delete'] : ['approve', 'spam', 'delete'];
    this.all = h('input', { type: 'checkbox', class: 'select-all' });
    this.all.addEventListener('change', () => {
      for (const r of this.rows.values()) r.box.checked = this.all.checked;
      this.renderSelection();
    });
    this.tools = this.actions.map((x) =>
      h('button', { type: 'button', 'data-action': x, onclick: () => void this.act(this.selectedIds(), x) }, at(kLabel[x])));
    this.more = h('button', { type: 'button', class: 'more', hidden: true, onclick: () => void this.load(true) },
                  at('loadMore'));
    this.el = h('div', { class: 'queue-panel' },
      h('div', { class: 'toolbar', role: 'group', 'aria-label': at('bulk') },
        h('label', { class: 'check' }, this.all, ' ' + at('selectAll')), ...this.tools, this.count),
      this.empty, this.list, this.more);
  }

  // A fresh list (each time the tab is shown: other tabs' actions move comments here).
  async reload(): Promise<void> {
    this.gen++;
    this.rows.clear();
    this.list.replaceChildren();
    this.cursor = null;
    this.all.checked = false;
    this.renderSelection();
    await this.load(false);
  }

  private async load(more: boolean): Promise<void> {
    const gen = this.gen;
    this.more.disabled = true;
    this.empty.hidden = false;
    this.empty.textContent = this.a.at('loading');
    try {
      const page = await queue(this.a.ctx.api, this.status, more ? this.cursor ?? undefined : undefined);
      if (gen !== this.gen) return;
      const added = page.items.filter((c) => !this.rows.has(c.id)).map((c) => this.row(c));
      this.list.append(...added.map((r) => r.el));
      this.cursor = page.nextCursor;
      if (more && added[0]) added[0].el.focus();
    } catch (e) {
      if (gen === this.gen) this.a.say(errorText(this.a, e), true);
    } finally {
      if (gen === this.gen) {
        this.more.disabled = false;
        this.renderSelection();
      }
    }
  }

  private row(c: QueueItem): Row {
    const at = this.a.at;
    const box = h('input', { type: 'checkbox', 'aria-label': at('selectOne', c.id) });
    box.addEventListener('change', () => this.renderSelection());
    const note = h('p', { class: 'alert' });
    const href = safeHref(c.article.url);
    const title = c.article.title || c.article.url || String(c.article.id);
    const article = !href ? h('span', {}, title)
      : href.startsWith('/') ? this.a.ctx.link(href, title)
      : h('a', { href, target: '_blank', rel: 'noopener noreferrer' }, title);
    const parent = h('div', { class: 'parent', hidden: true });
    const authorBox = h('span', { class: 'author' });
    // A guest has no account: marked so, with the e-mail they gave (admins only get it).
    const renderAuthor = (u: User): void => authorBox.replaceChildren(
      h('strong', {}, userName(u)), ' ',
      u.guest ? h('span', { class: 'badge' }, at('guest'), c.guestEmail ? ' · ' + c.guestEmail : '')
              : h('span', { class: 'muted' }, '@' + u.username),
      u.banned ? h('span', { class: 'badge danger' }, u.bannedUntil
        ? at('bannedUntil', new Date(u.bannedUntil).toLocaleString(this.a.ctx.lang)) : at('banned')) : '');
    renderAuthor(c.author);
    // Focusable (j/k) but not a tab stop; a screen reader reads its content on focus.
    const el = h('li', { class: 'qrow', tabindex: -1, 'data-id': c.id },
      h('div', { class: 'qhead' },
        box, authorBox, when(this.a, c.createdAt), h('span', {}, at('on'), ' ', article),
        c.reports > 0 && h('span', { class: 'badge' }, c.reports === 1 ? at('report1') : at('reports', c.reports))),
      c.reasons.length > 0 && h('p', { class: 'reasons muted' },
        at('reasons', c.reasons.map((r) => reasonText(this.a, r)).join(', '))),
      parent,
      // The body as text only (white-space keeps its lines): moderators read what was written.
      h('div', { class: 'qbody' }, c.deleted ? at('deletedBody') : c.body),
      h('div', { class: 'qactions' },
        ...this.actions.map((x) => h('button', { type: 'button', onclick: () => void this.act([c.id], x) }, at(kLabel[x]))),
        c.author.id ? banControl(this.a, c.author, (u) => this.authorChanged(u)) : ''),
      note);
    const r: Row = { item: c, el, box, note, renderAuthor };
    this.rows.set(c.id, r);
    if (c.parentId) void this.showParent(parent, c.parentId);
    return r;
  }

  private async showParent(box: HTMLElement, id: number): Promise<void> {
    const p = await this.a.dir.comment(id);
    box.hidden = false;
    if (!p) { box.replaceChildren(h('p', { class: 'muted' }, this.a.at('parentGone'))); return; }
    box.replaceChildren(h('p', { class: 'muted' }, this.a.at('inReplyTo', userName(p.author))),
      h('blockquote', {}, p.deleted ? this.a.at('deletedBody') : p.body));
  }

  // A ban shows on every comment of that author.
  private authorChanged(u: User): void {
    for (const r of this.rows.values()) {
      if (r.item.author.id !== u.id) continue;
      r.item.author = u;
      r.renderAuthor(u);
    }
  }

  private selectedIds(): number[] {
    return [...this.rows.values()].filter((r) => r.box.checked).map((r) => r.item.id);
  }

  private renderSelection(): void {
    const n = this.selectedIds().length;
    this.all.checked = n > 0 && n === this.rows.size;
    this.all.indeterminate = n > 0 && n < this.rows.size;
    this.all.disabled = this.rows.size === 0;
    this.count.textContent = n ? this.a.at('selected', n) : '';
    this.empty.hidden = this.rows.size > 0;
    this.empty.textContent = this.a.at('emptyQueue');
    this.more.hidden = !this.cursor;
  }

  async act(ids: number[], action: Action): Promise<void> {
    const at = this.a.at;
    if (!ids.length) { this.a.say(at('nothingSelected'), true); return; }
    if (this.busy) return;
    this.busy = true;
    for (const b of this.tools) b.disabled = true;
    try {
      const results = await act(this.a.ctx.api, ids, action);
      const ok = ids.filter((id) => results[String(id)] === 'ok');
      const failed = ids.filter((id) => results[String(id)] !== 'ok');
      // Focus goes on to the comment after the last one acted on, as in a mail client.
      const order = [...this.rows.keys()];
      const after = order.slice(order.indexOf(ok[ok.length - 1]) + 1).find((id) => !ok.includes(id));
      const hadFocus = this.list.contains(document.activeElement);
      for (const id of ok) {
        this.rows.get(id)?.el.remove();
        this.rows.delete(id);
      }
      const failures = failed.map((id) => at('failed', id, results[String(id)] || 'unknown'));
      for (const id of failed) {
        const r = this.rows.get(id);
        if (r) r.note.textContent = at('failed', id, results[String(id)] || 'unknown');
      }
      const label = at(kLabel[action]);
      const summary = ok.length === 0 ? '' : ok.length === 1 ? at('done', label) : at('doneCount', ok.length, label);
      this.a.say([summary, ...failures].filter(Boolean).join(' '), failed.length > 0);
      this.renderSelection();
      if (hadFocus || !this.list.contains(document.activeElement)) {
        const next = after !== undefined ? this.rows.get(after) : [...this.rows.values()].pop();
        if (next) next.el.focus();
      }
      if (this.rows.size === 0 && this.cursor) await this.load(true);
    } catch (e) {
      this.a.say(errorText(this.a, e), true);
    } finally {
      this.busy = false;
      for (const b of this.tools) b.disabled = false;
    }
  }

  // The queue's shortcuts; false when the key is not one of them.
  key(ev: KeyboardEvent): boolean {
    const rows = [...this.rows.values()];
    const i = rows.findIndex((r) => r.el.contains(document.activeElement));
    const current = i >= 0 ? rows[i] : null;
    switch (ev.key) {
      case 'j': case 'k': {
        const next = ev.key === 'j' ? (i < 0 ? 0 : Math.min(i + 1, rows.length - 1)) : Math.max(i - 1, 0);
        rows[next]?.el.focus();
        return true;
      }
      case 'x':
        if (current) { current.box.checked = !current.box.checked; this.renderSelection(); }
        return true;
      default: {
        const action = kKeys[ev.key];
        if (!action || !this.actions.includes(action)) return false;
        const selected = this.selectedIds();
        void this.act(selected.length ? selected : current ? [current.item.id] : [], action);
        return true;
      }
    }
  }
}

const kReasons = ['policy', 'first', 'links', 'spam_word', 'honeypot', 'too_fast', 'reports', 'guest'];
// A reason a newer server adds shows as its code.
function reasonText(a: AdminCtx, r: string): string {
  return kReasons.includes(r) ? a.at(('reason_' + r) as AdminKey) : r;
}
