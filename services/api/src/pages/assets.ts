import { DATASET_SCRIPT } from './dataset-select.ts';
import { PROBLEM_ACTIONS_SCRIPT } from './problem-actions-script.ts';
// The dashboard's only stylesheet and script, served by us from /assets (no CDN, works offline).
// The Content-Security-Policy of every page allows nothing else: no inline script, no inline style.

export const STYLESHEET = `
:root { --fg: #1d2433; --muted: #5b6577; --line: #d9dee7; --bg: #f6f7f9; --card: #fff; --accent: #0072B2;
  --good: #1a7f37; --bad: #c62828; --warn: #9a6700; --good-bg: #e6f4ea; --bad-bg: #fdecea; --warn-bg: #fff4d6; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
header.top { display: flex; align-items: center; gap: 24px; padding: 10px 24px; background: #1d2433; color: #fff; }
header.top .brand { color: #fff; font-weight: 700; font-size: 16px; letter-spacing: .3px; }
header.top nav a { color: #c9d2e3; margin-right: 18px; padding: 4px 0; }
header.top nav a.active { color: #fff; border-bottom: 2px solid #56B4E9; }
header.top .who { margin-left: auto; color: #c9d2e3; font-size: 13px; display: flex; gap: 12px; align-items: center; }
header.top .who button { background: none; border: 1px solid #56627a; color: #c9d2e3; border-radius: 4px; padding: 2px 8px; cursor: pointer; }
main { max-width: 1400px; margin: 0 auto; padding: 20px 24px 48px; }
h1 { font-size: 22px; margin: 4px 0 4px; }
h2 { font-size: 16px; margin: 28px 0 10px; }
.sub { color: var(--muted); margin: 0 0 16px; }
.muted { color: var(--muted); }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px; margin-bottom: 16px; }
.grid2 { display: grid; grid-template-columns: minmax(0, 1fr) 380px; gap: 20px; align-items: start; }
@media (max-width: 1100px) { .grid2 { grid-template-columns: minmax(0, 1fr); } }
table { width: 100%; border-collapse: collapse; background: var(--card); }
.table-wrap { border: 1px solid var(--line); border-radius: 8px; overflow-x: auto; background: var(--card); margin-bottom: 16px; }
th, td { text-align: left; padding: 8px 10px; border-bottom: 1px solid var(--line); vertical-align: middle; }
th { font-size: 12px; text-transform: uppercase; letter-spacing: .4px; color: var(--muted); font-weight: 600; background: #fafbfc; white-space: nowrap; }
tr:last-child td { border-bottom: none; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.grid4 { display: grid; grid-template-columns: repeat(4, minmax(0, 1fr)); gap: 12px; margin-top: 8px; }
@media (max-width: 1100px) { .grid4 { grid-template-columns: repeat(2, minmax(0, 1fr)); } }
.big { font-size: 17px; font-weight: 600; font-variant-numeric: tabular-nums; }
.big .muted { font-size: 12px; font-weight: 400; }
.nowrap { white-space: nowrap; }
.two { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
fieldset.card { margin: 0 0 12px; }
table.compact td, table.compact th { padding: 7px 8px; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 600; white-space: nowrap; }
.pass, .better, .ok { background: var(--good-bg); color: var(--good); }
.fail, .worse, .firing { background: var(--bad-bg); color: var(--bad); }
.error, .not_run, .pending { background: var(--warn-bg); color: var(--warn); }
.neutral, .inactive, .disabled { background: #eef0f4; color: var(--muted); }
.up { color: var(--good); } .down { color: var(--bad); }
form.filters, .filters { display: flex; flex-wrap: wrap; gap: 10px; align-items: flex-end; margin-bottom: 16px; }
.filters label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); gap: 2px; }
input, select, textarea, button { font: inherit; }
input, select { padding: 5px 8px; border: 1px solid var(--line); border-radius: 5px; background: #fff; min-width: 120px; }
textarea { width: 100%; min-height: 220px; font: 12px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; border: 1px solid var(--line); border-radius: 5px; padding: 8px; }
button, .button { background: var(--accent); color: #fff; border: none; border-radius: 5px; padding: 6px 12px; cursor: pointer; display: inline-block; }
button.secondary { background: #eef0f4; color: var(--fg); border: 1px solid var(--line); }
.seg a { display: inline-block; padding: 3px 10px; border: 1px solid var(--line); background: #fff; margin-right: -1px; color: var(--fg); }
.seg a.active { background: var(--accent); color: #fff; border-color: var(--accent); }
.firing-list { border-left: 4px solid var(--bad); }
.quiet { border-left: 4px solid var(--good); }
figure.chart { margin: 0; }
figure.chart svg { display: block; max-width: 100%; height: auto; }
svg text { font: 11px system-ui, "DejaVu Sans", sans-serif; fill: var(--muted); }
svg text.label { fill: var(--fg); font-size: 12px; }
svg text.small { font-size: 9px; }
svg text.empty { font-size: 13px; }
svg .grid { stroke: #e6e9ef; stroke-width: 1; }
svg .axis { stroke: #8a93a5; stroke-width: 1; }
svg .line { fill: none; stroke-width: 2; }
svg .band { fill-opacity: .15; stroke: none; }
svg .bar { fill-opacity: .85; }
svg .spark { fill: none; stroke: var(--accent); stroke-width: 1.5; }
svg .spark-dot, svg .spark-last { fill: var(--accent); }
svg .spark-base { stroke: #e6e9ef; }
svg .ci { stroke-width: 2; }
.legend { display: flex; flex-wrap: wrap; gap: 14px; font-size: 12px; margin-top: 6px; }
.legend span { display: inline-flex; gap: 5px; align-items: center; }
.turn { border: 1px solid var(--line); border-radius: 8px; background: #fff; margin-bottom: 10px; overflow: hidden; }
.turn > .role { font-size: 11px; text-transform: uppercase; letter-spacing: .5px; font-weight: 700; padding: 4px 12px; background: #f1f3f7; color: var(--muted); display: flex; justify-content: space-between; }
.turn.user > .role { background: #e8f1fb; color: #0b4f84; }
.turn.assistant > .role { background: #eef7ef; color: #1a5e2b; }
.turn.system > .role { background: #f3eefa; color: #5b3d86; }
.turn.tool > .role { background: #fff6e5; color: #7a5200; }
.turn.tool.failed { border-color: var(--bad); }
.turn.tool.failed > .role { background: var(--bad-bg); color: var(--bad); }
.turn.final { border: 2px solid var(--good); }
.turn pre, pre.code { margin: 0; padding: 10px 12px; white-space: pre-wrap; word-break: break-word; font: 13px/1.45 ui-monospace, "DejaVu Sans Mono", monospace; }
.turn .text { padding: 10px 12px; white-space: pre-wrap; word-break: break-word; }
.call { margin: 0 12px 10px; border: 1px dashed #b9c2d3; border-radius: 6px; }
.call .name { font: 600 12px ui-monospace, "DejaVu Sans Mono", monospace; padding: 4px 8px; background: #f7f8fa; }
pre.code { background: #f7f8fa; border: 1px solid var(--line); border-radius: 6px; max-height: 420px; overflow: auto; }
.score { border-bottom: 1px solid var(--line); padding: 10px 0; }
.score:last-child { border-bottom: none; }
.score .head { display: flex; justify-content: space-between; gap: 8px; align-items: center; }
.score .expl { white-space: pre-wrap; word-break: break-word; margin-top: 4px; font-size: 13px; }
.sticky { position: sticky; top: 12px; max-height: calc(100vh - 24px); overflow: auto; }
.kv { display: grid; grid-template-columns: max-content 1fr; gap: 4px 14px; font-size: 13px; }
.kv dt { color: var(--muted); } .kv dd { margin: 0; word-break: break-all; }
.msg { padding: 8px 12px; border-radius: 6px; margin: 8px 0; }
.msg.ok { background: var(--good-bg); color: var(--good); } .msg.err { background: var(--bad-bg); color: var(--bad); }
.pager { display: flex; gap: 12px; margin-top: 8px; }
/* The explorer. */
.explorer .grow input { min-width: 320px; }
a.button.secondary { background: #eef0f4; color: var(--fg); border: 1px solid var(--line); }
td.badges .badge { margin: 1px 0; }
.login { max-width: 380px; margin: 80px auto; }
.login input { width: 100%; margin: 8px 0 12px; }
details > summary { cursor: pointer; color: var(--accent); }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.refresh { display: inline-flex; gap: 6px; align-items: center; }
.refresh select { min-width: 0; padding: 1px 4px; background: #2a3347; color: #fff; border-color: #56627a; }
.pipeline.behind { border-left: 4px solid var(--warn); }
.alert-on { margin-top: 4px; }
.alert-on > summary { list-style: none; padding: 3px 10px; font-size: 13px; white-space: nowrap; }
.alert-on > summary::-webkit-details-marker { display: none; }
.alert-on form { display: flex; flex-direction: column; gap: 6px; margin-top: 6px; min-width: 190px; font-size: 12px; color: var(--muted); }
.alert-on form label { display: flex; flex-direction: column; gap: 2px; }
.alert-on form input, .alert-on form select { min-width: 0; width: 100%; }
/* Narrow screens, down to 375 px: the page never scrolls sideways; wide tables scroll in their box. */
.card { overflow-x: auto; }
svg.sparkline, svg.chart { max-width: 100%; height: auto; }
h1 code { word-break: break-all; }
@media (max-width: 800px) {
  header.top { flex-wrap: wrap; gap: 6px 16px; padding: 8px 12px; }
  header.top nav { display: flex; flex-wrap: wrap; gap: 4px 14px; }
  header.top nav a { margin-right: 0; }
  header.top .who { margin-left: 0; flex-wrap: wrap; }
  main { padding: 14px 12px 32px; }
  .two { grid-template-columns: minmax(0, 1fr); }
  .sticky { position: static; max-height: none; }
  input, select { min-width: 0; }
}
@media (max-width: 480px) {
  .grid4 { grid-template-columns: minmax(0, 1fr); }
  .filters label { flex: 1 1 140px; }
}
`;

