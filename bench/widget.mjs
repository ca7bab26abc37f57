// The widget's weight and first render, for docs/benchmarks.md:
//   node bench/widget.mjs            (after `make build`; PLAUDITD=path overrides build/plauditd)
// 1. What a reader downloads: /embed.js (its CSS is inside) and /count.js as plauditd sends
//    them to a browser (Accept-Encoding: gzip; the build's gzip -9 bytes), and uncompressed;
//    also the blog pages' site.js and site.css (not under the widget's budget).
// 2. First render: a host page with the widget on a 20-comment thread (3 with a reply), in
//    Debian's Chromium; the time from navigation start until all 20 comments are in the shadow
//    DOM, median of 10 cold loads (a fresh browser context each: no cache).
// With BENCH_JSON=FILE (make bench's step 7, bench/lib/web.sh) the figures also go to FILE.
import { writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { api, hostPage, launchBrowser, newUser, signIn, snippet, startPlauditd } from '../tests/browser/harness.mjs';

const runs = Number(process.env.RUNS || 10);
const plaudit = await startPlauditd(['--rate-limits', 'off']);
const browser = await launchBrowser();
try {
  // The bytes on the wire (node:http does not unpack them, unlike fetch).
  const wire = (path, encoding) => new Promise((ok, fail) => {
    get(`${plaudit.url}${path}`, { headers: { 'Accept-Encoding': encoding } }, (res) => {
      let n = 0;
      res.on('data', (d) => { n += d.length; });
      res.on('end', () => ok({ n, encoding: res.headers['content-encoding'] || 'identity' }));
    }).on('error', fail);
  });
  const files = {};
  for (const f of ['embed.js', 'count.js', 'site.js', 'site.css']) {
    const plain = await wire('/' + f, 'identity');
    const gz = await wire('/' + f, 'gzip, deflate, br');
    files[f] = { bytes: plain.n, sent_bytes: gz.n, encoding: gz.encoding };
    console.log(`${f}: ${plain.n} bytes, ${gz.n} bytes sent to a browser (${gz.encoding})`);
  }
  const admin = await signIn(plaudit.url, 'admin', 'admin-password');
  const a = await api(plaudit.url, 'POST', '/api/v1/articles',
                      { token: admin.token, body: { title: 'Bench', content: '<p>x</p>', status: 'published' } });
  const u = await newUser(plaudit.url, 'reader', 'Reader');
  const path = `/api/v1/articles/${a.json.id}/comments`;
  for (let i = 1; i <= 20; i++) {
    const c = await api(plaudit.url, 'POST', path, { token: u.token, body: { body: `Comment ${i}: a line of text with a link https://example.com/${i}` } });
    if (i % 7 === 0) await api(plaudit.url, 'POST', path, { token: u.token, body: { body: 'A reply', parentId: c.json.id } });
  }
  const url = `${plaudit.url}/__bench/host.html`;
  const html = hostPage(snippet(plaudit.url, { article: a.json.id }));
  const times = [];
  for (let i = 0; i < runs; i++) {
    const context = await browser.browser.newContext();
    await context.route(url, (r) => r.fulfill({ contentType: 'text/html', body: html }));
    const page = await context.newPage();
    await page.goto(url);
    const ms = await page.evaluate(() => new Promise((done) => {
      const check = () => {
        const root = document.querySelector('#plaudit')?.shadowRoot;
        if (root && root.querySelectorAll('ol.list > li.c').length >= 20) done(performance.now());
        else requestAnimationFrame(check);
      };
      check();
    }));
    times.push(ms);
    await context.close();
  }
  times.sort((x, y) => x - y);
  const median = (times[(runs - 1) >> 1] + times[runs >> 1]) / 2;
  console.log(`first render of 20 comments: median ${median.toFixed(1)} ms over ${runs} cold loads ` +
              `(min ${times[0].toFixed(1)}, max ${times[runs - 1].toFixed(1)})`);
  if (process.env.BENCH_JSON) {
    const round = (x) => Math.round(x * 10) / 10;
    writeFileSync(process.env.BENCH_JSON, JSON.stringify({
      files, first_render_ms: { median: round(median), min: round(times[0]), max: round(times[runs - 1]), runs },
    }));
  }
} finally {
  await browser.close();
  await plaudit.stop();
}
