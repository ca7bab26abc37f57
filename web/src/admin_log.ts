// The moderation log tab: every action, newest first, as a table. The server sends ids for
// the actor and the user (actor null: the server itself, e.g. the report threshold); names are
// looked up once each through the directory and filled in as they arrive.
import { LogEntry, moderationLog } from './admin_api';
import { AdminCtx, errorText, userName, when } from './admin_ctx';
import { h } from './dom';

export class LogPanel {
  readonly el: HTMLElement;
  private body = h('tbody');
  private empty = h('p', { class: 'muted', hidden: true });
  private more: HTMLButtonElement;
  private cursor: string | null = null;
  private gen = 0;

  constructor(private a: AdminCtx) {
    const at = a.at;
    this.more = h('button', { type: 'button', class: 'more', hidden: true, onclick: () => void this.load(true) },
                  at('loadMore'));
    this.el = h('div', { class: 'log-panel' },
      h('table', { class: 'grid' },
        h('thead', {}, h('tr', {}, ...(['logWhen', 'logActor', 'logAction', 'logComment', 'logUser', 'logReason'] as const)
          .map((k) => h('th', { scope: 'col' }, at(k))))),
        this.body),
      this.empty, this.more);
  }

  async reload(): Promise<void> {
    this.gen++;
    this.body.replaceChildren();
    this.cursor = null;
    await this.load(false);
  }

  private async load(more: boolean): Promise<void> {
    const gen = this.gen;
    this.more.disabled = true;
    try {
      const page = await moderationLog(this.a.ctx.api, more ? this.cursor ?? undefined : undefined);
      if (gen !== this.gen) return;
      this.body.append(...page.items.map((e) => this.row(e)));
      this.cursor = page.nextCursor;
    } catch (e) {
      if (gen === this.gen) this.a.say(errorText(this.a, e), true);
    } finally {
      this.more.disabled = false;
      this.more.hidden = !this.cursor;
      this.empty.hidden = this.body.children.length > 0;
      this.empty.textContent = this.a.at('emptyLog');
    }
  }

  private row(e: LogEntry): HTMLTableRowElement {
    return h('tr', {},
      h('td', {}, when(this.a, e.at)),
      h('td', {}, e.actor === null ? this.a.at('system') : this.name(e.actor)),
      h('td', {}, e.action),
      h('td', {}, e.commentId === null ? '' : '#' + e.commentId),
      h('td', {}, e.userId === null ? '' : this.name(e.userId)),
      h('td', {}, e.reason));
  }

  private name(id: number): HTMLElement {
    const el = h('span', {}, '#' + id);
    void this.a.dir.user(id).then((u) => { if (u) el.textContent = userName(u); });
    return el;
  }
}
