import { stringify } from 'yaml';
import { toLlmevalTests, type Dataset } from './dataset.ts';

// A dataset as an llmeval suite that `tracecheck eval DIR/llmeval.yaml` runs as written: the
// layout llmeval's docs draw (llmeval.yaml, prompts/NAME.yaml, tests/NAME.yaml), the units'
// questions asked again and scored by the checks people reviewed on them.

export interface SuiteFile {
  /** Relative to the suite's folder. */
  path: string;
  text: string;
}

/** The checks people reviewed on the dataset's units, in first-seen order, that `isCheck` knows. */
export function reviewedChecks(d: Dataset, isCheck: (name: string) => boolean): string[] {
  const names = d.items.flatMap((i) => i.verdicts.map((v) => v.check));
  return [...new Set(names)].filter(isCheck);
}

/**
 * The suite's files. `model` answers each question (the judge's endpoint, OPENAI_BASE_URL, as
 * `tracecheck eval` uses it); `checks` score the answers (a non-empty answer when there are none).
 */
export function toLlmevalSuite(d: Dataset, model: string, checks: readonly string[]): SuiteFile[] {
  const main = [
    `# The units of dataset ${d.name}@${d.version} (project ${d.project}), exported by tracecheck datasets export.`,
    `# Run it: tracecheck eval llmeval.yaml (exit 1 when a reference fails).`,
    stringify({ prompts: 'prompts/*.yaml', output: '.tracecheck/runs', cache: false }, { lineWidth: 0 }),
  ].join('\n');
  const prompt = {
    name: d.name,
    model,
    prompt: '{question}',
    defaults: [`../tests/${d.name}`],
    metrics: checks.length > 0 ? [...checks] : [{ name: 'answered', pass: 'len(actual) > 0' }],
  };
  return [
    { path: 'llmeval.yaml', text: main },
    { path: `prompts/${d.name}.yaml`, text: `# Each unit's last user message, asked again; the references are in ../tests/${d.name}.yaml.\n${stringify(prompt, { lineWidth: 0 })}` },
    { path: `tests/${d.name}.yaml`, text: toLlmevalTests(d) },
  ];
}
