// The moderation console (GET /admin): tabs for the pending, reported and spam queues, the
// log and (admins only) the users. The page only draws what the API allows; the server checks
// every call's role itself. Tabs follow the WAI-ARIA tabs pattern (one tab stop, arrow keys,
// Home/End); the open tab is kept in ?tab= so a reload stays put. The queue's single-key
// shortcuts work while focus is not in a text field, and are listed on the page.
import { Directory, isModerator } from './admin_api';
import { AdminCtx } from './admin_ctx';
import { AdminKey, adminTranslator } from './admin_i18n';
import { LogPanel } from './admin_log';
import { QueuePanel } from './admin_queue';
import { UsersPanel } from './admin_users';
import { h } from './dom';
import { Ctx } from './site_pages';

type TabName = 'pending' | 'reported' | 'spam' | 'log' | 'users';
interface Panel { el: HTMLElement; reload(): Promise<void>; key?(ev: KeyboardEvent): boolean }

const kTabLabel: Record<TabName, AdminKey> = {
  pending: 'tabPending', reported: 'tabReported', spam: 'tabSpam', log: 'tabLog', users: 'tabUsers',
};

export async function adminPage(ctx: Ctx, q: URLSearchParams): Promise<Node> {
  const at = adminTranslator(ctx.lang);
  const me = ctx.api.user;
  if (!me) {
    return h('div', {}, h('h1', {}, at('title')),
      h('p', { role: 'note' }, ctx.link('/signin?next=/admin', ctx.t('signIn')), ' — ', at('signInFirst')));
  }
  if (!isModerator(me)) return h('div', {}, h('h1', {}, at('title')), h('p', { role: 'note' }, at('notAllowed')));

  const status = h('p', { class: 'live', role: 'status', 'aria-live': 'polite' });
  const a: AdminCtx = {
    ctx, at, dir: new Directory(ctx.api),
    say: (text, error = false) => { status.textContent = text; status.classList.toggle('error', error); },
  };
  const names: TabName[] = ['pending', 'reported', 'spam', 'log'];
  if (me.role === 'admin') names.push('users');
  const panels = new Map<TabName, Panel>();
  const make = (n: TabName): Panel =>
    n === 'log' ? new LogPanel(a) : n === 'users' ? new UsersPanel(a) : new QueuePanel(a, n);

  const tablist = h('div', { class: 'tabs', role: 'tablist', 'aria-label': at('tabs') });
  const tabs = names.map((n) => h('button', {
    type: 'button', role: 'tab', id: 'tab-' + n, 'aria-controls': 'panel-' + n, 'data-tab': n,
    onclick: () => void select(n, false),
  }, at(kTabLabel[n])));
  tablist.append(...tabs);
  const holder = h('div', {});
  let current: TabName = names.includes(q.get('tab') as TabName) ? q.get('tab') as TabName : 'pending';

  async function select(n: TabName, focusTab: boolean): Promise<void> {
    current = n;
    for (const t of tabs) {
      const on = t.dataset.tab === n;
      t.setAttribute('aria-selected', String(on));
      t.tabIndex = on ? 0 : -1;
      if (on && focusTab) t.focus();
    }
    let p = panels.get(n);
    if (!p) {
      p = make(n);
      p.el.id = 'panel-' + n;
      p.el.setAttribute('role', 'tabpanel');
      p.el.setAttribute('aria-labelledby', 'tab-' + n);
      panels.set(n, p);
      holder.append(p.el);
    }
    for (const [name, x] of panels) x.el.hidden = name !== n;
    const url = new URL(location.href);
    url.searchParams.set('tab', n);
    history.replaceState(null, '', url.pathname + url.search);
    a.say('');
    await p.reload();
  }

  tablist.addEventListener('keydown', (ev) => {
    const i = names.indexOf(current);
    const to = ev.key === 'ArrowRight' ? (i + 1) % names.length
      : ev.key === 'ArrowLeft' ? (i - 1 + names.length) % names.length
      : ev.key === 'Home' ? 0 : ev.key === 'End' ? names.length - 1 : -1;
    if (to < 0) return;
    ev.preventDefault();
    void select(names[to], true);
  });

  const page = h('div', { class: 'admin' }, h('h1', {}, at('title')), tablist, status, holder, shortcutsHelp(a));

  // One listener for the page's life: it removes itself once the console is navigated away.
  const onKey = (ev: KeyboardEvent) => {
    if (!page.isConnected) { document.removeEventListener('keydown', onKey); return; }
    if (ev.ctrlKey || ev.metaKey || ev.altKey || inTextField(ev.target)) return;
    const p = panels.get(current);
    if (p?.key && p.key(ev)) ev.preventDefault();
  };
  document.addEventListener('keydown', onKey);
  void select(current, false);
  return page;
}

// Single letters are text in a text field (or choose an option in a select).
function inTextField(t: EventTarget | null): boolean {
  if (!(t instanceof HTMLElement)) return false;
  if (t.isContentEditable || t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement) return true;
  return t instanceof HTMLInputElement && !['checkbox', 'radio', 'button', 'submit', 'reset'].includes(t.type);
}

function shortcutsHelp(a: AdminCtx): HTMLElement {
  const at = a.at;
  const item = (keys: string[], key: AdminKey) =>
    h('div', {}, h('dt', {}, ...keys.flatMap((k, i) => [i ? ' / ' : '', h('kbd', {}, k)])), h('dd', {}, at(key)));
  return h('section', { class: 'shortcuts', 'aria-labelledby': 'shortcuts-h' },
    h('h2', { id: 'shortcuts-h' }, at('shortcuts')),
    h('dl', {}, item(['j', 'k'], 'keyJK'), item(['x'], 'keyX'), item(['a'], 'keyA'), item(['s'], 'keyS'),
      item(['d'], 'keyD'), item(['r'], 'keyR')),
    h('p', { class: 'muted' }, at('keysNote')));
}
