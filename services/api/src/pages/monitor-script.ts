// The checks page's monitor form (served at /assets/monitors.js; the CSP allows only our own
// scripts). Changes go to the JSON API as same-origin JSON. Saving asks the API for a dry run
// first: when the monitor would leave agents with no check, the warning shows and a second click saves.

export const MONITOR_SCRIPT = `
'use strict';
(function () {
  const form = document.querySelector('form[data-monitor-form]');
  if (!form) return;
  const area = form.querySelector('textarea'), result = form.querySelector('[data-result]'), preview = form.querySelector('[data-preview]');
  const save = form.querySelector('button[type=submit]');
  let confirmed = null;
  async function send(method, url, body) {
    const res = await fetch(url, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' });
    const json = res.status === 204 ? null : await res.json().catch(() => null);
    if (!res.ok) throw new Error((json && json.error) || res.status + ' ' + res.statusText);
    return json;
  }
  function say(ok, text) { result.className = 'msg ' + (ok ? 'ok' : 'err'); result.textContent = text; result.hidden = false; }
  function body() { return JSON.parse(area.value); }
  function show(p) {
    preview.textContent = '';
    const list = document.createElement('ul');
    for (const a of p.agents) {
      const li = document.createElement('li');
      li.textContent = (a.agent === null ? '(no agent name)' : a.agent) + ' (' + a.unit_kind + ' units): ' + (a.with_checks === 0 ? 'no check runs' : a.checks.join(', '));
      list.appendChild(li);
    }
    preview.appendChild(list);
    preview.hidden = false;
  }
  async function dryRun() {
    const b = body();
    const p = await send(form.getAttribute('data-method'), form.getAttribute('data-url') + '?dry_run=true', b);
    show(p);
    return { b, p };
  }
  form.querySelector('[data-preview-monitor]').addEventListener('click', async () => {
    try { const { p } = await dryRun(); say(p.warning === null, p.warning || 'No agent seen in the last 7 days is left without checks.'); }
    catch (e) { say(false, e.message); }
  });
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    try {
      const { b, p } = await dryRun();
      const key = JSON.stringify(b);
      if (p.warning !== null && confirmed !== key) { confirmed = key; say(false, p.warning + ' Click "Save anyway" to save it.'); save.textContent = 'Save anyway'; return; }
      await send(form.getAttribute('data-method'), form.getAttribute('data-url'), b);
      location.reload();
    } catch (e) { say(false, e.message); }
  });
  area.addEventListener('input', () => { confirmed = null; save.textContent = 'Save monitor'; });
  document.addEventListener('click', async (ev) => {
    const edit = ev.target.closest('[data-edit-monitor]');
    if (edit) {
      area.value = JSON.stringify(JSON.parse(edit.getAttribute('data-edit-monitor')), null, 2);
      form.setAttribute('data-method', 'PUT');
      form.setAttribute('data-url', edit.getAttribute('data-url'));
      confirmed = null; save.textContent = 'Save monitor';
      form.previousElementSibling.textContent = 'Edit monitor';
      area.focus();
      return;
    }
    const del = ev.target.closest('[data-delete-monitor]');
    if (del) {
      if (!confirm('Delete this monitor?')) return;
      try { await send('DELETE', del.getAttribute('data-delete-monitor')); location.reload(); } catch (e) { say(false, e.message); }
    }
  });
})();
`;
