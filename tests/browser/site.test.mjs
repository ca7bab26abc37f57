// plauditd's own blog pages (GET /, /articles/{id}, /write, /drafts, /setup, /signin, /admin) in
// Chromium against a real plauditd started as a newcomer's `make run` starts it: a fresh data
// dir and no admin. First-run setup needs the setup API (GET/POST /api/v1/setup); a tree
// without it skips that test, saying why, and bootstraps the admin instead.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { api, eventually, humanPause, launchBrowser, likeSettled, root, screenshot, signIn, startPlauditd } from './harness.mjs';

const apiDir = join(root, 'src/api');
const missingSetup = readdirSync(apiDir).some((f) => f.endsWith('.cpp') && readFileSync(join(apiDir, f), 'utf8').includes('/api/v1/setup'))
  ? null : 'the first-run setup API (/api/v1/setup) is not in this tree';

const kNoAdmin = "This site has no admin yet: open the setup link from plauditd's log.";
const kHostile = '<p>Plaudit is the interaction layer of a blog: comments, likes and views, served ' +
  'by one C++ daemon with Redis in front of SQL.</p><p>Hello <b>world</b>.</p><script>window.__pwned = 1</script>' +
  '<img src="x" onerror="window.__pwned = 2"><a href="javascript:window.__pwned = 3">link</a>' +
  '<iframe src="javascript:parent.__pwned = 4"></iframe>';

