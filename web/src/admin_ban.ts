// Banning a user from the console: a small inline form (reason, duration) that opens under a
// "Ban" button, and an "Unban" button for a banned user. Shared by the queue and the users tab.
import { User } from './api';
import { ban, unban } from './admin_api';
import { AdminCtx, errorText, userName } from './admin_ctx';
import { h } from './dom';

const kDays = { forever: 0, day1: 1, day7: 7, day30: 30 } as const;
let seq = 0;

// The ban control for `u`; `changed` gets the user object the server answers with.
export function banControl(a: AdminCtx, u: User, changed: (u: User) => void): HTMLElement {
  const box = h('span', { class: 'ban' });
  const render = () => {
    if (u.banned) {
      box.replaceChildren(h('button', { type: 'button', onclick: () => void lift() }, a.at('unban', userName(u))));
    } else {
      box.replaceChildren(h('button', { type: 'button', 'aria-expanded': 'false', onclick: open }, a.at('ban', userName(u))));
    }
  };
  const done = (next: User, key: 'didBan' | 'didUnban') => {
    u = { ...u, ...next };
    a.say(a.at(key, userName(u)));
    changed(u);
    render();
    box.querySelector('button')?.focus();
  };
  const lift = async () => {
    try {
      done(await unban(a.ctx.api, u.id), 'didUnban');
    } catch (e) {
      a.say(errorText(a, e), true);
    }
  };
  function open(): void {
    const id = 'ban' + ++seq;
    const reason = h('input', { id: id + 'r', type: 'text', maxlength: 500, autocomplete: 'off' });
    const span = h('select', { id: id + 'd' },
      ...(Object.keys(kDays) as (keyof typeof kDays)[]).map((k) => h('option', { value: k }, a.at(k))));
    const submit = h('button', { type: 'submit' }, a.at('banNow'));
    const form = h('form', { class: 'ban-form', 'aria-label': a.at('ban', userName(u)) },
      h('label', { for: reason.id }, a.at('banReason')), reason,
      h('label', { for: span.id }, a.at('banFor')), span, submit,
      h('button', { type: 'button', onclick: () => { render(); box.querySelector('button')?.focus(); } }, a.at('cancel')));
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      submit.disabled = true;
      const days = kDays[span.value as keyof typeof kDays];
      const until = days ? new Date(Date.now() + days * 86400000).toISOString() : undefined;
      try {
        done(await ban(a.ctx.api, u.id, until, reason.value.trim()), 'didBan');
      } catch (e) {
        submit.disabled = false;
        a.say(errorText(a, e), true);
      }
    });
    // Escape closes the form, as the widget's forms do.
    form.addEventListener('keydown', (ev) => {
      if (ev.key === 'Escape') { render(); box.querySelector('button')?.focus(); }
    });
    box.replaceChildren(form);
    reason.focus();
  }
  render();
  return box;
}
