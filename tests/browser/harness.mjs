// What the browser tests share: a real plauditd (the build's binary, embedded mode, its own
// redis-server child, a fresh data dir, port 0), a tiny static server for host pages on
// another origin, Debian's Chromium through playwright-core, and polling helpers (no sleeps).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(join(root, 'web/package.json'));
const { chromium } = require('playwright-core');

export const plauditdPath = process.env.PLAUDITD || join(root, 'build/plauditd');
export const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
// PLAUDIT_SCREENSHOTS=docs/screenshots saves the widget's pictures for the README.
export const screenshotDir = process.env.PLAUDIT_SCREENSHOTS ? resolve(process.env.PLAUDIT_SCREENSHOTS) : null;

// Starts plauditd; resolves once it logs the port it listens on. `bootstrapAdmin: false`
// starts it as a newcomer's fresh data dir does: no admin (first-run setup); log() has its output.
export async function startPlauditd(args = [], { bootstrapAdmin = true } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'plaudit-browser-'));
  const admin = bootstrapAdmin ? ['--bootstrap-admin', 'admin:admin-password'] : [];
  const child = spawn(plauditdPath, ['serve', '--port', '0', '--data-dir', dir, '--password-hash', 'minimal',
                                     // every test signs readers up from 127.0.0.1
                                     '--limit-signup-address', 'off',
                                     // tests post the same words again (moderation tests turn it on)
                                     '--duplicate-window-s', '0', '--limit-new-writer', 'off',
                                     ...admin, ...args],
                      { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const port = await new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error('plauditd did not start:\n' + log)), 30000);
    const onData = (d) => {
      log += d;
      const m = /listening on http:\/\/[^\s:]+:(\d+)/.exec(log);
      if (m) { clearTimeout(timer); ok(Number(m[1])); }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => { clearTimeout(timer); fail(new Error(`plauditd exited (${code}):\n${log}`)); });
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url, port, log: () => log,
    async stop() {
      if (child.exitCode === null) { child.kill('SIGTERM'); await once(child, 'exit'); }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// Host pages, served from memory: pages.set('/post.html', {html, csp?}).
export async function startHostServer() {
  const pages = new Map();
  const server = createServer((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    // Chromium asks every origin for one; a 404 would be an error in the console checks.
    if (path === '/favicon.ico') { res.writeHead(204).end(); return; }
    const page = pages.get(path);
    if (!page) { res.writeHead(404).end('not found'); return; }
    const headers = { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' };
    if (page.csp) headers['Content-Security-Policy'] = page.csp;
    res.writeHead(200, headers).end(page.html);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = server.address().port;
  // "localhost", not 127.0.0.1: another origin than plauditd's.
  return { pages, port, origin: `http://localhost:${port}`, stop: () => new Promise((r) => server.close(r)) };
}

// playwright-core gives every launch a fresh temporary profile (user-data-dir) of its own.
export async function launchBrowser() {
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync'],
  });
  return {
    browser,
    close: () => browser.close(),
  };
}

// A JSON call to plauditd from the test itself (set-up and checks).
export async function api(base, method, path, { token, body, headers = {} } = {}) {
  const h = { ...headers };
  if (token) h.Authorization = 'Bearer ' + token;
  if (body !== undefined) h['Content-Type'] = 'application/json';
  const res = await fetch(base + path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : null };
}

export async function signIn(base, username, password) {
  const r = await api(base, 'POST', '/api/v1/sessions', { body: { username, password } });
  if (r.status !== 201) throw new Error(`sign-in ${username}: ${r.status} ${JSON.stringify(r.json)}`);
  return r.json;
}

export async function newUser(base, username, displayName) {
  const password = 'password-' + username;
  const r = await api(base, 'POST', '/api/v1/users', { body: { username, password, displayName } });
  if (r.status !== 201) throw new Error(`sign-up ${username}: ${r.status} ${JSON.stringify(r.json)}`);
  return { ...(await signIn(base, username, password)), password };
}

// Polls `fn` until it returns a truthy value (or stops throwing); fails after `ms`.
export async function eventually(fn, ms = 10000, what = 'condition') {
  const end = Date.now() + ms;
  let last;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
      last = v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${last instanceof Error ? last.message : JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// A like button pressed and counted, its request answered (the widget marks it `busy` until
// then: the optimistic state shows before the server has it, and a reload would drop it).
export async function likeSettled(like, count = 1) {
  await eventually(async () => (await like.getAttribute('aria-pressed')) === 'true'
                   && (await like.innerText()).includes(String(count))
                   && !(await like.evaluate((el) => el.classList.contains('busy'))), 10000, 'the like to settle');
}

// A picture of the viewport (the widget's first screen), for the README.
export async function screenshot(page, name) {
  if (!screenshotDir) return;
  mkdirSync(screenshotDir, { recursive: true });
  await page.screenshot({ path: join(screenshotDir, name), animations: 'disabled' });
}

// The snippet a host page pastes, with extra data-* attributes.
export function snippet(plaudit, attrs = {}) {
  const a = Object.entries(attrs).map(([k, v]) => ` data-${k}="${String(v).replace(/"/g, '&quot;')}"`).join('');
  return `<div id="plaudit"></div><script src="${plaudit}/embed.js"${a} async></script>`;
}

// No inline style or script: the pages are also served under a strict CSP.
export function hostPage(body, { title = 'Host page', lang = 'en' } = {}) {
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
         `<title>${title}</title></head><body>${body}</body></html>`;
}

// In the widget `w`: sign up (and so in) through its form.
export async function widgetSignUp(w, username, password, displayName = '') {
  await w.getByRole('button', { name: 'Sign up' }).click();
  await w.getByLabel('Username').fill(username);
  await w.getByLabel('Password').fill(password);
  if (displayName) await w.getByLabel('Display name (optional)').fill(displayName);
  await w.locator('form.auth-form').getByRole('button', { name: 'Sign up' }).click();
  await w.getByText('Signed in as ' + (displayName || username)).waitFor();
}

// The widget sends how long its comment form was open (`formAgeMs`), and plauditd holds a
// comment sent within 2 s as a bot's (API.md "Moderation"). Tests type at machine speed: instead
// of waiting, this moves the page's clock on (Playwright's fake clock, installed once per
// context; it keeps running in real time otherwise) so the form is as old as a person's.
const clocked = new WeakSet();
export async function humanPause(page) {
  const context = page.context();
  if (!clocked.has(context)) {
    await context.clock.install();
    clocked.add(context);
  }
  await context.clock.fastForward(2500);
}

// In the widget `w`, signed in: post a top-level comment and wait until it is listed.
export async function widgetPost(w, text) {
  await w.getByLabel('Write a comment').fill(text);
  await humanPause(w.page());
  await w.getByRole('button', { name: 'Post comment' }).click();
  const item = w.locator('li.c', { hasText: text }).first();
  await item.waitFor();
  return item;
}
