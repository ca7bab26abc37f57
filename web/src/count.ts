// count.js: fills every element with `data-plaudit-count="URL"` (an empty value: this page)
// with that page's comment count, or its like or view count with data-plaudit-kind="likes" /
// "views", from GET /api/v1/pages/counts: at most 100 URLs a request, and each request's URL
// at most kMaxRequestUrl bytes, the requests made at once.
import { pageUrl } from './page_url';

interface Counts { commentCount: number; likeCount: number; viewCount: number }

const kPath = '/api/v1/pages/counts?';
const kMaxUrls = 100;
// plauditd refuses a request whose header (request line included) passes 16 KiB with 431
// (README "Embedding"): 8 KiB of path leaves the browser's own headers the other half. A
// Chinese slug costs 27 bytes a character here (UTF-8, percent-encoded in the href, then its
// '%' encoded again in the query), so 100 short ones already pass 16 KiB; one page URL (at
// most 2,048 bytes, so at most ~6 KiB as a query value) always fits a request of its own.
const kMaxRequestUrl = 8 * 1024;

const script = (document.currentScript ||
  document.querySelector('script[src*="/count.js"],script[src*="/assets/count."]')) as HTMLScriptElement | null;

// The query strings of the requests: `urls` split by count and by bytes, in order.
function queries(urls: string[]): string[] {
  const out: string[] = [];
  let items: string[] = [];
  let bytes = kPath.length;
  for (const u of urls) {
    const item = 'url=' + encodeURIComponent(u);  // ASCII: its length is its bytes
    if (items.length > 0 && (items.length === kMaxUrls || bytes + 1 + item.length > kMaxRequestUrl)) {
      out.push(items.join('&'));
      items = [];
      bytes = kPath.length;
    }
    items.push(item);
    bytes += item.length + 1;
  }
  if (items.length > 0) out.push(items.join('&'));
  return out;
}

async function fetchCounts(origin: string, query: string): Promise<Record<string, Counts>> {
  try {
    const res = await fetch(origin + kPath + query, { credentials: 'omit' });
    if (!res.ok) return {};
    return ((await res.json()) as { items: Record<string, Counts> }).items;
  } catch {
    return {};  // leave these badges as they were
  }
}

async function fill(): Promise<void> {
  if (!script) return;
  const origin = new URL(script.src, location.href).origin;
  const els = Array.from(document.querySelectorAll<HTMLElement>('[data-plaudit-count]'));
  const urlOf = (el: HTMLElement) => pageUrl(el.dataset.plauditCount);
  const urls = Array.from(new Set(els.map(urlOf)));
  const answers = await Promise.all(queries(urls).map((q) => fetchCounts(origin, q)));
  const counts: Record<string, Counts> = Object.assign({}, ...answers);
  for (const el of els) {
    const c = counts[urlOf(el)];
    if (!c) continue;
    const kind = el.dataset.plauditKind;
    el.textContent = String(kind === 'likes' ? c.likeCount : kind === 'views' ? c.viewCount : c.commentCount);
  }
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => void fill());
else void fill();
