// Ways in without a Plaudit password (API.md "Guests and sign-in from elsewhere"), in Chromium
// against a real plauditd started with `--guests on` and `--sso` for a host site on another
// origin (http://localhost:P2; plauditd on http://127.0.0.1:P1), under the host's strict CSP:
// a guest comments from the widget, edits it with the token the browser kept, and is marked as
// a guest; a host page that signed its reader in hands the widget a token (data-sso-token) and
// the reader comments as that account; an empty token signs the widget out again; a reader
// signs in through a real OpenID provider's login page (npm's oidc-provider, tests/oidc) in the
// popup the widget opens, and comments.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { api, eventually, hostPage, humanPause, launchBrowser, root, signIn, snippet, startHostServer,
         startPlauditd } from './harness.mjs';

const secret = 'host-site-secret-for-the-browser-test-0123456789';

// What a host site's server does (README "Site sign-in"): an HS256 token for its reader.
function ssoToken(iss, sub, name, email) {
  const b64 = (s) => Buffer.from(s).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const head = b64(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const body = b64(JSON.stringify({ iss, sub, name, email, jti: randomUUID(), iat: now, exp: now + 300 }));
  const sig = createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${sig}`;
}

// The test OpenID provider (tests/oidc/provider.mjs) on a free loopback port.
async function startProvider() {
  const child = spawn(process.execPath, [join(root, 'tests/oidc/provider.mjs'), '--port', '0'],
                      { stdio: ['ignore', 'pipe', 'pipe'] });
  const issuer = await new Promise((ok, fail) => {
    let log = '';
    const timer = setTimeout(() => fail(new Error('provider did not start:\n' + log)), 20000);
    const onData = (d) => {
      log += d;
      const m = /listening (\S+)/.exec(log);
      if (m) { clearTimeout(timer); ok(m[1]); }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
  });
  return { issuer, stop: () => { child.kill(); } };
}

describe('guests and site sign-in', () => {
  let plaudit, host, browser, admin, provider;

  before(async () => {
    host = await startHostServer();
    provider = await startProvider();
    plaudit = await startPlauditd(['--sites', host.origin, '--rate-limits', 'off', '--guests', 'on',
                                   '--sso', `${host.origin}=${secret}`,
                                   '--oidc', `idp=${provider.issuer},widget-client,widget-secret`]);
    // The provider learns plauditd's redirect URI now that plauditd listens.
    const reg = await fetch(`${provider.issuer}/__test/clients`, {
      method: 'PUT',
      body: JSON.stringify({ client_id: 'widget-client', client_secret: 'widget-secret',
                             redirect_uris: [`${plaudit.url}/api/v1/auth/idp/callback`] }),
    });
    assert.equal(reg.status, 204);
    browser = await launchBrowser();
    admin = await signIn(plaudit.url, 'admin', 'admin-password');
  });

  after(async () => {
    await browser?.close();
    await plaudit?.stop();
    await host?.stop();
    provider?.stop();
  });

  const csp = () => `default-src 'self'; script-src 'self' ${plaudit.url}; connect-src ${plaudit.url}; ` +
                    `style-src 'self'; img-src 'self'; base-uri 'none'`;

  async function open(path) {
    const context = await browser.browser.newContext();
    context.setDefaultTimeout(10000);
    const page = await context.newPage();
    const problems = [];
    page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
    page.on('pageerror', (e) => problems.push(String(e)));
    await page.goto(host.origin + path);
    return { context, page, w: page.locator('#plaudit'), problems };
  }

  it('a guest comments on another origin, edits with the kept token, and is marked as a guest', async () => {
    const url = `${host.origin}/guest-post`;
    host.pages.set('/guest-post', { csp: csp(), html: hostPage(snippet(plaudit.url, { url })) });
    const { context, page, w, problems } = await open('/guest-post');
    await w.getByText('Comment as a guest, or sign in to like.').waitFor();
    await w.getByLabel('Your name').fill('Wanda Wanderer');
    await w.getByLabel('E-mail (optional, never shown)').fill('wanda@mail.example');
    await w.getByLabel('Write a comment').fill('Passing by, nice post');
    await humanPause(page);
    await w.getByRole('button', { name: 'Post comment' }).click();
    const mine = w.locator('li.c', { hasText: 'Passing by, nice post' });
    await mine.getByText('guest', { exact: true }).waitFor();
    assert.equal(await mine.locator('.name').innerText(), 'Wanda Wanderer');

    // Readers get the name, never the e-mail.
    const list = await api(plaudit.url, 'GET', `/api/v1/pages/comments?url=${encodeURIComponent(url)}`);
    assert.equal(list.status, 200);
    assert.deepEqual(list.json.items[0].author, { id: null, displayName: 'Wanda Wanderer', guest: true });
    assert.ok(!JSON.stringify(list.json).includes('wanda@mail.example'));

    // After a reload the browser still holds the edit token: the guest edits their comment.
    await page.reload();
    const again = w.locator('li.c', { hasText: 'Passing by, nice post' });
    await again.getByRole('button', { name: 'Edit' }).click();
    await again.getByLabel('Edit your comment').fill('Passing by, great post');
    await again.getByRole('button', { name: 'Save' }).click();
    await w.locator('li.c', { hasText: 'Passing by, great post' }).waitFor();
    const id = list.json.items[0].id;
    await eventually(async () => (await api(plaudit.url, 'GET', `/api/v1/comments/${id}`)).json.body === 'Passing by, great post');
    // The name form is filled with what this browser used last.
    assert.equal(await w.getByLabel('Your name').inputValue(), 'Wanda Wanderer');
    // Guests cannot like: the widget asks them to sign in instead.
    await w.locator('li.c', { hasText: 'Passing by, great post' }).locator('article .like').click();
    await w.locator('form.auth-form').waitFor();

    // Another browser (no token) may not edit it.
    const other = await open('/guest-post');
    await other.w.locator('li.c', { hasText: 'Passing by, great post' }).waitFor();
    assert.equal(await other.w.locator('li.c', { hasText: 'Passing by, great post' }).getByRole('button', { name: 'Edit' }).count(), 0);
    assert.deepEqual(problems, []);
    assert.deepEqual(other.problems, []);
    await other.context.close();
    await context.close();
  });

  it('a host page that signed its reader in signs the widget in (data-sso-token), and out again', async () => {
    const url = `${host.origin}/members`;
    // The host renders a fresh token on each page view (a token is good once).
    const signedIn = () => hostPage(snippet(plaudit.url, {
      url, 'sso-token': ssoToken(host.origin, 'member-7', 'Ada from the Host', 'ada@host.example') }));
    host.pages.set('/members', { csp: csp(), html: signedIn() });
    const { context, page, w, problems } = await open('/members');
    await w.getByText('Signed in as Ada from the Host').waitFor();
    await w.getByLabel('Write a comment').fill('A member speaks');
    await humanPause(page);
    await w.getByRole('button', { name: 'Post comment' }).click();
    await w.locator('li.c', { hasText: 'A member speaks' }).waitFor();
    const list = await api(plaudit.url, 'GET', `/api/v1/pages/comments?url=${encodeURIComponent(url)}`);
    const author = list.json.items[0].author;
    assert.equal(author.displayName, 'Ada from the Host');
    assert.match(author.username, /^sso-[a-z2-9]{10}$/);
    // The same account as a moderator sees it: a user like any other.
    const user = await api(plaudit.url, 'GET', `/api/v1/users/${author.id}`, { token: admin.token });
    assert.equal(user.status, 200);

    // The next page view carries a new token for the same reader: the widget keeps its session.
    host.pages.set('/members', { csp: csp(), html: signedIn() });
    await page.reload();
    await w.getByText('Signed in as Ada from the Host').waitFor();

    // The host signed its reader out: an empty token signs the widget out too.
    host.pages.set('/members', { csp: csp(), html: hostPage(snippet(plaudit.url, { url, 'sso-token': '' })) });
    await page.reload();
    await w.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    assert.equal(await w.getByText('Signed in as').count(), 0);
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('a reader signs in through the OpenID provider\'s own login page in a popup, and comments', async () => {
    const url = `${host.origin}/oidc-post`;
    host.pages.set('/oidc-post', { csp: csp(), html: hostPage(snippet(plaudit.url, { url })) });
    const { context, page, w, problems } = await open('/oidc-post');
    const popupOpened = context.waitForEvent('page');
    await w.getByRole('button', { name: 'Sign in with Idp' }).click();
    const popup = await popupOpened;
    // The provider's pages: login (any password), then consent.
    await popup.locator('input[name=login]').fill('ada');
    await popup.locator('input[name=password]').fill('any-password');
    await popup.getByRole('button', { name: 'Sign-in' }).click();
    await popup.getByRole('button', { name: 'Continue' }).click();
    // plauditd's callback hands the session to the widget and closes the popup.
    await w.getByText('Signed in as Reader ada').waitFor();
    await eventually(() => popup.isClosed(), 10000, 'the popup to close');
    await w.getByLabel('Write a comment').fill('Signed in elsewhere');
    await humanPause(page);
    await w.getByRole('button', { name: 'Post comment' }).click();
    await w.locator('li.c', { hasText: 'Signed in elsewhere' }).waitFor();
    const list = await api(plaudit.url, 'GET', `/api/v1/pages/comments?url=${encodeURIComponent(url)}`);
    assert.equal(list.json.items[0].author.displayName, 'Reader ada');
    assert.match(list.json.items[0].author.username, /^idp-/);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
