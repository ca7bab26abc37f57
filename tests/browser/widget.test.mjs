// The widget against a real plauditd, on one of plauditd's own articles (data-article), with
// the host page on plauditd's origin. Runs on any branch: it needs no page threads or CORS
// (pages.test.mjs covers the cross-origin embedding).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, eventually, hostPage, humanPause, launchBrowser, newUser, screenshot, signIn, snippet, startPlauditd,
         widgetSignUp } from './harness.mjs';

describe('widget on an article', () => {
  let plaudit, browser, admin, bob, carol, articleId;
  const seeded = [];

  before(async () => {
    plaudit = await startPlauditd(['--rate-limits', 'off']);
    browser = await launchBrowser();
    admin = await signIn(plaudit.url, 'admin', 'admin-password');
    const a = await api(plaudit.url, 'POST', '/api/v1/articles', {
      token: admin.token, body: { title: 'Widget test', content: '<p>Hi</p>', status: 'published' } });
    assert.equal(a.status, 201);
    articleId = a.json.id;
    bob = await newUser(plaudit.url, 'bob', 'Bob');
    carol = await newUser(plaudit.url, 'carol', 'Carol');
    // 24 comments by Bob: more than one page (20), so "load more" has work.
    for (let i = 1; i <= 24; i++) {
      const c = await api(plaudit.url, 'POST', `/api/v1/articles/${articleId}/comments`,
                          { token: bob.token, body: { body: `Seed comment ${i}` } });
      assert.equal(c.status, 201);
      seeded.push(c.json);
    }
    // The newest has a reply by Carol; Seed comment 3 gets a like, so "hot" puts it first.
    const r = await api(plaudit.url, 'POST', `/api/v1/articles/${articleId}/comments`,
                        { token: carol.token, body: { body: 'Carol replies', parentId: seeded[23].id } });
    assert.equal(r.status, 201);
    // Seed comment 23 has five replies: three come inline, two behind "more replies".
    for (let i = 1; i <= 5; i++) {
      const x = await api(plaudit.url, 'POST', `/api/v1/articles/${articleId}/comments`,
                          { token: carol.token, body: { body: `Thread reply ${i}`, parentId: seeded[22].id } });
      assert.equal(x.status, 201);
    }
    const l = await api(plaudit.url, 'PUT', `/api/v1/comments/${seeded[2].id}/like`, { token: carol.token });
    assert.equal(l.status, 200);
  });

  after(async () => {
    await browser?.close();
    await plaudit?.stop();
  });

  // `session`: a signed-in reader, put where the widget keeps it.
  async function open(attrs = {}, viewport = { width: 800, height: 900 }, session = null, scheme = 'light') {
    const context = await browser.browser.newContext({ viewport, colorScheme: scheme });
    context.setDefaultTimeout(10000);
    if (session) {
      await context.addInitScript(([k, v]) => localStorage.setItem(k, v), ['plaudit:session:' + plaudit.url, JSON.stringify(session)]);
    }
    const url = `${plaudit.url}/__test/host.html`;
    const html = hostPage('<h1>An article</h1>' + snippet(plaudit.url, { article: articleId, ...attrs }));
    await context.route(url, (route) => route.fulfill({ contentType: 'text/html; charset=utf-8', body: html }));
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e));
    await page.goto(url);
    const w = page.locator('#plaudit');
    await w.locator('li.c').first().waitFor();
    return { context, page, w, errors };
  }

  const bodies = (w) => w.locator('ol.list > li.c > article .body').allInnerTexts();

  it('serves embed.js and count.js: short cache, strong ETag, 304, gzip, immutable hashed copies', async () => {
    for (const name of ['embed.js', 'count.js']) {
      const r = await fetch(`${plaudit.url}/${name}`, { headers: { 'Accept-Encoding': 'identity' } });
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('content-type'), 'text/javascript; charset=utf-8');
      assert.equal(r.headers.get('cache-control'), 'public, max-age=300');
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(r.headers.get('content-encoding'), null);
      const etag = r.headers.get('etag');
      assert.match(etag, /^"[0-9a-f]{16}"$/);
      const body = await r.text();
      // A client that takes gzip gets the build's gzip -9 bytes (fetch unpacks them).
      const gz = await fetch(`${plaudit.url}/${name}`, { headers: { 'Accept-Encoding': 'gzip' } });
      assert.equal(gz.headers.get('content-encoding'), 'gzip');
      assert.equal(gz.headers.get('vary'), 'Accept-Encoding');
      assert.equal(gz.headers.get('etag'), etag.slice(0, -1) + '.gz"');
      assert.equal(await gz.text(), body);
      for (const tag of [etag, gz.headers.get('etag')]) {
        const again = await fetch(`${plaudit.url}/${name}`, { headers: { 'If-None-Match': tag } });
        assert.equal(again.status, 304);
        assert.equal(await again.text(), '');
      }
      const hashed = await fetch(`${plaudit.url}/assets/${name.replace('.js', '')}.${etag.slice(1, -1)}.js`);
      assert.equal(hashed.status, 200);
      assert.equal(hashed.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.equal(await hashed.text(), body);
    }
    assert.equal((await fetch(`${plaudit.url}/assets/embed.0000000000000000.js`)).status, 404);
    assert.equal((await fetch(`${plaudit.url}/embed.js.gz`)).status, 404);
  });

  it('walks a reader through sign-up, comments, replies, likes, sorting, paging, edit and delete', async () => {
    const { context, page, w, errors } = await open();
    // First page: 20 of 24, newest first, with the inline reply.
    assert.equal((await bodies(w)).length, 20);
    assert.equal((await bodies(w))[0], 'Seed comment 24');
    await w.getByText('Carol replies').waitFor();
    await w.getByRole('heading', { name: '30 comments' }).waitFor();

    // More replies: 3 inline, then the other 2.
    const seed23 = w.locator('ol.list > li.c', { hasText: 'Seed comment 23' });
    assert.equal(await seed23.locator('li.reply').count(), 3);
    await seed23.getByRole('button', { name: 'Show 2 more replies' }).click();
    await seed23.locator('li.reply', { hasText: 'Thread reply 5' }).waitFor();
    assert.deepEqual(await seed23.locator('li.reply .body').allInnerTexts(),
                     ['Thread reply 1', 'Thread reply 2', 'Thread reply 3', 'Thread reply 4', 'Thread reply 5']);
    assert.ok(await seed23.getByRole('button', { name: /more replies/ }).isHidden());

    // Load more.
    await w.getByRole('button', { name: 'Load more comments' }).click();
    await eventually(async () => (await bodies(w)).length === 24, 10000, '24 comments');
    assert.ok(await w.getByRole('button', { name: 'Load more comments' }).isHidden());
    // The focus moved to the first comment loaded, not lost with the vanished button.
    assert.equal(await page.evaluate(() => document.querySelector('#plaudit').shadowRoot.activeElement?.textContent), 'Bob');

    // Sign up inside the widget (signs in too).
    await widgetSignUp(w, 'alice', 'alice-password', 'Alice');
    await w.getByRole('status').filter({ hasText: 'Welcome, Alice!' }).waitFor();

    // Comment: appears first (newest first), the count moves.
    await w.getByLabel('Write a comment').fill('Hello from Alice');
    await humanPause(page);
    await w.getByRole('button', { name: 'Post comment' }).click();
    await eventually(async () => (await bodies(w))[0] === 'Hello from Alice', 10000, 'new comment first');
    await w.getByRole('heading', { name: '31 comments' }).waitFor();

    // Reply to a reply: filed under the top-level comment, shown as "@Carol".
    const carolReply = w.locator('li.reply', { hasText: 'Carol replies' });
    await carolReply.getByRole('button', { name: 'Reply' }).click();
    await carolReply.getByLabel('Write a reply').fill('Alice answers Carol');
    await humanPause(page);
    await carolReply.getByRole('button', { name: 'Post reply' }).click();
    const answer = w.locator('li.reply', { hasText: 'Alice answers Carol' });
    await answer.waitFor();
    assert.equal(await answer.locator('.to').innerText(), '@Carol');
    const top = w.locator('ol.list > li.c', { hasText: 'Seed comment 24' });
    assert.equal(await top.locator('li.reply').count(), 2);

    // A reply under a thread whose older replies are not loaded yet: once they are, it is last.
    const seed23again = w.locator('ol.list > li.c', { hasText: 'Seed comment 23' });
    await seed23again.locator('article').first().getByRole('button', { name: 'Reply' }).click();
    await seed23again.getByLabel('Write a reply').fill('Alice joins late');
    await humanPause(page);
    await seed23again.getByRole('button', { name: 'Post reply' }).click();
    await seed23again.locator('li.reply', { hasText: 'Alice joins late' }).waitFor();
    await seed23again.getByRole('button', { name: 'Show 2 more replies' }).click();
    await seed23again.locator('li.reply', { hasText: 'Thread reply 5' }).waitFor();
    assert.deepEqual(await seed23again.locator('li.reply .body').allInnerTexts(),
                     ['Thread reply 1', 'Thread reply 2', 'Thread reply 3', 'Thread reply 4', 'Thread reply 5',
                      'Alice joins late']);

    // Like and unlike a comment: the count and aria-pressed move; the server agrees.
    const seed5 = w.locator('ol.list > li.c', { hasText: 'Seed comment 5' }).locator('article .like').first();
    assert.equal(await seed5.getAttribute('aria-pressed'), 'false');
    await seed5.click();
    await eventually(async () => (await seed5.getAttribute('aria-pressed')) === 'true' &&
                                 (await seed5.innerText()).includes('1'), 10000, 'liked');
    await eventually(async () => (await api(plaudit.url, 'GET', `/api/v1/comments/${seeded[4].id}`)).json.likeCount === 1);
    await seed5.click();
    await eventually(async () => (await seed5.getAttribute('aria-pressed')) === 'false' &&
                                 (await seed5.innerText()).includes('0'), 10000, 'unliked');

    // The article's own like.
    const pageLike = w.locator('.page-like');
    await pageLike.click();
    await eventually(async () => (await pageLike.getAttribute('aria-pressed')) === 'true', 10000, 'page liked');
    await eventually(async () => (await pageLike.innerText()).includes('1'), 10000, 'page like count');

    // Hot: the liked Seed comment 3 comes first.
    await w.getByRole('button', { name: 'Popular' }).click();
    await eventually(async () => (await bodies(w))[0] === 'Seed comment 3', 10000, 'hot order');
    assert.equal(await w.getByRole('button', { name: 'Popular' }).getAttribute('aria-pressed'), 'true');
    await w.getByRole('button', { name: 'Newest' }).click();
    await eventually(async () => (await bodies(w))[0] === 'Hello from Alice', 10000, 'new order');

    // Edit within the window.
    const mineId = await w.locator('ol.list > li.c', { hasText: 'Hello from Alice' }).first().getAttribute('data-id');
    const mine = w.locator(`li.c[data-id="${mineId}"]`);
    await mine.locator('article .actions').getByRole('button', { name: 'Edit' }).click();
    await mine.getByLabel('Edit your comment').fill('Hello again from Alice');
    await mine.getByRole('button', { name: 'Save' }).click();
    await mine.locator('article .body', { hasText: 'Hello again from Alice' }).waitFor();
    await mine.getByText('(edited)').first().waitFor();

    // Delete own reply, then own comment.
    await answer.getByRole('button', { name: 'Delete' }).click();
    await answer.getByRole('button', { name: 'Delete for good?' }).click();
    await answer.waitFor({ state: 'detached' });
    const edited = mine;
    await edited.locator('article .actions').getByRole('button', { name: 'Delete' }).click();
    await edited.getByRole('button', { name: 'Delete for good?' }).click();
    await edited.waitFor({ state: 'detached' });
    await w.getByRole('heading', { name: '31 comments' }).waitFor();

    // Sign out: the composer goes, sign-in comes back; the token no longer works.
    const token = await page.evaluate((o) => JSON.parse(localStorage.getItem('plaudit:session:' + o)).token, plaudit.url);
    await w.getByRole('button', { name: 'Sign out' }).click();
    await w.getByRole('button', { name: 'Sign in' }).waitFor();
    assert.equal(await w.getByLabel('Write a comment').count(), 0);
    assert.equal((await api(plaudit.url, 'GET', '/api/v1/users/me', { token })).status, 401);

    // Sign in again: a wrong password is told as such, the right one signs in.
    await w.getByRole('button', { name: 'Sign in' }).click();
    await w.getByLabel('Username').fill('alice');
    await w.getByLabel('Password').fill('not-her-password');
    await w.locator('form.auth-form').getByRole('button', { name: 'Sign in' }).click();
    await w.getByRole('status').filter({ hasText: 'Wrong username or password.' }).waitFor();
    await w.getByLabel('Password').fill('alice-password');
    await w.locator('form.auth-form').getByRole('button', { name: 'Sign in' }).click();
    await w.getByText('Signed in as Alice').waitFor();
    // Focus moves to the comment box.
    await eventually(() => w.getByLabel('Write a comment').evaluate((el) => el === el.getRootNode().activeElement), 10000, 'focus');
    await w.getByRole('button', { name: 'Sign out' }).click();
    await w.getByRole('button', { name: 'Sign in' }).waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('renders dark, in Chinese, and at 360 px without horizontal scrolling', async () => {
    {
      const { context, page } = await open({ theme: 'light' }, undefined, carol);
      await screenshot(page, 'widget-light.png');
      await context.close();
    }
    {
      const { context, page, w } = await open({ theme: 'dark' }, undefined, carol);
      const bg = await w.locator('section.thread').evaluate((el) => getComputedStyle(el).backgroundColor);
      assert.equal(bg, 'rgb(13, 17, 23)');
      await screenshot(page, 'widget-dark.png');
      await context.close();
    }
    {
      // data-theme="auto" (the default) follows prefers-color-scheme.
      const { context, w } = await open({}, undefined, null, 'dark');
      const bg = await w.locator('section.thread').evaluate((el) => getComputedStyle(el).backgroundColor);
      assert.equal(bg, 'rgb(13, 17, 23)');
      await context.close();
    }
    for (const lang of ['en', 'zh-CN']) {
      const { context, page, w } = await open({ lang }, { width: 360, height: 740 }, lang === 'en' ? carol : null);
      await w.getByRole('button', { name: lang === 'en' ? 'Popular' : '最热' }).waitFor();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `page scrolls sideways by ${overflow}px (${lang})`);
      // (The test machine has no CJK fonts: the picture is the English one.)
      if (lang === 'en') await screenshot(page, 'widget-360.png');
      else await w.getByRole('button', { name: '加载更多评论' }).waitFor();
      await context.close();
    }
  });

  it('is styled and works under a host CSP without unsafe-inline styles', async () => {
    const context = await browser.browser.newContext();
    const url = `${plaudit.url}/__test/csp.html`;
    await context.route(url, (route) => route.fulfill({
      contentType: 'text/html; charset=utf-8',
      headers: { 'Content-Security-Policy': "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; base-uri 'none'" },
      body: hostPage(snippet(plaudit.url, { article: articleId })),
    }));
    const page = await context.newPage();
    const problems = [];
    page.on('console', (m) => { if (/Content Security Policy|Refused/i.test(m.text())) problems.push(m.text()); });
    page.on('pageerror', (e) => problems.push(String(e)));
    await page.goto(url);
    const w = page.locator('#plaudit');
    await w.locator('li.c').first().waitFor();
    const pressed = w.locator('.sort button[aria-pressed="true"]');
    assert.equal(await pressed.evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(37, 99, 235)');
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('keeps hostile comment bodies as text and makes only http(s) links clickable', async () => {
    const body = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script> see https://example.com/a?b=1. ' +
                 'and javascript:window.__xss=3 <a href="javascript:window.__xss=4">x</a>';
    const c = await api(plaudit.url, 'POST', `/api/v1/articles/${articleId}/comments`, { token: bob.token, body: { body } });
    assert.equal(c.status, 201);
    const { context, page, w } = await open();
    const item = w.locator('ol.list > li.c', { hasText: 'onerror' });
    await item.waitFor();
    assert.equal(await item.locator('article .body').innerText(), body);
    assert.equal(await w.locator('img, script, iframe').count(), 0);
    const links = item.locator('article .body a');
    assert.equal(await links.count(), 1);
    assert.equal(await links.getAttribute('href'), 'https://example.com/a?b=1');
    assert.equal(await links.getAttribute('rel'), 'nofollow noopener noreferrer ugc');
    assert.equal(await links.getAttribute('target'), '_blank');
    assert.equal(await page.evaluate(() => window.__xss), undefined);
    await context.close();
  });

  it('shows Markdown as the server rendered it, marks mentions, previews, and runs no Markdown vector', async () => {
    const body = '**Strong** _words_ and `a < b` by @bob\n\n> a quote\n\n' +
                 '[fine](https://ok.example/) [bad](javascript:window.__xss=5) <javascript:window.__xss=6> ' +
                 '![pic](https://img.example/x.png) ![evil](javascript:window.__xss=7) ' +
                 '[x](https://ok.example/" onmouseover="window.__xss=8) <b onclick="window.__xss=9">b</b> ' +
                 '&#60;script&#62;window.__xss=10&#60;/script&#62;';
    const c = await api(plaudit.url, 'POST', `/api/v1/articles/${articleId}/comments`, { token: carol.token, body: { body } });
    assert.equal(c.status, 201);
    const { context, page, w, errors } = await open({}, undefined, carol);
    const item = w.locator('ol.list > li.c', { hasText: 'a quote' });
    await item.waitFor();
    const shown = item.locator('article .body').first();
    assert.equal(await shown.locator('strong').innerText(), 'Strong');
    assert.equal(await shown.locator('em').innerText(), 'words');
    assert.equal(await shown.locator('code').innerText(), 'a < b');
    assert.equal(await shown.locator('blockquote').innerText(), 'a quote');
    // Bob wrote in this thread: a mention.
    assert.equal(await shown.locator('.mention').innerText(), '@bob');
    // Links only to https://ok.example/ (the fine one, and the bare URL of the broken one),
    // each a reader's: ugc, new tab; no image (off by default); no handler.
    const links = shown.locator('a');
    assert.equal(await links.first().getAttribute('href'), 'https://ok.example/');
    for (const a of await links.all()) {
      assert.match(await a.getAttribute('href'), /^https:\/\/ok\.example\//);
      assert.equal(await a.getAttribute('rel'), 'nofollow noopener noreferrer ugc');
      assert.equal(await a.getAttribute('target'), '_blank');
    }
    assert.equal(await links.count(), 2);
    assert.equal(await shown.locator('img, script, iframe, [onclick], [onmouseover]').count(), 0);
    await shown.hover();  // an onmouseover that got through would run now
    assert.equal(await page.evaluate(() => window.__xss), undefined);

    // Preview: the server's rendering in place of the box, and back to writing.
    const box = w.getByLabel('Write a comment');
    await box.fill('*soft* words for @bob');
    await w.getByRole('button', { name: 'Preview', exact: true }).click();
    const preview = w.locator('form.compose .preview');
    await preview.locator('em', { hasText: 'soft' }).waitFor();
    assert.equal(await preview.locator('.mention').count(), 0);  // a preview knows no thread
    assert.ok(await box.isHidden());
    await w.getByRole('button', { name: 'Write', exact: true }).click();
    assert.ok(await box.isVisible());
    assert.equal(await box.inputValue(), '*soft* words for @bob');
    assert.ok(await preview.isHidden());
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('updates itself: a comment posted elsewhere waits behind "1 new comment", edits, likes and deletions land in place', async () => {
    const { context, page, w, errors } = await open();
    await w.locator('section.thread[data-live="open"]').waitFor();
    const bar = w.locator('button.new-comments');
    assert.ok(await bar.isHidden(), 'no "new comments" bar before anything new');
    // Posted by someone else (the API, as another browser would): the list does not move.
    const before = await bodies(w);
    const c = await api(plaudit.url, 'POST', `/api/v1/articles/${articleId}/comments`,
                        { token: carol.token, body: { body: 'Live from **Carol**' } });
    assert.equal(c.status, 201);
    const banner = w.getByRole('button', { name: '1 new comment' });
    await banner.waitFor();
    assert.deepEqual(await bodies(w), before);
    await banner.click();
    const item = w.locator(`ol.list > li.c[data-id="${c.json.id}"]`);
    await item.waitFor();
    assert.equal(await item.locator('article .body strong').innerText(), 'Carol');
    await bar.waitFor({ state: 'hidden' });
    // An edit and a deletion made elsewhere land in place.
    const e = await api(plaudit.url, 'PATCH', `/api/v1/comments/${c.json.id}`,
                        { token: carol.token, body: { body: 'Live, edited' } });
    assert.equal(e.status, 200);
    await item.locator('article .body', { hasText: 'Live, edited' }).waitFor();
    // Likes made elsewhere: the comment's and the page's counts change in place.
    const pageCount = Number(await w.locator('button.page-like .n').innerText());
    const cl = await api(plaudit.url, 'PUT', `/api/v1/comments/${c.json.id}/like`, { token: carol.token });
    assert.equal(cl.status, 200);
    const erin = await newUser(plaudit.url, 'erin', 'Erin');  // has liked nothing yet
    const al = await api(plaudit.url, 'PUT', `/api/v1/articles/${articleId}/like`, { token: erin.token });
    assert.equal(al.status, 200);
    assert.equal(al.json.likeCount, pageCount + 1);
    await eventually(async () => (await item.locator('article button.like .n').innerText()) === '1',
                     10000, 'the comment like count in place');
    await eventually(async () => (await w.locator('button.page-like .n').innerText()) === String(pageCount + 1),
                     10000, 'the page like count in place');
    const d = await api(plaudit.url, 'DELETE', `/api/v1/comments/${c.json.id}`, { token: carol.token });
    assert.equal(d.status, 204);
    await item.waitFor({ state: 'detached' });
    // Hidden: no stream; visible again: it follows again.
    assert.deepEqual(errors, []);
    await context.close();
    void page;
  });

  it('is keyboard-usable: Tab reaches the sort switch, Enter sorts, messages are announced', async () => {
    const { context, page, w } = await open();
    await w.getByRole('button', { name: 'Oldest' }).focus();
    await page.keyboard.press('Enter');
    await eventually(async () => (await bodies(w))[0] === 'Seed comment 1', 10000, 'old order');
    assert.equal(await w.locator('[aria-live="polite"]').count(), 1);
    // Two sorts in a row, the second before the first list arrives: the last one wins.
    await w.getByRole('button', { name: 'Newest' }).click();
    await w.getByRole('button', { name: 'Popular' }).click();
    await eventually(async () => (await bodies(w))[0] === 'Seed comment 3' && (await bodies(w)).length === 20, 10000, 'hot order');
    // A like while signed out asks to sign in, and focuses the username field.
    await w.locator('ol.list > li.c').first().locator('article .like').click();
    await w.getByRole('status').filter({ hasText: 'Please sign in' }).waitFor();
    assert.equal(await w.getByLabel('Username').evaluate((el) => el === el.getRootNode().activeElement), true);
    await context.close();
  });
});

describe('widget under a write rate limit', () => {
  let plaudit, browser;
  before(async () => {
    plaudit = await startPlauditd(['--limit-writes-user', '2/1m']);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await plaudit?.stop();
  });

  it('says politely when to try again (429 with Retry-After)', async () => {
    const admin = await signIn(plaudit.url, 'admin', 'admin-password');
    const a = await api(plaudit.url, 'POST', '/api/v1/articles', {
      token: admin.token, body: { title: 'Limits', content: '<p>x</p>', status: 'published' } });
    const dave = await newUser(plaudit.url, 'dave', 'Dave');
    const context = await browser.browser.newContext();
    // Dave is signed in already: his session is where the widget keeps it.
    await context.addInitScript(([key, value]) => localStorage.setItem(key, value),
                                ['plaudit:session:' + plaudit.url, JSON.stringify(dave)]);
    const url = `${plaudit.url}/__test/limits.html`;
    await context.route(url, (r) => r.fulfill({ contentType: 'text/html', body: hostPage(snippet(plaudit.url, { article: a.json.id })) }));
    const page = await context.newPage();
    await page.goto(url);
    const w = page.locator('#plaudit');
    await w.getByText('Signed in as Dave').waitFor();
    for (let i = 1; i <= 3; i++) {
      await w.getByLabel('Write a comment').fill(`Quick comment ${i}`);
      await w.getByRole('button', { name: 'Post comment' }).click();
      if (i < 3) await w.locator('li.c', { hasText: `Quick comment ${i}` }).waitFor();
    }
    const status = w.getByRole('status');
    await eventually(async () => /try again in \d+ seconds/.test(await status.innerText()), 10000, 'the 429 message');
    assert.equal(await w.locator('li.c').count(), 2);
    // The text stays in the box, so nothing the reader wrote is lost.
    assert.equal(await w.getByLabel('Write a comment').inputValue(), 'Quick comment 3');
    await context.close();
  });
});
