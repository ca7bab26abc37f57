// The users tab (admins only): find users by username or display-name prefix
// (GET /api/v1/users?q=, ordered by id, paged by cursor), change a role with a select (PATCH;
// the select goes back when the server refuses) and ban or unban.
import { ApiError, User } from './api';
import { Role, kRoles, setRole, users } from './admin_api';
import { banControl } from './admin_ban';
import { AdminCtx, errorText, userName, when } from './admin_ctx';
import { AdminKey } from './admin_i18n';
import { h } from './dom';

export class UsersPanel {
  readonly el: HTMLElement;
  private body = h('tbody');
  private empty = h('p', { class: 'muted', hidden: true });
  private more: HTMLButtonElement;
  private q: HTMLInputElement;
  private cursor: string | null = null;
  private gen = 0;

  constructor(private a: AdminCtx) {
    const at = a.at;
    this.q = h('input', { id: 'users-q', type: 'search', autocomplete: 'off' });
    const form = h('form', { class: 'search', role: 'search' },
      h('label', { for: 'users-q' }, at('search')), this.q, h('button', { type: 'submit' }, at('find')));
    form.addEventListener('submit', (ev) => { ev.preventDefault(); void this.reload(); });
    this.more = h('button', { type: 'button', class: 'more', hidden: true, onclick: () => void this.load(true) },
                  at('loadMore'));
    this.el = h('div', { class: 'users-panel' }, form,
      h('table', { class: 'grid' },
        h('thead', {}, h('tr', {}, ...(['userName', 'role', 'joined', 'status'] as const)
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
    let missing = false;
    try {
      const page = await users(this.a.ctx.api, this.q.value.trim(), more ? this.cursor ?? undefined : undefined);
      if (gen !== this.gen) return;
      this.body.append(...page.items.map((u) => this.row(u)));
      this.cursor = page.nextCursor;
    } catch (e) {
      if (gen !== this.gen) return;
      // A server from before the users list answers 404 (or 405: /users is only POST there).
      missing = e instanceof ApiError && (e.status === 404 || e.status === 405);
      if (!missing) this.a.say(errorText(this.a, e), true);
    } finally {
      this.more.disabled = false;
      this.more.hidden = !this.cursor;
      this.empty.hidden = this.body.children.length > 0;
      this.empty.textContent = this.a.at(missing ? 'usersMissing' : 'noUsers');
    }
  }

  private row(u: User): HTMLTableRowElement {
    const at = this.a.at;
    const me = this.a.ctx.api.user;
    const select = h('select', { 'aria-label': at('roleOf', userName(u)) },
      ...kRoles.map((r) => h('option', { value: r, selected: r === u.role }, at(('role_' + r) as AdminKey))));
    // An admin cannot demote themselves here: the console would lock them out mid-use.
    select.disabled = !!me && me.id === u.id;
    let role = u.role || 'user';
    select.addEventListener('change', async () => {
      const next = select.value as Role;
      select.disabled = true;
      try {
        const saved = await setRole(this.a.ctx.api, u.id, next);
        role = saved.role || next;
        this.a.say(at('roleSaved', userName(u), at(('role_' + role) as AdminKey)));
      } catch (e) {
        select.value = role;
        this.a.say(errorText(this.a, e), true);
      } finally {
        select.disabled = false;
      }
    });
    const status = h('span', {});
    const renderStatus = (x: User) => status.replaceChildren(!x.banned ? at('active')
      : x.bannedUntil ? at('bannedUntil', new Date(x.bannedUntil).toLocaleString(this.a.ctx.lang)) : at('banned'));
    renderStatus(u);
    return h('tr', {},
      h('td', {}, h('strong', {}, userName(u)), ' ', h('span', { class: 'muted' }, '@' + u.username)),
      h('td', {}, select),
      h('td', {}, u.createdAt ? when(this.a, u.createdAt) : ''),
      h('td', {}, status, ' ', banControl(this.a, u, renderStatus)));
  }
}