describe('the blog pages', () => {
  let plaudit, browser;
  const problems = [];  // CSP violations and uncaught errors, from every page of every test

  before(async () => {
    plaudit = await startPlauditd(['--rate-limits', 'off'], { bootstrapAdmin: !!missingSetup });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await plaudit?.stop();
  });

  async function newPage(viewport = { width: 1024, height: 800 }, locale = 'en-US') {
    const context = await browser.browser.newContext({ viewport, locale, colorScheme: 'light' });
    context.setDefaultTimeout(10000);
    const page = await context.newPage();
    // 4xx answers (anonymous /users/me, a refused token) are console errors too: keep only
    // what a broken policy or a script error would print.
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(String(e)));
    return page;
  }

  async function signInPage(page, username, password) {
    await page.goto(`${plaudit.url}/signin`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const form = page.locator('main form', { has: page.getByRole('button', { name: 'Sign in' }) });
    await form.getByLabel('Username').fill(username);
    await form.getByLabel('Password').fill(password);
    await form.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Signed in as').waitFor();
  }

  it('answers every page URL with the shell under a strict CSP; API 404s stay JSON', async () => {
    for (const path of ['/', '/articles/1', '/write', '/write?id=3', '/drafts', '/search?q=x', '/setup?token=x', '/signin', '/admin']) {
      const res = await fetch(plaudit.url + path);
      assert.equal(res.status, 200, path);
      assert.match(res.headers.get('content-type'), /^text\/html/);
      const csp = res.headers.get('content-security-policy');
      assert.match(csp, /script-src 'self'/);
      assert.doesNotMatch(csp, /unsafe-inline/);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(res.headers.get('referrer-policy'), 'strict-origin-when-cross-origin');
      const html = await res.text();
      assert.match(html, /src="\/assets\/site\.[0-9a-f]{16}\.js"/);
      assert.match(html, /href="\/assets\/site\.[0-9a-f]{16}\.css"/);
    }
    const missing = await api(plaudit.url, 'GET', '/api/v1/nothing-here');
    assert.equal(missing.status, 404);
    assert.equal(missing.json.error.code, 'not_found');
    assert.equal((await api(plaudit.url, 'GET', '/no-such-page')).json.error.code, 'not_found');
    assert.equal((await fetch(plaudit.url + '/healthz')).status, 200);
  });

  it('first run: the home page says there is no admin; setup takes only the log\'s token', async (t) => {
    if (missingSetup) { t.skip(missingSetup); return; }
    const page = await newPage();
    await page.goto(plaudit.url + '/');
    await page.getByText(kNoAdmin).waitFor();
    await page.getByText('Nothing published yet.').waitFor();

    const fill = async () => {
      await page.getByLabel('Username').fill('admin');
      await page.getByLabel('Password').fill('admin-password');
      await page.getByLabel('Display name (optional)').fill('The Admin');
      await page.getByRole('button', { name: 'Create admin' }).click();
    };
    await page.goto(`${plaudit.url}/setup?token=${'0'.repeat(64)}`);
    await fill();
    await page.getByRole('alert').getByText('That setup link is not valid').waitFor();
    assert.equal((await api(plaudit.url, 'GET', '/api/v1/setup')).json.needed, true);

    const token = /\/setup\?token=([0-9a-f]{64})/.exec(plaudit.log())?.[1];
    assert.ok(token, 'plauditd logs the setup link');
    // A username someone took meanwhile: said so, and setup is not "done".
    const taken = await api(plaudit.url, 'POST', '/api/v1/users', { body: { username: 'root', password: 'someone-else' } });
    assert.equal(taken.status, 201);
    await page.goto(`${plaudit.url}/setup?token=${token}`);
    await page.getByLabel('Username').fill('root');
    await page.getByLabel('Password').fill('admin-password');
    await page.getByLabel('Display name (optional)').fill('The Admin');
    await page.getByRole('button', { name: 'Create admin' }).click();
    await page.getByRole('alert').getByText('That username is taken.').waitFor();
    assert.equal((await api(plaudit.url, 'GET', '/api/v1/setup')).json.needed, true);
    await page.getByLabel('Username').fill('admin');
    await page.getByRole('button', { name: 'Create admin' }).click();
    await page.getByText('Signed in as The Admin').waitFor();
    assert.equal(new URL(page.url()).pathname, '/');
    await eventually(async () => !(await page.getByText(kNoAdmin).count()), 5000, 'the notice to go');
    assert.equal((await api(plaudit.url, 'GET', '/api/v1/setup')).json.needed, false);
    await page.goto(`${plaudit.url}/setup?token=${token}`);
    await page.getByText('Setup is done: this site has an admin.').waitFor();
    await page.context().close();
  });

  it('an admin writes a draft (not listed), publishes and pins it; hostile HTML stays inert', async () => {
    const page = await newPage();
    await signInPage(page, 'admin', 'admin-password');
    await page.getByRole('link', { name: 'Write' }).click();
    await page.getByLabel('Title').fill('Hello, Plaudit');
    await page.getByLabel('Body (HTML)').fill(kHostile);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Saved.').waitFor();
    const id = Number(new URL(page.url()).searchParams.get('id'));
    assert.ok(id > 0);

    await page.getByRole('link', { name: 'Articles' }).first().click();
    await page.getByRole('heading', { name: 'Articles', level: 1 }).waitFor();
    assert.equal(await page.getByText('Hello, Plaudit').count(), 0, 'a draft is not on the list');
    await page.getByRole('link', { name: 'My drafts' }).click();
    await page.getByRole('link', { name: 'Hello, Plaudit' }).click();
    await page.getByRole('heading', { name: 'Edit article' }).waitFor();
    await page.getByLabel('Published').check();
    await page.getByLabel('Pinned to the top').check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(`${plaudit.url}/articles/${id}`);
    await page.getByRole('heading', { name: 'Hello, Plaudit' }).waitFor();

    const content = page.locator('.content');
    await content.locator('b', { hasText: 'world' }).waitFor();
    assert.equal(await content.locator('script, iframe, [onerror]').count(), 0);
    assert.equal(await content.locator('a[href^="javascript"]').count(), 0);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);

    // A later article sorts below the pinned one.
    const admin = await signIn(plaudit.url, 'admin', 'admin-password');
    const later = await api(plaudit.url, 'POST', '/api/v1/articles', { token: admin.token,
      body: { title: 'A later article', content: '<p>Second.</p>', status: 'published' } });
    assert.equal(later.status, 201);
    await page.goto(plaudit.url + '/');
    const titles = page.locator('.item h2');
    await eventually(async () => (await titles.count()) === 2, 5000, 'two articles listed');
    assert.deepEqual(await titles.allInnerTexts(), ['Hello, Plaudit', 'A later article']);
    await page.locator('.item').first().getByText('Pinned').waitFor();
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    await page.context().close();
  });

  it('a reader signs up, likes and comments at 360 px; screenshots', async () => {
    const page = await newPage({ width: 360, height: 740 });
    await page.goto(plaudit.url + '/signin');
    const form = page.locator('main form', { has: page.getByRole('button', { name: 'Sign up' }) });
    await form.getByLabel('Username').fill('rita');
    await form.getByLabel('Password').fill('rita-password');
    await form.getByLabel('Display name (optional)').fill('Rita');
    await form.getByRole('button', { name: 'Sign up' }).click();
    await page.getByText('Signed in as Rita').waitFor();
    await page.getByRole('link', { name: 'Hello, Plaudit' }).click();
    await page.getByRole('heading', { name: 'Hello, Plaudit' }).waitFor();
    await page.getByText(/^\d+ views?$/).waitFor();

    const thread = page.locator('.thread-host');
    const like = thread.getByRole('button', { name: /^Like this article/ });
    await like.click();
    await likeSettled(like);
    await thread.getByLabel('Write a comment').fill('A fine first article.');
    await humanPause(page);
    await thread.getByRole('button', { name: 'Post comment' }).click();
    await thread.locator('li.c', { hasText: 'A fine first article.' }).waitFor();
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 360), 'no sideways scroll at 360 px');
    await screenshot(page, 'site-article-360.png');

    const wide = await newPage({ width: 1024, height: 720 });
    await wide.goto(`${plaudit.url}/`);
    await wide.locator('.item').nth(1).waitFor();
    await wide.getByText('1 comment', { exact: true }).waitFor();
    await screenshot(wide, 'site-list.png');
    await wide.getByRole('link', { name: 'Hello, Plaudit' }).click();
    await wide.locator('.thread-host li.c').first().waitFor();
    await screenshot(wide, 'site-article.png');
    await wide.context().close();
    await page.context().close();
  });

  it('is keyboard-usable: skip link first, links and the kind filter by Tab and Enter', async () => {
    const page = await newPage();
    await page.goto(plaudit.url + '/');
    await page.locator('.item').first().waitFor();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'main');
    await page.getByRole('link', { name: 'Posts' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${plaudit.url}/?kind=post`);
    await page.getByText('Nothing published yet.').waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'main', 'focus moves to the new page');
    await page.goBack();
    await page.locator('.item').first().waitFor();
    await page.context().close();
  });

  it('searches from the header: Chinese by two characters, matches marked, drafts never found', async () => {
    const admin = await signIn(plaudit.url, 'admin', 'admin-password');
    // The draft first: once the index has the article after it, it has taken the draft's
    // change up too, so "nothing found" below is the rule at work, not a lagging index.
    const draft = await api(plaudit.url, 'POST', '/api/v1/articles', { token: admin.token,
      body: { title: 'Xylophone draft', content: '<p>xylophone</p>' } });
    assert.equal(draft.status, 201);
    const zh = await api(plaudit.url, 'POST', '/api/v1/articles', { token: admin.token,
      body: { title: '搜索测试', content: '<p>这是一篇关于中文搜索的文章，两字也能找到。</p>', status: 'published' } });
    assert.equal(zh.status, 201);
    const page = await newPage();
    await page.goto(plaudit.url + '/');
    const box = page.getByRole('searchbox', { name: 'Search articles and posts' });
    await box.fill('两字');
    await box.press('Enter');
    await page.waitForURL(/\/search\?q=/);
    // The index takes changes up within a second or so: look again until it has.
    const result = page.locator('.results .item');
    await eventually(async () => {
      if ((await result.count()) === 1) return true;
      await page.reload();
      await page.getByRole('heading', { level: 1 }).waitFor();
      return (await result.count()) === 1;
    }, 10000, 'the article found');
    await result.getByRole('link', { name: '搜索测试' }).waitFor();
    assert.equal(await result.locator('.snippet mark').innerText(), '两字');
    assert.equal(await box.inputValue(), '两字');
    await box.fill('xylophone');
    await box.press('Enter');
    await page.getByText('Nothing found for “xylophone”.').waitFor();
    await page.context().close();
  });

  it('speaks Simplified Chinese to a zh browser', async () => {
    const page = await newPage(undefined, 'zh-CN');
    await page.goto(plaudit.url + '/');
    await page.getByRole('heading', { name: '文章', level: 1 }).waitFor();
    await page.getByRole('link', { name: '登录' }).waitFor();
    await page.getByRole('searchbox', { name: '搜索文章和帖子' }).waitFor();
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
    await page.context().close();
    assert.deepEqual(problems, []);
  });
});
