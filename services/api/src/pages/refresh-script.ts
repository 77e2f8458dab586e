// The pages' auto-refresh (served at /assets/refresh.js; the CSP allows only our own scripts).
// Every N seconds the page at the same URL (so with the same filters) is fetched and its <main>
// swapped in, keeping the scroll position. It waits while the tab is hidden, while a form field
// has the focus or holds something typed or ticked, and while a <details> is open (a form in use).
// The header's select sets N (or off), kept in localStorage.

export const REFRESH_SECONDS = [0, 10, 30, 60, 300] as const;
export const DEFAULT_REFRESH_SECONDS = 30;

export const REFRESH_SCRIPT = `
'use strict';
(function () {
  const select = document.querySelector('select[data-auto-refresh]');
  const stamp = document.querySelector('[data-refreshed]');
  if (!select) return;
  const KEY = 'tracecheck.refresh-seconds';
  let seconds = Number(localStorage.getItem(KEY) ?? select.value);
  if (!Array.from(select.options).some((o) => Number(o.value) === seconds)) seconds = Number(select.value);
  select.value = String(seconds);
  let last = Date.now();
  let busy = false;
  function inUse() {
    const main = document.querySelector('main');
    if (!main) return true;
    const a = document.activeElement;
    if (a && a !== document.body && a.closest('main, header') && a.matches('input, select, textarea, button, summary')) return true;
    if (main.querySelector('details[open]')) return true;
    for (const f of main.querySelectorAll('input, textarea')) {
      if (f.type === 'checkbox' || f.type === 'radio' ? f.checked !== f.defaultChecked : f.value !== f.defaultValue) return true;
    }
    return false;
  }
  async function refresh() {
    if (busy) return;
    busy = true;
    try {
      const res = await fetch(location.href, { credentials: 'same-origin', headers: { accept: 'text/html' } });
      // Signed out meanwhile: show the sign-in page itself rather than swap it in.
      if (res.redirected) { location.assign(res.url); return; }
      if (!res.ok) { if (stamp) stamp.textContent = 'refresh failed: ' + res.status; return; }
      const doc = new DOMParser().parseFromString(await res.text(), 'text/html');
      const fresh = doc.querySelector('main');
      if (!fresh || inUse()) return;
      const x = scrollX, y = scrollY;
      document.querySelector('main').replaceWith(document.adoptNode(fresh));
      scrollTo(x, y);
      last = Date.now();
      if (stamp) stamp.textContent = 'updated ' + new Date(last).toISOString().slice(11, 19) + ' UTC';
      document.dispatchEvent(new CustomEvent('tracecheck:refreshed'));
    } catch (e) {
      if (stamp) stamp.textContent = 'refresh failed';
    } finally { busy = false; }
  }
  function due() {
    return seconds > 0 && !document.hidden && Date.now() - last >= seconds * 1000 && !inUse();
  }
  setInterval(() => { if (due()) refresh(); }, 1000);
  document.addEventListener('visibilitychange', () => { if (due()) refresh(); });
  select.addEventListener('change', () => {
    seconds = Number(select.value);
    localStorage.setItem(KEY, String(seconds));
    last = Date.now();
    select.blur();
  });
})();
`;
