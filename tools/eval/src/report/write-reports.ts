import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunResult } from '../result-types.ts';
import { renderHtml } from './render-html.ts';
import { stringify } from 'yaml';
import { llmevalJobs, renderLlmevalReportFile } from './llmeval-report.ts';
import { renderLlmevalTable } from './llmeval-table.ts';
import { renderMarkdown } from './render-markdown.ts';
import { renderYamlReport } from './render-yaml.ts';
import { buildTables } from './table.ts';

export interface ReportPaths {
  yaml: string;
  json: string;
  markdown: string;
  html: string;
  /**
   * llmeval's shapes, where llmeval writes them: `multiruns/<date>/<time>/` beside the suite, with
   * `multirun.yaml`, a folder per job (prompt × variant) holding `report-<try>.yaml`, and `report.md`.
   */
  llmeval: string;
}

const two = (n: number): string => String(n).padStart(2, '0');

/** Hydra's sweep folder for a run started at `iso`: `<YYYY-MM-DD>/<HH-MM-SS>` in local time, as Hydra names it. */
export function multirunFolder(iso: string): string {
  const d = new Date(iso);
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}/${two(d.getHours())}-${two(d.getMinutes())}-${two(d.getSeconds())}`;
}

async function writeAtomic(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, path);
}

/**
 * Writes report.{yaml,json,md,html} into the run folder (JSON last, as `eval report` reads it) and
 * llmeval's shapes under `<suiteDir>/multiruns/`.
 */
export async function writeReports(run: RunResult, runDir: string, suiteDir: string): Promise<ReportPaths> {
  await mkdir(runDir, { recursive: true });
  const tables = buildTables([run]);
  const paths: ReportPaths = {
    yaml: join(runDir, 'report.yaml'),
    json: join(runDir, 'report.json'),
    markdown: join(runDir, 'report.md'),
    html: join(runDir, 'report.html'),
    llmeval: join(suiteDir, 'multiruns', multirunFolder(run.startedAt)),
  };
  await mkdir(paths.llmeval, { recursive: true });
  await writeAtomic(join(paths.llmeval, 'multirun.yaml'), stringify(run.config, { lineWidth: 0 }));
  for (const [job, files] of llmevalJobs(run).entries()) {
    await mkdir(join(paths.llmeval, String(job)), { recursive: true });
    for (const [t, f] of files.entries()) await writeAtomic(join(paths.llmeval, String(job), `report-${t}.yaml`), renderLlmevalReportFile(f));
  }
  await writeAtomic(join(paths.llmeval, 'report.md'), renderLlmevalTable(run));
  await writeAtomic(paths.yaml, renderYamlReport(run));
  await writeAtomic(paths.markdown, renderMarkdown([run], tables));
  await writeAtomic(paths.html, renderHtml([run], tables));
  await writeAtomic(paths.json, `${JSON.stringify(run, null, 2)}\n`);
  return paths;
}
