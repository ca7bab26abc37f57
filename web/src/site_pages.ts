// The blog's reading pages: the published list (pinned first as the API orders it, paging,
// kind filter, counts), one article (its sanitised body, then the comment thread of thread.ts,
// whose like button likes the article) and an author's drafts.
import { Api, ApiError, User, articleSource } from './api';
import { h } from './dom';
import { Lang, T, translator } from './i18n';
import { SiteT, counted } from './site_i18n';
import { mountStyles } from './styles';
import { Thread } from './thread';

export interface Ctx {
  api: Api;
  lang: Lang;
  t: SiteT;
  go(url: string): void;                            // navigate (pushState)
  link(href: string, ...children: (Node | string | false)[]): HTMLAnchorElement;
  current(): number;                                // the navigation generation
  onUser(): void;                                   // the header redraws (session changed)
}

export interface Article {
  id: number; kind: 'article' | 'post'; title: string; summary: string; content?: string;
  status: 'draft' | 'published'; pinned: boolean; allowComments: boolean; author: User;
  createdAt: string; updatedAt: string; publishedAt: string | null;
  viewCount: number; likeCount: number; commentCount: number; liked: boolean;
}
interface ArticleList { items: Article[]; page: number | null; size: number; total: number }
interface SearchList { items: (Article & { snippet: string })[]; page: number; size: number; total: number }

const kPageSize = 10;

const mayEdit = (api: Api, a: Article) =>
  !!api.user && (api.user.role === 'admin' || api.user.id === a.author.id);

function date(ctx: Ctx, iso: string | null): HTMLElement | false {
  return !!iso && h('time', { datetime: iso }, new Date(iso).toLocaleDateString(ctx.lang,
    { year: 'numeric', month: 'short', day: 'numeric' }));
}

function meta(ctx: Ctx, a: Article, ...extra: (Node | false)[]): HTMLElement {
  const t = ctx.t;
  return h('p', { class: 'meta' },
    a.pinned && h('span', { class: 'badge' }, t('pinned')),
    a.status === 'draft' && h('span', { class: 'badge' }, t('draft')),
    h('span', {}, t('by', a.author.displayName || a.author.username)),
    date(ctx, a.publishedAt || a.updatedAt), ...extra);
}

function item(ctx: Ctx, a: Article): HTMLElement {
  const t = ctx.t;
  return h('li', { class: 'item' + (a.pinned ? ' pinned' : '') },
    h('h2', {}, ctx.link(a.status === 'draft' ? `/write?id=${a.id}` : `/articles/${a.id}`, a.title)),
    meta(ctx, a),
    // The API's summary is the first 64 characters of the text: a full one was most likely cut.
    a.summary && h('p', { class: 'summary' }, [...a.summary].length >= 64 ? a.summary + '…' : a.summary),
    a.status !== 'draft' && h('p', { class: 'counts' },
      h('span', {}, counted(t, a.likeCount, 'like1', 'likes')),
      h('span', {}, counted(t, a.commentCount, 'comment1', 'comments')),
      h('span', {}, counted(t, a.viewCount, 'view1', 'views'))));
}

function pager(ctx: Ctx, base: URLSearchParams, page: number, total: number): HTMLElement | false {
  const pages = Math.max(1, Math.ceil(total / kPageSize));
  if (pages <= 1) return false;
  const at = (p: number) => {
    const q = new URLSearchParams(base);
    q.set('page', String(p));
    return location.pathname + '?' + q.toString();
  };
  return h('nav', { class: 'pager', 'aria-label': ctx.t('pageOf', page, pages) },
    page > 1 && ctx.link(at(page - 1), ctx.t('prev')),
    h('span', {}, ctx.t('pageOf', page, pages)),
    page < pages && ctx.link(at(page + 1), ctx.t('next')));
}

// The no-admin notice needs the setup API; a plauditd without it (404) simply shows none.
async function setupNeeded(api: Api): Promise<boolean> {
  if (api.user) return false;
  try {
    return (await api.request<{ needed: boolean }>('GET', '/api/v1/setup')).needed;
  } catch {
    return false;
  }
}

export async function listPage(ctx: Ctx, q: URLSearchParams): Promise<Node> {
  const t = ctx.t;
  const page = Math.max(1, Number(q.get('page')) || 1);
  const kind = q.get('kind') === 'article' || q.get('kind') === 'post' ? q.get('kind')! : undefined;
  const [list, needed] = await Promise.all([
    ctx.api.request<ArticleList>('GET', '/api/v1/articles', { page, size: kPageSize, kind }),
    setupNeeded(ctx.api)]);
  const filter = h('nav', { class: 'filter', 'aria-label': t('kindFilter') },
    ...([[undefined, 'all'], ['article', 'articles'], ['post', 'posts']] as const).map(([k, label]) => {
      const a = ctx.link(k ? `/?kind=${k}` : '/', t(label));
      if (k === kind) a.setAttribute('aria-current', 'page');
      return a;
    }));
  const base = new URLSearchParams(kind ? { kind } : {});
  return h('div', {},
    needed && h('p', { class: 'notice', role: 'note' }, t('noAdmin')),
    h('h1', {}, t('home')), filter,
    list.items.length ? h('ol', { class: 'items' }, ...list.items.map((a) => item(ctx, a)))
      : h('p', { class: 'muted' }, t('nothing')),
    pager(ctx, base, page, list.total));
}

