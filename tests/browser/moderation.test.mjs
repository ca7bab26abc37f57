// Moderation in the browser against a real plauditd started with `--moderation all` (every
// reader's comment waits for a moderator): the widget's "awaiting approval", report and banned
// messages on an article page, and the moderation console at /admin (approve by click, bulk spam
// with "select all", the header link, Chinese). Readers are signed in by the session cookie
// the API sets, so each test opens its pages already signed in.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { api, eventually, humanPause, launchBrowser, newUser, root, signIn, startPlauditd } from './harness.mjs';

// The users list (GET /api/v1/users) arrives from main; a tree without it skips that test.
const missingUsers = /V::get,\s*"\/api\/v1\/users",/.test(readFileSync(join(root, 'src/api/routes.cpp'), 'utf8'))
  ? null : 'the users list (GET /api/v1/users) is not in this tree';

describe('moderation', () => {
  let plaudit, browser, admin, mona, rhea, articleId;
  const problems = [];  // CSP violations and uncaught errors on any page

  before(async () => {
    plaudit = await startPlauditd(['--rate-limits', 'off', '--moderation', 'all']);
    browser = await launchBrowser();
    admin = await signIn(plaudit.url, 'admin', 'admin-password');
    const a = await api(plaudit.url, 'POST', '/api/v1/articles', {
      token: admin.token, body: { title: 'Moderated', content: '<p>Say something.</p>', status: 'published' } });
    assert.equal(a.status, 201);
    articleId = a.json.id;
    mona = await newUser(plaudit.url, 'mona', 'Mona Mod');
    const r = await api(plaudit.url, 'PATCH', `/api/v1/users/${mona.user.id}`, { token: admin.token, body: { role: 'moderator' } });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    mona = await signIn(plaudit.url, 'mona', mona.password);  // a session that knows the new role
    rhea = await newUser(plaudit.url, 'rhea', 'Rhea');
  });

  after(async () => {
    await browser?.close();
    await plaudit?.stop();
    assert.deepEqual(problems, []);
  });

  // A page in a fresh context, signed in as `who` (a session from the API) or anonymous.
  async function open(path, who = null, locale = 'en-US') {
    const context = await browser.browser.newContext({ locale, viewport: { width: 1100, height: 900 } });
    context.setDefaultTimeout(10000);
    if (who) await context.addCookies([{ name: 'plaudit_session', value: who.token, url: plaudit.url }]);
    const page = await context.newPage();
    page.on('console', (m) => { if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text()); });
    page.on('pageerror', (e) => problems.push(String(e)));
    await page.goto(plaudit.url + path);
    return page;
  }

  const post = (who, body) => api(plaudit.url, 'POST', `/api/v1/articles/${articleId}/comments`,
                                  { token: who.token, body: { body } });

  it('a held comment shows "awaiting approval" to its writer only, until a moderator approves it in /admin', async () => {
    const page = await open(`/articles/${articleId}`, rhea);
    const thread = page.locator('.thread-host');
    await thread.getByText('Signed in as Rhea').waitFor();
    // The honeypot is there for bots: out of the tab order and hidden from screen readers.
    const trap = thread.locator('input[name=website]');
    assert.equal(await trap.getAttribute('tabindex'), '-1');
    assert.equal(await trap.getAttribute('autocomplete'), 'off');
    assert.equal(await trap.getAttribute('aria-hidden'), 'true');
    await thread.getByLabel('Write a comment').fill('Please approve me');
    await humanPause(page);
    await thread.getByRole('button', { name: 'Post comment' }).click();
    const mine = thread.locator('li.c', { hasText: 'Please approve me' });
    await mine.getByText('Awaiting approval').waitFor();
    await thread.getByText('Your comment was sent').waitFor();

    // After a reload too: lists leave held comments out, the widget remembers its writer's (held.ts).
    await page.reload();
    await thread.locator('li.c', { hasText: 'Please approve me' }).getByText('Awaiting approval').waitFor();

    const anon = await open(`/articles/${articleId}`);
    await anon.locator('.thread-host').getByText('No comments yet').waitFor();
    assert.equal(await anon.getByText('Please approve me').count(), 0);

    const mod = await open('/admin', mona);
    const row = mod.locator('#panel-pending li.qrow', { hasText: 'Please approve me' });
    await row.waitFor();
    await row.getByText('Rhea').first().waitFor();
    await row.getByText('every comment is moderated').waitFor();  // why it was held
    // Its article, linked.
    assert.equal(await row.getByRole('link', { name: 'Moderated', exact: true }).getAttribute('href'), `/articles/${articleId}`);
    await row.getByRole('button', { name: 'Approve', exact: true }).click();
    await mod.getByRole('status').getByText('Approve: done.').waitFor();
    await row.waitFor({ state: 'detached' });

    await eventually(async () => {
      await anon.reload();
      await anon.locator('.thread-host h2').first().waitFor();
      return (await anon.locator('.thread-host li.c', { hasText: 'Please approve me' }).count()) === 1;
    }, 10000, 'the approved comment for an anonymous reader');
    // In the log, newest first: Mona approved it.
    await mod.getByRole('tab', { name: 'Log' }).click();
    await mod.locator('#panel-log tbody tr').first().getByText('Mona Mod').waitFor();
    for (const p of [page, anon, mod]) await p.context().close();
  });

  it('reports another reader\'s comment: "Reported", not on one\'s own', async () => {
    assert.equal((await post(admin, 'An admin says hi')).status, 201);  // admins are never held
    const page = await open(`/articles/${articleId}`, rhea);
    const theirs = page.locator('.thread-host li.c', { hasText: 'An admin says hi' });
    await theirs.getByRole('button', { name: 'Report' }).click();
    await theirs.getByText('Reported').waitFor();
    const own = page.locator('.thread-host li.c', { hasText: 'Please approve me' });
    await own.waitFor();
    assert.equal(await own.getByRole('button', { name: 'Report' }).count(), 0);
    await page.context().close();
  });

  it('bulk spam: "select all" and one click move the queue to the spam tab', async () => {
    const texts = ['Buy cheap 1', 'Buy cheap 2', 'Buy cheap 3'];
    for (const t of texts) assert.equal((await post(rhea, t)).status, 201);
    const mod = await open('/admin', mona);
    const pending = mod.locator('#panel-pending');
    for (const t of texts) await pending.locator('li.qrow', { hasText: t }).waitFor();
    await pending.getByLabel('Select all').check();
    await pending.getByText(/^\d+ selected$/).waitFor();
    await pending.locator('.toolbar').getByRole('button', { name: 'Spam' }).click();
    await mod.getByRole('status').getByText(/^\d+ comments: Spam\.$/).waitFor();
    await eventually(async () => (await pending.locator('li.qrow').count()) === 0, 10000, 'an empty queue');

    // Tabs by keyboard: from Pending, ArrowRight twice is Spam.
    await mod.getByRole('tab', { name: 'Pending' }).focus();
    await mod.keyboard.press('ArrowRight');
    await mod.keyboard.press('ArrowRight');
    assert.equal(await mod.getByRole('tab', { name: 'Spam' }).getAttribute('aria-selected'), 'true');
    const spam = mod.locator('#panel-spam');
    for (const t of texts) await spam.locator('li.qrow', { hasText: t }).waitFor();
    // Shortcuts: j focuses the first comment, r restores it.
    await mod.keyboard.press('j');
    await mod.keyboard.press('r');
    await mod.getByRole('status').getByText('Restore: done.').waitFor();
    await eventually(async () => (await spam.locator('li.qrow').count()) === 2, 10000, 'one restored');
    for (const t of texts) {
      assert.equal((await api(plaudit.url, 'GET', `/api/v1/articles/${articleId}/comments`)).json.items
        .filter((c) => c.body === t).length, t === 'Buy cheap 1' ? 1 : 0, t);
    }
    await mod.context().close();
  });

  it('a banned reader who posts sees that the account is suspended', async () => {
    const bert = await newUser(plaudit.url, 'bert', 'Bert');
    const b = await api(plaudit.url, 'PUT', `/api/v1/users/${bert.user.id}/ban`,
                        { token: mona.token, body: { reason: 'test' } });
    assert.equal(b.status, 200, JSON.stringify(b.json));
    const page = await open(`/articles/${articleId}`, bert);
    const thread = page.locator('.thread-host');
    await thread.getByLabel('Write a comment').fill('Let me in');
    await humanPause(page);
    await thread.getByRole('button', { name: 'Post comment' }).click();
    await thread.getByRole('status').getByText('Your account is suspended from commenting.').waitFor();
    await page.context().close();
  });

  it('the header links to /admin for moderators and admins only; others are told why not', async () => {
    for (const [who, shows] of [[admin, true], [mona, true], [rhea, false]]) {
      const page = await open('/', who);
      await page.getByText('Signed in as').waitFor();
      assert.equal(await page.locator('#top').getByRole('link', { name: 'Moderation' }).count(), shows ? 1 : 0, who.user.username);
      if (shows) {
        // Users (roles) is the admins' tab only.
        await page.locator('#top').getByRole('link', { name: 'Moderation' }).click();
        await page.getByRole('tab', { name: 'Pending' }).waitFor();
        assert.equal(await page.getByRole('tab', { name: 'Users' }).count(), who === admin ? 1 : 0);
      } else {
        await page.goto(plaudit.url + '/admin');
        await page.getByText('You are not allowed here').waitFor();
      }
      await page.context().close();
    }
    const anon = await open('/admin');
    await anon.getByRole('link', { name: 'Sign in' }).first().waitFor();
    assert.equal(await anon.getByRole('tab').count(), 0);
    await anon.context().close();
  });

  it('users tab: an admin finds a user, changes the role and bans from the console', async (t) => {
    if (missingUsers) { t.skip(missingUsers); return; }
    const ulla = await newUser(plaudit.url, 'ulla', 'Ulla');
    const page = await open('/admin?tab=users', admin);
    await page.getByLabel('Find users').fill('ull');
    await page.getByRole('button', { name: 'Find' }).click();
    const row = page.locator('#panel-users tbody tr', { hasText: '@ulla' });
    await row.waitFor();
    assert.equal(await page.locator('#panel-users tbody tr').count(), 1);
    await row.getByLabel('Role of Ulla').selectOption('author');
    await page.getByRole('status').getByText('Ulla is now author.').waitFor();
    assert.equal((await api(plaudit.url, 'GET', `/api/v1/users/${ulla.user.id}`)).json.role, 'author');
    await row.getByRole('button', { name: 'Ban Ulla' }).click();
    await row.getByLabel('Reason (optional)').fill('testing bans');
    await row.getByLabel('Duration').selectOption('day7');
    await row.getByRole('button', { name: 'Ban', exact: true }).click();
    await page.getByRole('status').getByText('Ulla is banned.').waitFor();
    await row.getByText(/^banned until /).waitFor();
    const me = await api(plaudit.url, 'GET', '/api/v1/users/me', { token: ulla.token });
    assert.equal(me.json.banned, true);
    assert.equal(me.json.banReason, 'testing bans');
    await row.getByRole('button', { name: 'Unban Ulla' }).click();
    await page.getByRole('status').getByText('Ulla may write again.').waitFor();
    await row.getByText('active').waitFor();
    await page.context().close();
  });

  it('speaks Simplified Chinese in a zh-CN browser', async () => {
    const page = await open('/admin', mona, 'zh-CN');
    await page.getByRole('tab', { name: '待审核' }).waitFor();
    await page.locator('#top').getByRole('link', { name: '审核' }).waitFor();
    await page.context().close();
  });
});
