// The review page's keyboard (served at /assets/review.js; the CSP allows only our own scripts).
// The review box keeps the focus: it takes it on load, and Esc in a field gives it back.

export const REVIEW_SCRIPT = `
'use strict';
(function () {
  const box = document.querySelector('[data-review]');
  if (!box) return;
  const q = box.getAttribute('data-queue'), unit = box.getAttribute('data-unit'), check = box.getAttribute('data-check'), reviewer = box.getAttribute('data-reviewer');
  const note = box.querySelector('[data-note]'), labels = box.querySelector('[data-labels]'), value = box.querySelector('[data-value]');
  const result = box.querySelector('[data-result]');
  let busy = false;
  box.focus();
  function fail(e) { busy = false; result.hidden = false; result.textContent = e.message; box.focus(); }
  async function call(method, url, body) {
    const res = await fetch(url, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' });
    const json = await res.json().catch(() => null);
    if (!res.ok) throw new Error((json && json.error) || res.status + ' ' + res.statusText);
    return json;
  }
  function go(unitId) {
    const params = new URLSearchParams({ reviewer });
    if (unitId) params.set('unit', unitId);
    location.assign('/review/' + encodeURIComponent(q) + '?' + params.toString());
  }
  async function move(how) {
    const params = new URLSearchParams({ reviewer });
    params.set(how, unit);
    const next = await call('GET', '/api/v1/review-queues/' + encodeURIComponent(q) + '/next?' + params.toString());
    go(next.unit_id);
  }
  async function answer(agrees) {
    const body = { unit_id: unit, check, reviewer, queue_id: q, agrees, note: note.value, labels: labels.value.split(',').map((s) => s.trim()).filter(Boolean) };
    if (value && value.value !== '') { body.verdict_value = Number(value.value); delete body.agrees; }
    await call('POST', '/api/v1/reviews', body);
    await move('after');
  }
  function act(key) {
    if (busy) return;
    const run = key === '1' ? () => answer(true) : key === '0' ? () => answer(false) : key === 's' || key === 'j' || key === 'n' ? () => move('after') : key === 'k' || key === 'p' ? () => move('before') : null;
    if (!run) return false;
    busy = true;
    run().catch(fail);
    return true;
  }
  document.addEventListener('keydown', (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const inField = ev.target instanceof HTMLInputElement;
    if (inField) { if (ev.key === 'Escape') { ev.preventDefault(); box.focus(); } return; }
    if (ev.key === 't') { ev.preventDefault(); note.focus(); return; }
    if (act(ev.key)) ev.preventDefault();
  });
  box.addEventListener('click', (ev) => {
    const b = ev.target.closest('[data-answer]');
    if (b) { ev.preventDefault(); act(b.getAttribute('data-answer')); }
  });
})();
`;
