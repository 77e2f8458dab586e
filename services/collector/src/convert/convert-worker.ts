// A conversion worker (worker_threads): receives { id, job } with the body transferred, answers
// { id, outcome } with the records' text transferred. Started by convert-pool.ts with the redaction settings as workerData.
import { parentPort, workerData } from 'node:worker_threads';
import { createRedactor } from '../redact/redactor.ts';
import { compileRules } from '../redact/rules.ts';
import type { RedactionWorkerData } from './convert-pool.ts';
import { convertExport, type ConvertJob } from './convert-export.ts';

const data = workerData as RedactionWorkerData;
let found: Record<string, number> = {};
const redactor = data.redaction
  ? createRedactor({
      mode: data.redaction.mode,
      rules: compileRules(data.redaction.rules),
      key: data.redaction.key,
      onFound: (rule) => {
        found[rule] = (found[rule] ?? 0) + 1;
      },
    })
  : undefined;
const take = (): Record<string, number> => {
  const taken = found;
  found = {};
  return taken;
};

parentPort?.on('message', (message: { id: number; job: ConvertJob }) => {
  const outcome = convertExport(message.job, redactor ? { redactor } : {}, take);
  parentPort?.postMessage({ id: message.id, outcome }, outcome.kind === 'converted' ? [outcome.text.buffer as ArrayBuffer, outcome.ends.buffer as ArrayBuffer] : []);
});
// Modules loaded: the pool may count on this worker (ConvertPool.start).
parentPort?.postMessage({ ready: true });
