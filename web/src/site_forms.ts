// The blog's forms: sign in / sign up, first-run setup (the token from plauditd's log makes the
// first admin; nobody becomes admin without it) and the editor (authors and admins; the pin
// only for admins). Errors are announced in a role=alert paragraph next to the button.
import { ApiError } from './api';
import { h } from './dom';
import { Article, Ctx } from './site_pages';
import { SiteKey } from './site_i18n';

let seq = 0;

function field(label: string, input: HTMLInputElement | HTMLTextAreaElement, help?: string): HTMLElement {
  input.id = 'f' + ++seq;
  const helpEl = help ? h('small', { id: input.id + 'h' }, help) : null;
  if (helpEl) input.setAttribute('aria-describedby', helpEl.id);
  return h('p', { class: 'field' }, h('label', { for: input.id }, label), input, helpEl);
}

function check(label: string, checked: boolean): [HTMLElement, HTMLInputElement] {
  const box = h('input', { type: 'checkbox' });
  box.checked = checked;
  return [h('p', { class: 'check' }, h('label', {}, box, ' ' + label)), box];
}

// Runs `fn` on submit with the button disabled; its error becomes the alert's text.
function form(ctx: Ctx, button: string, fields: Node[],
              fn: () => Promise<void>, codes: Partial<Record<number, SiteKey>> = {}): HTMLFormElement {
  const alert = h('p', { class: 'alert', role: 'alert' });
  const submit = h('button', { type: 'submit' }, button);
  const f = h('form', { novalidate: true }, ...fields, h('p', { class: 'actions' }, submit), alert);
  f.addEventListener('submit', async (e) => {
    e.preventDefault();
    alert.textContent = '';
    submit.disabled = true;
    try {
      await fn();
    } catch (err) {
      const key = err instanceof ApiError ? codes[err.status] : undefined;
      alert.textContent = key ? ctx.t(key)
        : err instanceof ApiError && err.status === 400 ? err.message
        : ctx.t('errOther', err instanceof ApiError ? err.code : String(err));
    } finally {
      submit.disabled = false;
    }
  });
  return f;
}

const input = (type: string, autocomplete: string) =>
  h('input', { type, autocomplete, required: type !== 'text' || autocomplete === 'username' });

export async function signInPage(ctx: Ctx, next: string): Promise<Node> {
  const t = ctx.t;
  const safeNext = next.startsWith('/') && !next.startsWith('//') ? next : '/';
  const user = input('text', 'username'), pass = input('password', 'current-password');
  const signIn = form(ctx, t('signIn'), [field(t('username'), user), field(t('password'), pass)],
    async () => { await ctx.api.signIn(user.value.trim(), pass.value); ctx.go(safeNext); },
    { 401: 'errBadLogin', 429: 'errRate' });
  const nu = input('text', 'username'), np = input('password', 'new-password'), nd = input('text', 'nickname');
  const signUp = form(ctx, t('signUp'),
    [field(t('username'), nu), field(t('password'), np), field(t('displayName'), nd)],
    async () => { await ctx.api.signUp(nu.value.trim(), np.value, nd.value.trim()); ctx.go(safeNext); },
    { 409: 'errTaken', 429: 'errRate' });
  // Other ways in (API.md "Guests and sign-in from elsewhere"): the provider's page, then back
  // here signed in (the callback sets the session cookie and returns to `next`).
  const providers = await ctx.api.providers().catch(() => ({ items: [], guests: 'off' as const }));
  const back = location.origin + safeNext;
  const social = providers.items.filter((p) => p.kind !== 'sso').map((p) =>
    h('a', { class: 'button social', href: `/api/v1/auth/${encodeURIComponent(p.name)}/start?return=${encodeURIComponent(back)}` },
      t('signInWith', p.kind === 'github' ? 'GitHub' : p.name.charAt(0).toUpperCase() + p.name.slice(1))));
  return h('div', { class: 'forms' },
    h('section', { 'aria-labelledby': 'signin-h' }, h('h1', { id: 'signin-h' }, t('signIn')), signIn,
      social.length > 0 && h('p', { class: 'social' }, ...social)),
    h('section', { 'aria-labelledby': 'signup-h' }, h('h2', { id: 'signup-h' }, t('noAccount') + ' ' + t('signUp')), signUp));
}

