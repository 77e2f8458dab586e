import { h, type Html } from './html.ts';

// "Add to dataset" on pages that list failing units: a checkbox per unit (or per group of units),
// and one form that sends the checked units to POST /api/v1/datasets (handled by DATASET_SCRIPT).

/** A checkbox selecting one unit, labelled for screen readers. */
export function unitCheckbox(unitId: string): Html {
  return h`<input type="checkbox" data-unit-select value="${unitId}" aria-label="select unit ${unitId}">`;
}

/** A checkbox selecting several units at once (e.g. a check's failing units on the compare page). */
export function unitsCheckbox(unitIds: readonly string[], shown: string, label: string): Html {
  return h`<span class="nowrap"><input type="checkbox" data-unit-select data-unit-ids="${JSON.stringify(unitIds)}" aria-label="${label}"> <span class="muted">${shown}</span></span>`;
}

/** The form: a dataset name and a submit button; it adds the checked units of the enclosing `[data-dataset-scope]`. */
export function addToDatasetForm(): Html {
  return h`<form class="filters" data-dataset-form data-result-scope><label>dataset<input name="dataset" required maxlength="100" placeholder="name, e.g. v2-failures" data-dataset-name></label><button type="submit" data-add-to-dataset>Add selected units to dataset</button><div data-result hidden></div></form>`;
}

export const DATASET_SCRIPT = `
document.addEventListener('submit', async (ev) => {
  const form = ev.target.closest('form[data-dataset-form]');
  if (!form) return;
  ev.preventDefault();
  const scope = form.closest('[data-dataset-scope]') ?? document;
  const ids = [];
  for (const box of scope.querySelectorAll('input[data-unit-select]:checked')) {
    const many = box.getAttribute('data-unit-ids');
    if (many) { try { ids.push(...JSON.parse(many)); } catch (_) {} } else ids.push(box.value);
  }
  const unique = [...new Set(ids)];
  if (unique.length === 0) { show(form, false, 'Select at least one unit first.'); return; }
  const name = form.querySelector('[data-dataset-name]').value.trim();
  const button = form.querySelector('button[type=submit]');
  button.disabled = true;
  try {
    const d = await send('POST', '/api/v1/datasets', { name, unit_ids: unique });
    show(form, true, 'Dataset ' + d.name + ' version ' + d.version + ': ' + d.units + ' units.');
  } catch (e) { show(form, false, 'Could not add to the dataset: ' + e.message); }
  finally { button.disabled = false; button.focus(); }
});
`;
