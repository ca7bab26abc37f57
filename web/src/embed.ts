// embed.js: `<div id="plaudit"></div><script src="https://comments.example/embed.js"
// data-url="…" async></script>` renders the page's comment thread on any site.
// Attributes of the script tag: data-url (default: this page; a relative URL is resolved against
// it, as count.js does), data-title (document.title),
// data-theme (light|dark|auto), data-lang (en|zh-CN), data-target (a CSS selector, default
// #plaudit), data-article (an article id of plauditd's own site instead of a page URL),
// data-sso-token (site sign-in, API.md "Guests and sign-in from elsewhere": the host site's
// signed token for the reader it has signed in; present but empty: nobody is signed in there).
// The API origin is the script's own: the host page needs no configuration.
import { Api, articleSource, pageSource } from './api';
import { mountStyles } from './styles';
import { Thread } from './thread';
import { pickLang, translator } from './i18n';
import { pageUrl } from './page_url';

const script = (document.currentScript ||
  document.querySelector('script[src*="/embed.js"],script[src*="/assets/embed."]')) as HTMLScriptElement | null;

function mount(): void {
  if (!script) return;
  const d = script.dataset;
  const host = document.querySelector<HTMLElement>(d.target || '#plaudit');
  if (!host) {
    console.warn(`plaudit: no element matches ${d.target || '#plaudit'}; nothing to render into`);
    return;
  }
  if (host.shadowRoot) return;
  const api = new Api(new URL(script.src, location.href).origin);
  const lang = pickLang(d.lang);
  const theme = d.theme === 'dark' || d.theme === 'light' ? d.theme : 'auto';
  host.setAttribute('data-plaudit-theme', theme);
  // Shadow DOM: the host page's CSS does not reach in (except the --plaudit-* variables, which
  // inherit), the widget's does not leak out; see docs/architecture.md for why not an iframe.
  const root = host.attachShadow({ mode: 'open' });
  mountStyles(root);
  const article = Number(d.article);
  const source = article > 0 ? articleSource(api, article)
    : pageSource(api, pageUrl(d.url), d.title || document.title);
  const render = () => root.append(new Thread({ api, source, lang, t: translator(lang) }).el);
  if (d.ssoToken === undefined) { render(); return; }
  void followHostSite(api, d.ssoToken).finally(render);
}

// Site sign-in: the widget's session follows the host site's. A token for someone other than
// the session's reader (or no session yet) signs in with it; an empty one ends a session the
// host site made. A refused token leaves the reader as they were (its reason in the console).
async function followHostSite(api: Api, token: string): Promise<void> {
  const current = api.session ? api.session.sso : undefined;
  if (!token) {
    if (current) await api.signOut().catch(() => {});
    return;
  }
  const who = ssoSubject(token);
  if (who && current === who) return;
  try {
    await api.signInSso(token, who || '');
  } catch (e) {
    console.warn('plaudit: the site sign-in token was refused:', e instanceof Error ? e.message : e);
  }
}

// "iss sub" of a token, read (not verified: the server does that) to tell readers apart.
function ssoSubject(token: string): string | null {
  try {
    const part = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    const claims = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(part), (ch) => ch.charCodeAt(0))));
    return typeof claims.iss === 'string' && typeof claims.sub === 'string' ? claims.iss + ' ' + claims.sub : null;
  } catch {
    return null;
  }
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', mount);
else mount();