// A snippet as text, its <mark>s kept and nothing else: the server escapes it already, and
// this holds even if it did not.
function marked(html: string): HTMLElement {
  const out = h('p', { class: 'summary snippet' });
  const doc = new DOMParser().parseFromString(html, 'text/html');
  for (const n of Array.from(doc.body.childNodes)) {
    if (n.nodeName === 'MARK') out.append(h('mark', {}, n.textContent || ''));
    else out.append(n.textContent || '');
  }
  return out;
}

// The search box of every page's header.
export function searchBox(ctx: Ctx, value = ''): HTMLElement {
  const t = ctx.t;
  const input = h('input', { type: 'search', name: 'q', value, 'aria-label': t('searchLabel'),
                             placeholder: t('search'), maxlength: '200' }) as HTMLInputElement;
  return h('form', { role: 'search', class: 'search', onsubmit: (e: Event) => {
    e.preventDefault();
    const q = input.value.trim();
    if (q) ctx.go('/search?' + new URLSearchParams({ q }).toString());
  } }, input, h('button', { type: 'submit' }, t('search')));
}

export async function searchPage(ctx: Ctx, q: URLSearchParams): Promise<Node> {
  const t = ctx.t;
  const text = (q.get('q') || '').trim();
  const page = Math.max(1, Number(q.get('page')) || 1);
  if (!text) return h('div', {}, h('h1', {}, t('search')), searchBox(ctx));
  const list = await ctx.api.request<SearchList>('GET', '/api/v1/search', { q: text, page, size: kPageSize });
  return h('div', {},
    h('h1', {}, t('searchResults', text)),
    h('p', { class: 'muted', role: 'status' }, list.total ? t('found', list.total) : t('noResults', text)),
    list.items.length > 0 && h('ol', { class: 'items results' }, ...list.items.map((a) => {
      const li = item(ctx, a);
      li.querySelector('.summary')?.remove();
      li.insertBefore(marked(a.snippet), li.querySelector('.counts'));
      return li;
    })),
    pager(ctx, new URLSearchParams({ q: text }), page, list.total));
}

export async function draftsPage(ctx: Ctx, q: URLSearchParams): Promise<Node> {
  const t = ctx.t;
  if (!ctx.api.user) { ctx.go('/signin?next=/drafts'); return h('p', {}); }
  const page = Math.max(1, Number(q.get('page')) || 1);
  const list = await ctx.api.request<ArticleList>('GET', '/api/v1/articles',
                                                  { status: 'draft', page, size: kPageSize });
  return h('div', {}, h('h1', {}, t('drafts')),
    list.items.length ? h('ol', { class: 'items' }, ...list.items.map((a) => item(ctx, a)))
      : h('p', { class: 'muted' }, t('noDrafts')),
    pager(ctx, new URLSearchParams(), page, list.total));
}

export async function articlePage(ctx: Ctx, id: number): Promise<Node> {
  const t = ctx.t;
  let a: Article;
  try {
    a = await ctx.api.request<Article>('GET', `/api/v1/articles/${id}`);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return h('p', {}, t('notFound'));
    throw e;
  }
  const views = h('span', {}, counted(t, a.viewCount, 'view1', 'views'));
  // The one innerHTML of the site: `content` is the server's sanitised HTML (text/sanitizer
  // keeps a safe subset on every write). Every other field goes in as text.
  const body = h('div', { class: 'content' });
  body.innerHTML = a.content || '';
  // The thread's first info() is the article already fetched: one view per page view.
  const source = articleSource(ctx.api, id);
  let first: Article | null = a;
  const info = source.info;
  source.info = async () => {
    if (!first) return info();
    const x = first;
    first = null;
    return { articleId: x.id, commentCount: x.commentCount, likeCount: x.likeCount, liked: x.liked };
  };
  const host = h('div', { class: 'thread-host', 'data-plaudit-theme': 'auto' });
  const root = host.attachShadow({ mode: 'open' });
  mountStyles(root);
  // The widget's strings, but its like button likes the article, not "this page".
  const widgetT = translator(ctx.lang);
  const threadT: T = (key, ...args) => key === 'likePage' ? t('likeArticle') : widgetT(key, ...args);
  root.append(new Thread({ api: ctx.api, source, lang: ctx.lang, t: threadT }).el);
  // The thread redraws itself on sign-in/out; the header must too.
  const threadHook = ctx.api.onSessionChange;
  ctx.api.onSessionChange = () => { threadHook(); ctx.onUser(); };
  return h('article', { class: 'article' },
    h('h1', {}, a.title),
    meta(ctx, a, views, mayEdit(ctx.api, a) && ctx.link(`/write?id=${a.id}`, t('edit'))),
    body, host);
}
