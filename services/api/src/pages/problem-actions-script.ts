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
    else if (kind === 'alert-rule') show(btn, true, 'Alert rule "' + made.name + '" created.', '/alerts#rule-' + encodeURIComponent(made.id));
    else {
      const a = made.try.new_agrees;
      const rate = a.total === 0 ? 'no labelled unit could be scored' : a.successes + '/' + a.total + ' labelled units agree (' + (100 * a.successes / a.total).toFixed(1) + '%)';
      show(btn, true, 'Proposed check ' + made.definition.name + ': ' + rate + '. Labels: ' + made.labels.in_problem + ' in the problem, ' + made.labels.reviewed + ' reviewed, ' + made.labels.contrast + ' that failed nothing.');
      const box = btn.closest('[data-problem-actions]').querySelector('[data-proposal]');
      box.querySelector('[data-proposal-code]').textContent = made.definition.generated_code;
      box.querySelector('[data-save-proposal]').setAttribute('data-definition', JSON.stringify(made.definition));
      box.hidden = false;
      btn.disabled = false;
    }
  } catch (e) { btn.disabled = false; show(btn, false, e.message); }
});
document.addEventListener('click', async (ev) => {
  const save = ev.target.closest('button[data-save-proposal]');
  if (!save) return;
  ev.preventDefault();
  save.disabled = true;
  try {
    const saved = await send('POST', '/api/v1/checks', JSON.parse(save.getAttribute('data-definition')));
    show(save, true, 'Saved: check ' + saved.name + ' version ' + saved.version + '.', '/checks/' + encodeURIComponent(saved.name), ' Open the check');
  } catch (e) { save.disabled = false; show(save, false, e.message); }
});
`;