export async function setupPage(ctx: Ctx, token: string): Promise<Node> {
  const t = ctx.t;
  const { needed } = await ctx.api.request<{ needed: boolean }>('GET', '/api/v1/setup');
  const done = h('p', {}, t('setupDone') + ' ', ctx.link('/signin', t('signIn')));
  if (!needed) return h('div', {}, h('h1', {}, t('setupTitle')), done);
  if (!token) return h('div', {}, h('h1', {}, t('setupTitle')), h('p', { role: 'note' }, t('setupNoToken')));
  const user = input('text', 'username'), pass = input('password', 'new-password'), name = input('text', 'nickname');
  return h('div', {}, h('h1', {}, t('setupTitle')),
    form(ctx, t('setupCreate'), [field(t('username'), user), field(t('password'), pass), field(t('displayName'), name)],
      async () => {
        try {
          await ctx.api.setup(token, user.value.trim(), pass.value, name.value.trim());
        } catch (err) {
          // 409 is both "setup is done" and "that username is taken": only the first ends it.
          if (err instanceof ApiError && err.status === 409 &&
              (await ctx.api.request<{ needed: boolean }>('GET', '/api/v1/setup')).needed) {
            throw new ApiError(400, err.code, t('errTaken'));
          }
          throw err;
        }
        history.replaceState(null, '', '/setup');  // the used token leaves the address bar
        ctx.go('/');
      }, { 403: 'errBadToken', 409: 'setupDone', 429: 'errRate' }));
}

export async function editorPage(ctx: Ctx, id: number): Promise<Node> {
  const t = ctx.t;
  const me = ctx.api.user;
  if (!me) { ctx.go('/signin?next=' + encodeURIComponent(location.pathname + location.search)); return h('p', {}); }
  if (me.role !== 'admin' && me.role !== 'author') return h('p', { role: 'note' }, t('needAuthor'));
  const a: Partial<Article> = id ? await ctx.api.request<Article>('GET', `/api/v1/articles/${id}`) : {};
  const title = h('input', { type: 'text', required: true, maxlength: 200 });
  title.value = a.title || '';
  const body = h('textarea', { rows: 14 });
  body.value = a.content || '';
  const [pubRow, publish] = check(t('publish'), a.status === 'published');
  const [pinRow, pin] = check(t('pin'), !!a.pinned);
  const [comRow, allow] = check(t('allowComments'), a.allowComments ?? true);
  const status = h('p', { class: 'muted', role: 'status' });
  let current = id;
  const f = form(ctx, t('save'), [
    field(t('title'), title), field(t('body'), body, t('bodyHelp')), pubRow,
    me.role === 'admin' && pinRow, comRow].filter((x): x is HTMLElement => !!x),
  async () => {
    status.textContent = '';
    const fields: Record<string, unknown> = {
      title: title.value, content: body.value, status: publish.checked ? 'published' : 'draft',
      allowComments: allow.checked,
    };
    if (me.role === 'admin') fields.pinned = pin.checked;
    const saved = current
      ? await ctx.api.request<Article>('PATCH', `/api/v1/articles/${current}`, {}, fields)
      : await ctx.api.request<Article>('POST', '/api/v1/articles', {}, fields);
    current = saved.id;
    if (saved.status === 'published') { ctx.go(`/articles/${saved.id}`); return; }
    history.replaceState(null, '', `/write?id=${saved.id}`);
    status.textContent = t('saved');
  }, {});
  return h('div', { class: 'editor' }, h('h1', {}, t(id ? 'editArticle' : 'newArticle')), f, status);
}
