// Holds docs/openapi.json (issue 49; API.md "Moving data in and out") to account:
//   1. the document is valid OpenAPI 3.1 (@seriousme/openapi-schema-validator);
//   2. every response the API tests recorded (PLAUDIT_RECORD_EXCHANGES, tests/support/
//      http_client.cpp) is documented: its path and method, its status, and — for JSON —
//      its body validates against the response's schema (ajv, JSON Schema 2020-12);
//   3. enough of the document was exercised: each operation's documented success answers
//      seen at least once, else listed; fewer than --min-operations covered fails.
//
//   node tests/openapi/check.mjs --spec docs/openapi.json --exchanges DIR [--min-operations N]
//
// Requests the tests send on purpose to no route (404) or to a wrong method (405) are not
// findings; anything else the document does not describe is. Bodies are checked when the
// recording kept them: JSON, not content-encoded, not empty.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const { values: args } = parseArgs({
  options: {
    spec: { type: 'string' },
    exchanges: { type: 'string' },
    'min-operations': { type: 'string', default: '0' },
  },
});
if (!args.spec) {
  console.error('usage: check.mjs --spec FILE [--exchanges DIR] [--min-operations N]');
  process.exit(2);
}

const validator = new Validator();
const valid = await validator.validate(args.spec);
if (!valid.valid) {
  console.error(`${args.spec} is not valid OpenAPI:`);
  console.error(JSON.stringify(valid.errors, null, 2).slice(0, 4000));
  process.exit(1);
}
console.log(`${args.spec}: valid OpenAPI ${validator.version}`);
if (!args.exchanges) process.exit(0);

const spec = validator.resolveRefs();
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

// Path templates as matchers: literal segments beat parameters ("/users/me" before "/users/{id}").
const routes = Object.keys(spec.paths).map((template) => {
  const segs = template.split('/');
  return {
    template,
    literals: segs.filter((s) => !s.startsWith('{')).length,
    re: new RegExp('^' + segs.map((s) => (s.startsWith('{') ? '[^/]+' : s.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))).join('/') + '$'),
  };
}).sort((a, b) => b.literals - a.literals);

const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
addFormats(ajv);
const compiled = new Map();
function schemaValidator(key, schema) {
  if (!compiled.has(key)) compiled.set(key, ajv.compile(schema));
  return compiled.get(key);
}

const findings = new Map();  // kind -> [first examples], counts
function finding(kind, text) {
  const f = findings.get(kind) ?? { n: 0, examples: [] };
  f.n += 1;
  if (f.examples.length < 5) f.examples.push(text);
  findings.set(kind, f);
}

const covered = new Set();  // "METHOD template status"
let exchanges = 0;
let validated = 0;
const files = readdirSync(args.exchanges).filter((f) => f.endsWith('.jsonl'));
for (const file of files) {
  for (const line of readFileSync(join(args.exchanges, file), 'utf8').split('\n')) {
    if (!line) continue;
    const x = JSON.parse(line);
    exchanges += 1;
    const path = x.target.split('?')[0];
    // The document is the API's: blog pages, /embed.js and /assets are not in it; a CORS
    // preflight (OPTIONS) is answered for every route; HEAD is GET without its body.
    if (!path.startsWith('/api/') && !['/healthz', '/readyz', '/metrics'].includes(path)) continue;
    if (x.method === 'OPTIONS') continue;
    const method = x.method === 'HEAD' ? 'get' : x.method.toLowerCase();
    const route = routes.find((r) => r.re.test(path));
    if (!route) {
      if (x.status !== 404) finding('path not in the document', `${x.method} ${x.target} → ${x.status}`);
      continue;
    }
    const op = spec.paths[route.template][method];
    if (!op) {
      if (x.status !== 405 && x.status !== 404) finding('method not in the document', `${x.method} ${route.template} → ${x.status}`);
      continue;
    }
    const status = String(x.status);
    const res = op.responses?.[status] ?? op.responses?.[`${status[0]}XX`] ?? op.responses?.default;
    // `default` is for the answers any route may give (405, 431, 500, 501); a status the
    // route means to answer is listed, so that a 400 left out of the document shows.
    if (!op.responses?.[status] && !op.responses?.[`${status[0]}XX`] && !['405', '431', '500', '501'].includes(status)) {
      finding('status answered only by default', `${x.method} ${route.template} → ${status} ${(x.body ?? '').slice(0, 160)}`);
    }
    if (!res) {
      finding('status not documented', `${x.method} ${route.template} → ${status} ${(x.body ?? '').slice(0, 160)}`);
      continue;
    }
    covered.add(`${method.toUpperCase()} ${route.template} ${status}`);
    if (x.body === undefined) continue;
    const media = res.content?.['application/json'];
    if (!media) {
      finding('JSON answer without a JSON schema', `${x.method} ${route.template} → ${status}`);
      continue;
    }
    if (!media.schema) continue;
    let body;
    try {
      body = JSON.parse(x.body);
    } catch {
      finding('answer is not JSON', `${x.method} ${x.target} → ${status}`);
      continue;
    }
    const check = schemaValidator(`${method} ${route.template} ${status}`, media.schema);
    validated += 1;
    if (!check(body)) {
      const e = check.errors[0];
      finding(`body does not match the schema: ${x.method} ${route.template} ${status}`,
        `${e.instancePath || '/'} ${e.message}${e.params ? ' ' + JSON.stringify(e.params) : ''}; body ${x.body.slice(0, 300)}`);
    }
  }
}

// Coverage: operations with at least one documented 2xx answer seen.
const ops = [];
for (const [template, item] of Object.entries(spec.paths)) {
  for (const m of METHODS) {
    if (!item[m]) continue;
    const seen = [...covered].some((c) => c.startsWith(`${m.toUpperCase()} ${template} 2`));
    ops.push({ name: `${m.toUpperCase()} ${template}`, seen });
  }
}
const seenOps = ops.filter((o) => o.seen).length;
console.log(`${exchanges} recorded answers in ${files.length} file(s); ${validated} JSON bodies validated; ` +
            `${seenOps} of ${ops.length} operations seen answering 2xx`);
const unseen = ops.filter((o) => !o.seen).map((o) => o.name);
if (unseen.length) console.log(`not seen answering 2xx: ${unseen.join(', ')}`);
let failed = false;
for (const [kind, f] of findings) {
  failed = true;
  console.log(`FINDING ${kind} (${f.n}):`);
  for (const e of f.examples) console.log(`    ${e}`);
}
const min = Number(args['min-operations']);
if (exchanges === 0 || seenOps < min) {
  console.log(`too little exercised: ${seenOps} operations seen, at least ${min} expected`);
  failed = true;
}
process.exit(failed ? 1 : 0);
