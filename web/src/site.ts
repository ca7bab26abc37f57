// site.js: plauditd's own blog pages (GET /, /articles/{id}, /write, /drafts, /search, /setup,
// /signin, /admin; one HTML shell, see src/api/site_pages.hpp). Routing is client-side with history.pushState;
// every URL also loads directly because the server answers each with the same shell.
// The session is plauditd's HttpOnly cookie (Api cookie mode): same origin, no token in script.
import { adminPage } from './admin';
import { isModerator } from './admin_api';
import { Api } from './api';
import { h } from './dom';
import { pickLang } from './i18n';
import { siteTranslator } from './site_i18n';
import { Ctx, articlePage, draftsPage, listPage, searchBox, searchPage } from './site_pages';
import { editorPage, setupPage, signInPage } from './site_forms';

// The browser's language (the shell's <html lang="en"> is only the fallback before this runs).
const lang = pickLang(navigator.language);
document.documentElement.lang = lang;
const api = new Api(location.origin, true);
const top = document.getElementById('top') as HTMLElement;
const main = document.getElementById('main') as HTMLElement;
let gen = 0;  // bumped per navigation: a slow page's late answers are dropped

const ctx: Ctx = {
  api, lang, t: siteTranslator(lang),
  go: (url) => { history.pushState(null, '', url); void route(); },
  link: (href, ...children) => h('a', { href, onclick: (e: MouseEvent) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    ctx.go(href);
  } }, ...children),
  current: () => gen,
  onUser: () => renderTop(),
};

const canWrite = () => api.user?.role === 'admin' || api.user?.role === 'author';

function renderTop(): void {
  const t = ctx.t;
  const u = api.user;
  const nav = h('nav', { 'aria-label': t('siteName') },
    ctx.link('/', t('home')),
    canWrite() && ctx.link('/write', t('write')),
    canWrite() && ctx.link('/drafts', t('drafts')),
    isModerator(u) && ctx.link('/admin', t('moderation')));
  const who = u
    ? h('div', { class: 'who' }, h('span', {}, t('signedInAs', u.displayName || u.username)),
        h('button', { type: 'button', onclick: async () => { await api.signOut().catch(() => {}); ctx.go('/'); } },
          t('signOut')))
    : h('div', { class: 'who' }, ctx.link('/signin', t('signIn')));
  const q = location.pathname === '/search' ? new URLSearchParams(location.search).get('q') || '' : '';
  top.replaceChildren(ctx.link('/', h('strong', {}, t('siteName'))), nav, searchBox(ctx, q), who);
}

async function route(): Promise<void> {
  const my = ++gen;
  api.onSessionChange = renderTop;  // an article page's thread chains itself in again
  const path = location.pathname;
  const q = new URLSearchParams(location.search);
  main.replaceChildren(h('p', { class: 'muted', role: 'status' }, ctx.t('loadingPage')));
  renderTop();
  let m: RegExpMatchArray | null;
  let page: Promise<Node>;
  if (path === '/') page = listPage(ctx, q);
  else if ((m = path.match(/^\/articles\/(\d+)$/))) page = articlePage(ctx, Number(m[1]));
  else if (path === '/write') page = editorPage(ctx, Number(q.get('id')) || 0);
  else if (path === '/drafts') page = draftsPage(ctx, q);
  else if (path === '/search') page = searchPage(ctx, q);
  else if (path === '/setup') page = setupPage(ctx, q.get('token') || '');
  else if (path === '/signin') page = signInPage(ctx, q.get('next') || '/');
  else if (path === '/admin') page = adminPage(ctx, q);
  else page = Promise.resolve(h('p', {}, ctx.t('notFound')));
  let node: Node;
  try {
    node = await page;
  } catch (e) {
    node = h('p', { role: 'alert' }, ctx.t('errOther', (e as Error).message || String(e)));
  }
  if (my !== gen) return;
  main.replaceChildren(node);
  // Screen readers hear the new page; the first heading names it.
  const h1 = main.querySelector('h1');
  document.title = (h1 ? h1.textContent + ' · ' : '') + ctx.t('siteName');
  if (my > 1) main.focus();
}

window.addEventListener('popstate', () => void route());
api.onSessionChange = () => renderTop();
void api.refreshUser().catch(() => {}).then(route);
