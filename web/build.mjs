// Bundles the widget (src/embed.ts → embed.js) and the count badges (src/count.ts → count.js)
// with esbuild, minified, one self-contained file each (CSS is inlined as a string and
// adopted by the widget's shadow root). Type-checking is separate: `npx tsc --noEmit`.
//   node build.mjs [--out DIR]   (default: ./dist)
import { build } from 'esbuild';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const i = process.argv.indexOf('--out');
const out = resolve(i > 0 ? process.argv[i + 1] : join(here, 'dist'));
mkdirSync(out, { recursive: true });

await build({
  entryPoints: { embed: join(here, 'src/embed.ts'), count: join(here, 'src/count.ts') },
  outdir: out,
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['es2020', 'chrome90', 'firefox90', 'safari15'],
  loader: { '.css': 'text' },
  legalComments: 'none',
  charset: 'utf8',
  logLevel: 'warning',
});
