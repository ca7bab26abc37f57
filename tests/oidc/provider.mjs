// A real OpenID provider for the tests (npm's oidc-provider, a certified implementation), on
// loopback: `node provider.mjs --port N` prints "listening <issuer>" once it answers.
// Its login page takes any login and password (the library's development interactions); the
// account's claims are sub = the login, name "Reader <login>", email "<login>@idp.example".
// Test controls, beside the provider's own routes:
//   PUT /__test/clients  {client_id, client_secret, redirect_uris}: registers a client (the
//     redirect URI is plauditd's, known only once plauditd listens);
//   PUT /__test/wrong-keys: from now on /jwks lists another key under the signing key's kid, so
//     every ID token looks signed by a key the provider does not list (a forged token).
import { createServer } from 'node:http';
import { generateKeyPairSync } from 'node:crypto';
import Provider from 'oidc-provider';

const port = Number(process.argv[process.argv.indexOf('--port') + 1] || 0);
const store = new Map();

// oidc-provider's adapter interface over a Map: clients registered at run time are found here.
class MapAdapter {
  constructor(model) { this.model = model; }
  key(id) { return `${this.model}:${id}`; }
  async upsert(id, payload) {
    store.set(this.key(id), payload);
    if (this.model === 'Session' && payload.uid) store.set(`uid:${payload.uid}`, id);
  }
  async find(id) { return store.get(this.key(id)); }
  async findByUid(uid) { const id = store.get(`uid:${uid}`); return id ? this.find(id) : undefined; }
  async findByUserCode() { return undefined; }
  async consume(id) { const v = store.get(this.key(id)); if (v) v.consumed = Math.floor(Date.now() / 1000); }
  async destroy(id) { store.delete(this.key(id)); }
  async revokeByGrantId(grantId) {
    for (const [k, v] of store) if (v && v.grantId === grantId) store.delete(k);
  }
}

function rsaJwk(kid) {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' };
}
const signing = rsaJwk('test-key');
const other = rsaJwk('test-key');  // the same kid, another key
const publicOf = ({ kty, n, e, kid, alg, use }) => ({ kty, n, e, kid, alg, use });
let wrongKeys = false;

const server = createServer();
server.listen(port, '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    adapter: MapAdapter,
    jwks: { keys: [signing] },
    cookies: { keys: ['plaudit-test-cookie-key'] },
    findAccount: async (ctx, sub) => ({
      accountId: sub,
      claims: async () => ({ sub, name: `Reader ${sub}`, email: `${sub}@idp.example`, email_verified: true }),
    }),
    claims: { openid: ['sub'], profile: ['name'], email: ['email', 'email_verified'] },
    scopes: ['openid', 'profile', 'email'],
    // Profile claims in the ID token too (plauditd also reads userinfo when they are not).
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true } },
  });
  const handle = provider.callback();
  server.on('request', (req, res) => {
    if (req.method === 'PUT' && req.url === '/__test/clients') {
      let body = '';
      req.on('data', (d) => { body += d; });
      req.on('end', () => {
        const c = JSON.parse(body);
        store.set(`Client:${c.client_id}`, {
          client_id: c.client_id, client_secret: c.client_secret, redirect_uris: c.redirect_uris,
          grant_types: ['authorization_code'], response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_basic',
        });
        res.writeHead(204).end();
      });
      return;
    }
    if (req.method === 'PUT' && req.url === '/__test/wrong-keys') {
      wrongKeys = true;
      res.writeHead(204).end();
      return;
    }
    if (wrongKeys && req.url === '/jwks') {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ keys: [publicOf(other)] }));
      return;
    }
    handle(req, res);
  });
  console.log(`listening ${issuer}`);
});
