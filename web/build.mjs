// Bundles the widget (src/embed.ts → embed.js), the count badges (src/count.ts → count.js) and
// the blog pages (src/site.ts → site.js) with esbuild, minified, one self-contained file each
// (CSS is inlined as a string and adopted by the widget's shadow root); the pages' own sheet
// (src/site.css → site.css, a file the HTML links: plauditd's CSP has no inline styles) and
// their HTML shell (site/index.html → site.html, whose "/site.js" plauditd rewrites to the
// hashed name); plus `<name>.gz` (gzip -9) that plauditd serves to clients accepting gzip.
// Type-checking is separate: `npx tsc --noEmit`.
//   node build.mjs [--out DIR]   (default: ./dist)
import { build, transform } from 'esbuild';
import { readFile } from 'node:fs/promises';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const i = process.argv.indexOf('--out');
const out = resolve(i > 0 ? process.argv[i + 1] : join(here, 'dist'));
mkdirSync(out, { recursive: true });

// A .css import is its minified text (esbuild's own CSS minifier), for adoptedStyleSheets.
const minifiedCssAsText = {
  name: 'css-text',
  setup(b) {
    b.onLoad({ filter: /\.css$/ }, async (args) => {
      const { code } = await transform(await readFile(args.path, 'utf8'), { loader: 'css', minify: true });
      return { contents: code, loader: 'text' };
    });
  },
};

await build({
  entryPoints: { embed: join(here, 'src/embed.ts'), count: join(here, 'src/count.ts'), site: join(here, 'src/site.ts') },
  outdir: out,
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['es2020', 'chrome90', 'firefox90', 'safari15'],
  plugins: [minifiedCssAsText],
  legalComments: 'none',
  charset: 'utf8',
  logLevel: 'warning',
});

const siteCss = await transform(readFileSync(join(here, 'src/site.css'), 'utf8'), { loader: 'css', minify: true });
writeFileSync(join(out, 'site.css'), siteCss.code);
writeFileSync(join(out, 'site.html'), readFileSync(join(here, 'site/index.html')));

for (const name of ['embed.js', 'count.js', 'site.js', 'site.css']) {
  writeFileSync(join(out, name + '.gz'), gzipSync(readFileSync(join(out, name)), { level: 9 }));
}
