import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodeCheck } from '../../../shared/engines/checks/index.ts';
import type { CodeRunner, CodeRunRequest } from '../../../shared/engines/checks/contract.ts';
import { createContentRefFetcher, withFetchedDialog } from '../../../shared/kit/content-refs/index.ts';
import { loadConfig } from '../../../shared/runtime/config/index.ts';
import { scoreUnit, type ScoreUnitDeps } from '../../../services/scorer/src/score-unit.ts';
import { createTestUnit } from '../../helpers/unit-factory.ts';

// A unit whose messages were uploaded (GenAI conventions' JSON, as opentelemetry-util-genai's
// upload hook writes it) is scored with the dialog read back from an allowed directory; a
// reference outside it leaves the checks not_run, the reason saying why.

let dir: string;
let deps: Pick<ScoreUnitDeps, 'fetchDialog'>;
const SYSTEM = [{ type: 'text', content: 'You are a weather assistant.' }];
const INPUT = [{ role: 'user', parts: [{ type: 'text', content: 'What is the weather in Paris?' }] }];
const OUTPUT = [{ role: 'assistant', parts: [{ type: 'text', content: 'It is sunny in Paris, 22 °C.' }], finish_reason: 'stop' }];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'scored-refs-'));
  mkdirSync(join(dir, 'uploads'));
  writeFileSync(join(dir, 'uploads', 'system.json'), JSON.stringify(SYSTEM));
  writeFileSync(join(dir, 'uploads', 'input.json'), JSON.stringify(INPUT));
  writeFileSync(join(dir, 'uploads', 'output.json'), JSON.stringify(OUTPUT));
  writeFileSync(join(dir, 'elsewhere.json'), JSON.stringify(OUTPUT));
  const fetchRef = createContentRefFetcher(loadConfig({ TRACECHECK_CONTENT_REF_ALLOW: pathToFileURL(join(dir, 'uploads')).href }).contentRefs)!;
  deps = { fetchDialog: (unit) => withFetchedDialog(unit, fetchRef) };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const uri = (name: string): string => pathToFileURL(join(dir, name)).href;
const refUnit = (output: string) => createTestUnit(1, { message_history: [], model_input: [], model_output: null, content_refs: [{ span_id: 'a1', system: uri('uploads/system.json'), input: uri('uploads/input.json'), output }] });

describe('a unit whose messages arrived by reference, with fetching allowed', () => {
  const check = createCodeCheck({ kind: 'code', name: 'says_sunny', description: 'd', outputType: 'pass_fail', language: 'python', source: 'def evaluate(model_output):\n    return "sunny" in model_output\n' });

  it('is scored on the dialog read back', async () => {
    const seen: CodeRunRequest[] = [];
    const codeRunner: CodeRunner = { evaluate: (request) => (seen.push(request), Promise.resolve({ ok: true, value: true })) };
    const [score] = await scoreUnit(refUnit(uri('uploads/output.json')), { checks: [check], judge: null, judgeUnavailableReason: null, nowMs: () => 1, codeRunner, ...deps });
    expect([score.status, score.value, score.error ?? null]).toEqual(['ok', 1, null]);
    expect(JSON.stringify(seen[0])).toContain('It is sunny in Paris, 22 °C.');
    const filled = await deps.fetchDialog!(refUnit(uri('uploads/output.json')));
    expect('unit' in filled && [filled.unit.model_input, filled.unit.model_output, filled.unit.message_history.length]).toEqual([
      [{ role: 'system', content: 'You are a weather assistant.' }, { role: 'user', content: 'What is the weather in Paris?' }],
      'It is sunny in Paris, 22 °C.',
      3,
    ]);
  });

  it('is not_run, saying why, when a reference lies outside the allowed prefixes', async () => {
    const codeRunner: CodeRunner = { evaluate: () => Promise.reject(new Error('must not run')) };
    const outside = `${uri('uploads')}/../elsewhere.json`;
    const [score] = await scoreUnit(refUnit(outside), { checks: [check], judge: null, judgeUnavailableReason: null, nowMs: () => 1, codeRunner, ...deps });
    expect([score.status, score.error]).toEqual([
      'not_run',
      `the unit's messages were recorded by reference (1 model call, e.g. ${uri('uploads/input.json')}), not as text: there is no dialog to check; fetching it failed: ${outside} is not under a prefix of TRACECHECK_CONTENT_REF_ALLOW`,
    ]);
  });
});
