// The widget and count badges on a host page of another origin (http://localhost:P2, plauditd
// on http://127.0.0.1:P1), under a strict host CSP, on page threads (data-url).
// Needs CORS for --sites (all tests) and the page-thread routes (GET/POST
// /api/v1/pages/comments, /pages/like, /pages/counts; all but the first test). A tree without
// them in its sources (a branch that has not merged them yet) skips those tests, saying why;
// once the sources have them, the tests run and must pass.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { api, eventually, hostPage, likeSettled, launchBrowser, newUser, root, signIn, snippet, startHostServer,
         startPlauditd, widgetPost, widgetSignUp } from './harness.mjs';

const apiDir = join(root, 'src/api');
const missingCors = existsSync(join(root, 'src/http/cors.cpp')) ? null : 'CORS for --sites (src/http/cors.cpp) is not in this tree';
const missingPages = readdirSync(apiDir).some((f) => f.endsWith('.cpp') && readFileSync(join(apiDir, f), 'utf8').includes('/api/v1/pages'))
  ? null : 'the page-thread routes (/api/v1/pages...) are not in this tree';
const missing = missingCors || missingPages;

describe('widget on another origin (page threads)', () => {
  let plaudit, host, browser;

  before(async () => {
    host = await startHostServer();
    plaudit = await startPlauditd(['--sites', host.origin, '--rate-limits', 'off']);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await plaudit?.stop();
    await host?.stop();
  });

  // The host's own policy: scripts and connections to plauditd only, no inline styles at all.
  const csp = () => `default-src 'self'; script-src 'self' ${plaudit.url}; connect-src ${plaudit.url}; ` +
                    `style-src 'self'; img-src 'self'; base-uri 'none'`;

  it('signs in, comments and likes across origins on an article (data-article)', async (t) => {
    if (missingCors) { t.skip(missingCors); return; }
    const admin = await signIn(plaudit.url, 'admin', 'admin-password');
    const a = await api(plaudit.url, 'POST', '/api/v1/articles',
                        { token: admin.token, body: { title: 'Cross', content: '<p>x</p>', status: 'published' } });
    host.pages.set('/article', { csp: csp(), html: hostPage(snippet(plaudit.url, { article: a.json.id })) });
    const context = await browser.browser.newContext();
    context.setDefaultTimeout(10000);
    const page = await context.newPage();
    const problems = [];
    page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
    await page.goto(`${host.origin}/article`);
    const w = page.locator('#plaudit');
    await w.getByText('No comments yet').waitFor();
    await widgetSignUp(w, 'hank', 'hank-password');
    const item = await widgetPost(w, 'Across origins');
    const like = item.locator('article .like');
    await like.click();
    await likeSettled(like);
    await w.getByRole('button', { name: 'Sign out' }).click();
    await w.getByRole('button', { name: 'Sign in' }).waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('comments on a page: the first comment creates its thread, likes, reload keeps the session', async (t) => {
    if (missing) { t.skip(missing); return; }
    const pageUrl = `${host.origin}/blog/first-post`;
    host.pages.set('/blog/first-post', {
      csp: csp(),
      html: hostPage('<article><h1>First post</h1></article>' + snippet(plaudit.url, { title: 'First post' }), { title: 'First post' }),
    });
    const context = await browser.browser.newContext();
    context.setDefaultTimeout(10000);
    const page = await context.newPage();
    const violations = [];
    page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) violations.push(m.text()); });
    page.on('pageerror', (e) => violations.push(String(e)));
    await page.goto(pageUrl);
    const w = page.locator('#plaudit');
    await w.getByText('No comments yet').waitFor();
    // Styled under style-src 'self': the constructed stylesheet applies.
    const pressed = w.locator('.sort button[aria-pressed="true"]');
    assert.equal(await pressed.evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(37, 99, 235)');

    await widgetSignUp(w, 'erin', 'erin-password');
    await widgetPost(w, 'First!');
    await w.getByRole('heading', { name: '1 comment' }).waitFor();

    const info = await api(plaudit.url, 'GET', `/api/v1/pages?url=${encodeURIComponent(pageUrl)}`);
    assert.equal(info.status, 200);
    assert.ok(info.json.articleId > 0);
    const article = await api(plaudit.url, 'GET', `/api/v1/articles/${info.json.articleId}`);
    assert.equal(article.json.title, 'First post');

    const like = w.locator('.page-like');
    await like.click();
    await likeSettled(like);

    // A reload: still signed in (localStorage, not a third-party cookie), state from the server.
    await page.reload();
    await w.getByText('Signed in as erin').waitFor();
    await w.locator('li.c', { hasText: 'First!' }).waitFor();
    await eventually(async () => (await like.getAttribute('aria-pressed')) === 'true');
    assert.deepEqual(violations, []);
    await context.close();
  });

  it('a page whose title is over the API limit of 200 characters still gets its thread', async (t) => {
    if (missing) { t.skip(missing); return; }
    const pageUrl = `${host.origin}/blog/long-title`;
    const long = '长'.repeat(150) + ' ' + 'x'.repeat(150);  // 301 characters, no data-title
    host.pages.set('/blog/long-title', { csp: csp(), html: hostPage(snippet(plaudit.url), { title: long }) });
    const context = await browser.browser.newContext();
    context.setDefaultTimeout(10000);
    const page = await context.newPage();
    await page.goto(pageUrl);
    const w = page.locator('#plaudit');
    await w.getByText('No comments yet').waitFor();
    await widgetSignUp(w, 'gina', 'gina-password');
    await widgetPost(w, 'Long titles happen');
    await w.getByRole('heading', { name: '1 comment' }).waitFor();
    const info = await api(plaudit.url, 'GET', `/api/v1/pages?url=${encodeURIComponent(pageUrl)}`);
    const article = await api(plaudit.url, 'GET', `/api/v1/articles/${info.json.articleId}`);
    assert.equal(article.json.title, Array.from(long).slice(0, 200).join('').trim());
    await context.close();
  });

  it('fills count badges on an index page in one request', async (t) => {
    if (missing) { t.skip(missing); return; }
    const a = `${host.origin}/blog/a`, b = `${host.origin}/blog/b`, none = `${host.origin}/blog/none`;
    const frank = await newUser(plaudit.url, 'frank', 'Frank');
    for (const [url, n] of [[a, 2], [b, 1]]) {
      for (let i = 0; i < n; i++) {
        const r = await api(plaudit.url, 'POST', `/api/v1/pages/comments?url=${encodeURIComponent(url)}`,
                            { token: frank.token, body: { body: `c${i}` } });
        assert.equal(r.status, 201);
      }
    }
    const like = await api(plaudit.url, 'PUT', `/api/v1/pages/like?url=${encodeURIComponent(a)}`, { token: frank.token });
    assert.equal(like.status, 200);
    host.pages.set('/index.html', {
      csp: csp(),
      html: hostPage(`<ul>
        <li><a href="/blog/a">A</a> <span id="ca" data-plaudit-count="${a}">…</span> <span id="la" data-plaudit-count="/blog/a" data-plaudit-kind="likes">…</span></li>
        <li><a href="/blog/b">B</a> <span id="cb" data-plaudit-count="${b}">…</span></li>
        <li><a href="/blog/none">None</a> <span id="cn" data-plaudit-count="${none}">…</span></li>
      </ul><script src="${plaudit.url}/count.js" async></script>`),
    });
    const context = await browser.browser.newContext();
    const page = await context.newPage();
    const calls = [];
    page.on('request', (r) => { if (r.url().includes('/api/v1/pages/counts')) calls.push(r.url()); });
    await page.goto(`${host.origin}/index.html`);
    await eventually(async () => (await page.locator('#ca').innerText()) === '2', 10000, 'badge a');
    assert.equal(await page.locator('#la').innerText(), '1');
    assert.equal(await page.locator('#cb').innerText(), '1');
    assert.equal(await page.locator('#cn').innerText(), '0');
    assert.equal(calls.length, 1);

    // 150 distinct pages: two requests (at most 100 URLs each), every badge filled.
    const many = Array.from({ length: 150 }, (_, i) => `<span data-plaudit-count="/blog/p${i}">…</span>`).join('');
    host.pages.set('/many.html', { csp: csp(), html: hostPage(many + `<script src="${plaudit.url}/count.js" async></script>`) });
    calls.length = 0;
    await page.goto(`${host.origin}/many.html`);
    await eventually(async () => (await page.locator('span[data-plaudit-count]').allInnerTexts()).every((t) => t === '0'),
                     10000, '150 badges');
    assert.equal(calls.length, 2);
    await context.close();
  });

  it('shows a 429 politely across origins (Retry-After exposed)', async (t) => {
    if (missing) { t.skip(missing); return; }
    const limited = await startPlauditd(['--sites', host.origin, '--limit-writes-user', '1/1m']);
    try {
      const gina = await newUser(limited.url, 'gina', 'Gina');
      host.pages.set('/limited', { html: hostPage(snippet(limited.url)) });
      const context = await browser.browser.newContext();
      await context.addInitScript(([k, v]) => localStorage.setItem(k, v), ['plaudit:session:' + limited.url, JSON.stringify(gina)]);
      const page = await context.newPage();
      await page.goto(`${host.origin}/limited`);
      const w = page.locator('#plaudit');
      await w.getByText('Signed in as Gina').waitFor();
      await widgetPost(w, 'one');
      await w.getByLabel('Write a comment').fill('two');
      await w.getByRole('button', { name: 'Post comment' }).click();
      await eventually(async () => /try again in \d+ seconds/.test(await w.getByRole('status').innerText()), 10000, '429 message');
      await context.close();
    } finally {
      await limited.stop();
    }
  });
});
