// A stand-in for GitHub's OAuth web flow and user API, since github.com cannot be reached from
// the test machine: the three endpoints plauditd calls, on loopback, with GitHub's shapes
// (https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps).
// `node github.mjs --port N --client ID --secret S` prints "listening <url>".
//   GET  /login/oauth/authorize: GitHub asks its user here; the stand-in approves at once for
//        the user PUT /__test/user set (default id 4242, login "octo") and redirects with a code.
//   POST /login/oauth/access_token: checks client id and secret, the code (once), the
//        redirect_uri and the PKCE verifier; answers {access_token} or, as GitHub does, 200 with
//        {"error": "bad_verification_code"}.
//   GET  /user: the user of a Bearer access token.
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const port = Number(arg('--port', 0));
const clientId = arg('--client', 'gh-client');
const clientSecret = arg('--secret', 'gh-secret');
let user = { id: 4242, login: 'octo', name: 'Octo Cat', email: null };
const codes = new Map();   // code → {redirect_uri, challenge, user}
const tokens = new Map();  // access token → user

const json = (res, status, body) =>
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));

const server = createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  let body = '';
  req.on('data', (d) => { body += d; });
  req.on('end', () => {
    if (req.method === 'PUT' && url.pathname === '/__test/user') {
      user = JSON.parse(body);
      res.writeHead(204).end();
      return;
    }
    if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') {
      const q = url.searchParams;
      if (q.get('client_id') !== clientId) { res.writeHead(404).end('unknown client'); return; }
      const code = randomBytes(10).toString('hex');
      codes.set(code, { redirect_uri: q.get('redirect_uri'), challenge: q.get('code_challenge'), user });
      const back = new URL(q.get('redirect_uri'));
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state'));
      res.writeHead(302, { Location: back.href }).end();
      return;
    }
    if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
      const f = new URLSearchParams(body);
      if (f.get('client_id') !== clientId || f.get('client_secret') !== clientSecret) {
        json(res, 200, { error: 'incorrect_client_credentials' });
        return;
      }
      const grant = codes.get(f.get('code'));
      codes.delete(f.get('code'));
      const verifier = f.get('code_verifier') || '';
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      if (!grant || grant.redirect_uri !== f.get('redirect_uri') || grant.challenge !== challenge) {
        json(res, 200, { error: 'bad_verification_code' });
        return;
      }
      const token = 'gho_' + randomBytes(16).toString('hex');
      tokens.set(token, grant.user);
      json(res, 200, { access_token: token, token_type: 'bearer', scope: 'read:user' });
      return;
    }
    if (req.method === 'GET' && url.pathname === '/user') {
      const auth = req.headers.authorization || '';
      const u = tokens.get(auth.replace(/^Bearer /, ''));
      if (!u) { json(res, 401, { message: 'Bad credentials' }); return; }
      json(res, 200, u);
      return;
    }
    res.writeHead(404).end();
  });
});
server.listen(port, '127.0.0.1', () => console.log(`listening http://127.0.0.1:${server.address().port}`));
