// Issue 41 (#10, #11, #12, #15) in Chromium against a real plauditd: article images on the blog
// pages, count.js on an index of pages with Chinese slugs, a relative data-url in the widget,
// and non-ASCII page URLs naming one thread however a page spells them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, eventually, hostPage, launchBrowser, newUser, signIn, snippet, startHostServer,
         startPlauditd, widgetPost, widgetSignUp } from './harness.mjs';

// A 1x1 PNG.
const kPng = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

describe('issue 41: page URLs, count badges and article images', () => {
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

  const csp = () => `default-src 'self'; script-src 'self' ${plaudit.url}; connect-src ${plaudit.url}; ` +
                    `style-src 'self'; img-src 'self'; base-uri 'none'`;

  async function newPage() {
    const context = await browser.browser.newContext();
    context.setDefaultTimeout(10000);
    const page = await context.newPage();
    const violations = [];
    page.on('console', (m) => { if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text()); });
    page.on('pageerror', (e) => violations.push(String(e)));
    return { context, page, violations };
  }

  // #10. What this proves: Chromium, under the blog pages' real CSP, requests an article's https
  // image and shows it. The test cannot serve https itself, so Playwright answers the request
  // for https://images.example in the browser (route.fulfill) — after Blink's CSP check, which
  // is the part under test: before the fix the request was refused and never reached the route.
  // It also shows that the image host learns only plauditd's origin (Referrer-Policy), and that
  // an http image stays blocked (the policy allows https: only).
  it('shows an article\'s https image on its blog page; an http one stays blocked', async () => {
    const admin = await signIn(plaudit.url, 'admin', 'admin-password');
    const a = await api(plaudit.url, 'POST', '/api/v1/articles', {
      token: admin.token,
      body: { title: 'Pictures', status: 'published',
              content: `<p>A picture:</p><img src="https://images.example/cat.png" alt="a cat">` +
                       `<img src="${host.origin}/plain.png" alt="plain http">` },
    });
    assert.equal(a.status, 201, JSON.stringify(a.json));
    const { context, page, violations } = await newPage();
    const referers = [];
    await page.route('https://images.example/**', (route) => {
      referers.push(route.request().headers().referer);
      return route.fulfill({ status: 200, contentType: 'image/png', body: kPng });
    });
    await page.goto(`${plaudit.url}/articles/${a.json.id}`);
    const cat = page.getByRole('img', { name: 'a cat' });
    await cat.waitFor();
    await eventually(() => cat.evaluate((img) => img.complete && img.naturalWidth === 1), 10000, 'the https image');
    assert.deepEqual(referers, [plaudit.url + '/']);
    await eventually(() => violations.some((v) => v.includes(`${host.origin}/plain.png`)), 10000, 'the http image refused');
    assert.equal(await page.getByRole('img', { name: 'plain http' }).evaluate((img) => img.naturalWidth), 0);
    assert.equal(violations.length, 1, violations.join('\n'));
    await context.close();
    const policy = (await fetch(`${plaudit.url}/articles/${a.json.id}`)).headers.get('content-security-policy');
    assert.match(policy, /img-src 'self' data: https:;/);
  });

  // #11: 100 pages with short Chinese slugs (18.7 KB as one query, 431) fill every badge.
  it('count.js fills 100 badges of Chinese slugs in requests under the header limit', async () => {
    const frank = await newUser(plaudit.url, 'frank41', 'Frank');
    const slug = (i) => `/posts/关于评论系统的文章${i}`;
    const first = new URL(slug(0), host.origin).href;  // percent-encoded: this test is #11's alone
    const c = await api(plaudit.url, 'POST', `/api/v1/pages/comments?url=${encodeURIComponent(first)}`,
                        { token: frank.token, body: { body: 'first' } });
    assert.equal(c.status, 201, JSON.stringify(c.json));
    const badges = Array.from({ length: 100 }, (_, i) => `<span data-plaudit-count="${slug(i)}">…</span>`).join('');
    host.pages.set('/index-zh.html', { csp: csp(), html: hostPage(badges + `<script src="${plaudit.url}/count.js" async></script>`) });
    const { context, page, violations } = await newPage();
    const calls = [];
    page.on('request', (r) => { if (r.url().includes('/api/v1/pages/counts')) calls.push(r.url()); });
    const statuses = [];
    page.on('response', (r) => { if (r.url().includes('/api/v1/pages/counts')) statuses.push(r.status()); });
    await page.goto(`${host.origin}/index-zh.html`);
    await eventually(async () => (await page.locator('span[data-plaudit-count]').allInnerTexts()).every((t) => t !== '…'),
                     10000, '100 badges');
    const texts = await page.locator('span[data-plaudit-count]').allInnerTexts();
    assert.equal(texts[0], '1');
    assert.ok(texts.slice(1).every((t) => t === '0'), texts.join(','));
    const sent = calls.reduce((n, u) => n + new URL(u).searchParams.getAll('url').length, 0);
    assert.equal(sent, 100);
    assert.ok(calls.length >= 3, `${calls.length} requests`);
    for (const u of calls) assert.ok(u.length - plaudit.url.length <= 8 * 1024, `${u.length} bytes`);
    assert.ok(statuses.every((s) => s === 200), statuses.join(','));
    assert.deepEqual(violations, []);
    await context.close();
  });

  // #12 and #15: a relative, Unicode data-url names the page count.js and location.href name.
  it('the widget resolves a relative Unicode data-url as count.js does: one thread', async () => {
    const encodedPath = '/blog/%E8%AF%84%E8%AE%BA';
    host.pages.set('/blog/elsewhere', {
      csp: csp(),
      html: hostPage(snippet(plaudit.url, { url: '/blog/评论', title: '评论' }) +
                     `<p>Comments: <span id="n" data-plaudit-count="评论">…</span> ` +
                     `<span id="m" data-plaudit-count="${host.origin}${encodedPath}">…</span></p>` +
                     `<script src="${plaudit.url}/count.js" async></script>`),
    });
    const { context, page, violations } = await newPage();
    await page.goto(`${host.origin}/blog/elsewhere`);
    const w = page.locator('#plaudit');
    await w.getByText('No comments yet').waitFor();
    await widgetSignUp(w, 'gina41', 'gina-password');
    await widgetPost(w, 'Relative and Unicode');
    const g = await api(plaudit.url, 'GET', `/api/v1/pages?url=${encodeURIComponent(host.origin + encodedPath)}`);
    assert.equal(g.status, 200);
    assert.equal(g.json.url, host.origin + encodedPath);
    assert.equal(g.json.commentCount, 1);
    // The raw text, as an attribute holds it, names the same thread (server side, #15).
    const raw = await api(plaudit.url, 'GET', `/api/v1/pages?url=${encodeURIComponent(host.origin + '/blog/评论')}`);
    assert.equal(raw.json.articleId, g.json.articleId);
    await page.reload();
    await eventually(async () => (await page.locator('#n').innerText()) === '1'
                     && (await page.locator('#m').innerText()) === '1', 10000, 'both badges');
    assert.deepEqual(violations, []);
    await context.close();
  });
});