/** The tab's icon: a check mark on the header's colour. */
export const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1d2433"/><path d="M8 17l5 5 11-12" fill="none" stroke="#56B4E9" stroke-width="4" stroke-linecap="round" stroke-linejoin="round"/></svg>`;

export const SCRIPT = `
'use strict';
// Changes go to the JSON API as same-origin JSON (the only kind a cookie may carry).
async function send(method, url, body) {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' });
  if (res.ok) return res.status === 204 ? null : res.json();
  let text = res.status + ' ' + res.statusText;
  try { const e = await res.json(); if (e && e.error) text = e.error; } catch (_) {}
  throw new Error(text);
}
function show(el, ok, text, href, label) {
  const box = el.closest('[data-result-scope]')?.querySelector('[data-result]') ?? el.parentElement.querySelector('[data-result]');
  if (!box) return;
  box.className = 'msg ' + (ok ? 'ok' : 'err');
  box.textContent = text;
  if (href) { const a = document.createElement('a'); a.href = href; a.textContent = label || ' Open alerts'; box.appendChild(a); }
  box.hidden = false;
}
// A rule from the compare page notifies whoever its form names.
function target(type, to) {
  if (type === 'email') return { type, to };
  if (type === 'pagerduty') return { type, routing_key: to };
  return { type, url: to };
}
document.addEventListener('submit', async (ev) => {
  const form = ev.target.closest('form[data-create-rule]');
  if (!form) return;
  ev.preventDefault();
  const btn = form.querySelector('button');
  btn.disabled = true;
  try {
    const body = JSON.parse(form.getAttribute('data-rule'));
    body.notify = [target(form.elements.type.value, form.elements.target.value.trim())];
    const rule = await send('POST', '/api/v1/alert-rules', body);
    show(form, true, 'Alert rule "' + rule.name + '" created.', '/alerts#rule-' + encodeURIComponent(rule.id));
  } catch (e) { btn.disabled = false; show(form, false, 'Could not create the rule: ' + e.message); }
});
document.addEventListener('click', async (ev) => {
  const toggle = ev.target.closest('[data-put-rule]');
  if (toggle) {
    ev.preventDefault();
    toggle.disabled = true;
    try { await send('PUT', toggle.getAttribute('data-url'), JSON.parse(toggle.getAttribute('data-put-rule'))); location.reload(); }
    catch (e) { toggle.disabled = false; show(toggle, false, e.message); }
  }
});
document.addEventListener('submit', async (ev) => {
  const form = ev.target.closest('form[data-rule-form]');
  if (!form) return;
  ev.preventDefault();
  let body;
  try { body = JSON.parse(form.querySelector('textarea').value); } catch (e) { show(form, false, 'Not valid JSON: ' + e.message); return; }
  try { await send(form.getAttribute('data-method'), form.getAttribute('data-url'), body); location.assign('/alerts'); }
  catch (e) { show(form, false, e.message); }
});
` + DATASET_SCRIPT + PROBLEM_ACTIONS_SCRIPT;
