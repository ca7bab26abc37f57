// embed.js: `<div id="plaudit"></div><script src="https://comments.example/embed.js"
// data-url="…" async></script>` renders the page's comment thread on any site.
// Attributes of the script tag: data-url (default: this page; a relative URL is resolved against
// it, as count.js does), data-title (document.title),
// data-theme (light|dark|auto), data-lang (en|zh-CN), data-target (a CSS selector, default
// #plaudit), data-article (an article id of plauditd's own site instead of a page URL).
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
  root.append(new Thread({ api, source, lang, t: translator(lang) }).el);
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', mount);
else mount();
