// Goes through the test OpenID provider's login and consent pages as a browser would (its
// cookies kept, its forms posted), from an authorization URL to the redirect back to the
// client: `node login.mjs <authorization URL> <login> <redirect URI prefix>` prints that
// redirect's URL (with code and state). For API tests, where no browser runs; the browser
// tests go through the same pages in Chromium.
const [authorizeUrl, login, until] = process.argv.slice(2);
const jar = new Map();

function keepCookies(res) {
  for (const c of res.headers.getSetCookie()) {
    const [pair] = c.split(';');
    const eq = pair.indexOf('=');
    jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1));
  }
}
const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');

async function go(url, form) {
  const res = await fetch(url, {
    method: form ? 'POST' : 'GET',
    redirect: 'manual',
    headers: { Cookie: cookieHeader(), ...(form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) },
    body: form ? new URLSearchParams(form).toString() : undefined,
  });
  keepCookies(res);
  return res;
}

let url = authorizeUrl;
let form = null;
for (let step = 0; step < 20; step++) {
  const res = await go(url, form);
  form = null;
  const location = res.headers.get('location');
  if (location) {
    const next = new URL(location, url).href;
    if (next.startsWith(until)) { console.log(next); process.exit(0); }
    url = next;
    continue;
  }
  const html = await res.text();
  const action = /<form[^>]*action="([^"]+)"/.exec(html);
  if (res.status !== 200 || !action) {
    console.error(`stuck at ${url} (${res.status}):\n${html.slice(0, 2000)}`);
    process.exit(1);
  }
  url = new URL(action[1].replace(/&amp;/g, '&'), url).href;
  form = /name="login"/.test(html) ? { prompt: 'login', login, password: 'any-password' } : { prompt: 'consent' };
}
console.error('too many steps');
process.exit(1);
