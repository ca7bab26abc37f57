// Building DOM without HTML strings: user data only ever reaches the page as text nodes or
// attribute values, so a comment body cannot inject markup or script.
type Child = Node | string | number | null | undefined | false;
type Props = Record<string, string | number | boolean | undefined | null | ((e: any) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(
    tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined || v === null || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

export function append(el: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
  }
}

// Trailing punctuation is rarely part of a URL someone typed in a sentence.
const kUrl = /\bhttps?:\/\/[^\s<>"'`]+/gi;
const kTrailing = /[.,;:!?)\]}'"。，；：！？）]+$/;

// A comment body as text nodes and links. Only absolute http(s) URLs become links; they open
// in a new tab and tell search engines and the target nothing (nofollow noopener ugc).
export function linkify(text: string): DocumentFragment {
  const frag = document.createDocumentFragment();
  let last = 0;
  for (const m of text.matchAll(kUrl)) {
    let url = m[0];
    const tail = url.match(kTrailing);
    if (tail) url = url.slice(0, url.length - tail[0].length);
    const start = m.index || 0;
    let href: string | null = null;
    try {
      const u = new URL(url);
      if (u.protocol === 'http:' || u.protocol === 'https:') href = u.href;
    } catch { /* not a URL: stays text */ }
    if (!href) continue;
    frag.append(text.slice(last, start),
                h('a', { href, rel: 'nofollow noopener noreferrer ugc', target: '_blank' }, url));
    last = start + url.length;
  }
  frag.append(text.slice(last));
  return frag;
}
