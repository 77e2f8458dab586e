import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunResult } from '../result-types.ts';
import { renderHtml } from './render-html.ts';
import { llmevalReportFiles, renderLlmevalReportFile } from './llmeval-report.ts';
import { renderLlmevalTable } from './llmeval-table.ts';
import { renderMarkdown } from './render-markdown.ts';
import { renderYamlReport } from './render-yaml.ts';
import { buildTables } from './table.ts';

export interface ReportPaths {
  yaml: string;
  json: string;
  markdown: string;
  html: string;
  /** llmeval's shapes, beside ours: report-<n>.yaml per prompt × variant × try, and its table. */
  llmeval: string;
}

async function writeAtomic(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, path);
}

/** Writes report.{yaml,json,md,html} and llmeval/ (llmeval's shapes) into the run folder; JSON last, as `eval report` reads it. */
export async function writeReports(run: RunResult, runDir: string): Promise<ReportPaths> {
  await mkdir(runDir, { recursive: true });
  const tables = buildTables([run]);
  const paths: ReportPaths = {
    yaml: join(runDir, 'report.yaml'),
    json: join(runDir, 'report.json'),
    markdown: join(runDir, 'report.md'),
    html: join(runDir, 'report.html'),
    llmeval: join(runDir, 'llmeval'),
  };
  await mkdir(paths.llmeval, { recursive: true });
  const files = llmevalReportFiles(run);
  for (const [i, f] of files.entries()) await writeAtomic(join(paths.llmeval, `report-${i}.yaml`), renderLlmevalReportFile(f));
  await writeAtomic(join(paths.llmeval, 'report.md'), renderLlmevalTable(run));
  await writeAtomic(paths.yaml, renderYamlReport(run));
  await writeAtomic(paths.markdown, renderMarkdown([run], tables));
  await writeAtomic(paths.html, renderHtml([run], tables));
  await writeAtomic(paths.json, `${JSON.stringify(run, null, 2)}\n`);
  return paths;
}
