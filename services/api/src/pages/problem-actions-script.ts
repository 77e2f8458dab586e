// A problem's page: each action button posts to its route and says what it made, with a link to it.
export const PROBLEM_ACTIONS_SCRIPT = `
document.addEventListener('click', async (ev) => {
  const btn = ev.target.closest('button[data-problem-action]');
  if (!btn) return;
  ev.preventDefault();
  btn.disabled = true;
  try {
    const made = await send('POST', btn.getAttribute('data-url'), {});
    const kind = btn.getAttribute('data-problem-action');
    if (kind === 'queue') show(btn, true, 'Review queue "' + made.name + '" created with ' + made.unit_ids.length + ' units.', '/review/' + encodeURIComponent(made.id), ' Open the queue');
    else if (kind === 'dataset') show(btn, true, 'Dataset ' + made.name + ' version ' + made.version + ': ' + made.units + ' units.');
    else show(btn, true, 'Alert rule "' + made.name + '" created.', '/alerts#rule-' + encodeURIComponent(made.id));
  } catch (e) { btn.disabled = false; show(btn, false, e.message); }
});
`;
