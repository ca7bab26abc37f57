// What every part of the moderation console shares: the site's context, the console's
// translator, the name directory and the one aria-live status line.
import { ApiError, User } from './api';
import { Directory } from './admin_api';
import { AdminT } from './admin_i18n';
import { Ctx } from './site_pages';

export interface AdminCtx {
  ctx: Ctx;
  at: AdminT;
  dir: Directory;
  say(text: string, error?: boolean): void;
}

export const userName = (u: User) => u.displayName || u.username;

export function errorText(a: AdminCtx, e: unknown): string {
  if (e instanceof ApiError) return a.at('err', e.status ? `${e.status} ${e.code}: ${e.message}` : e.code);
  return a.at('err', String(e));
}

export function when(a: AdminCtx, iso: string): HTMLTimeElement {
  const el = document.createElement('time');
  el.dateTime = iso;
  el.textContent = new Date(iso).toLocaleString(a.ctx.lang, { dateStyle: 'medium', timeStyle: 'short' });
  return el;
}

// Only http(s) and same-site paths become links (a page URL comes from the server, but the
// console does not have to trust it to be harmless).
export function safeHref(url: string | null | undefined): string | null {
  if (!url) return null;
  if (url.startsWith('/') && !url.startsWith('//')) return url;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}
