// The page a data-url (embed.js) or data-plaudit-count (count.js) attribute names: resolved
// against this page as a link's href is, so "/posts/1" and "评论" work as well as an absolute
// URL, and spelled as location.href is (non-ASCII percent-encoded, the host in its ASCII form):
// both scripts send one spelling of a page, the one count.js keys its answers by.
export function pageUrl(attr: string | undefined): string {
  const raw = attr || location.href;
  try {
    return new URL(raw, location.href).href;
  } catch {
    return raw;  // not a URL at all: plauditd's 400 says why
  }
}
