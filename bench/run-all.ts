// `npm run bench`: every benchmark, one after another (they measure one core each, so never in
// parallel). Each appends its figures to bench/results/<name>.md.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
let failed = false;
for (const name of ['collector', 'checks']) {
  console.log(`\n== bench:${name} ==`);
  const r = spawnSync(process.execPath, [join(root, 'bin', 'run-ts.mjs'), join(root, 'bench', `${name}.ts`), ...process.argv.slice(2)], { stdio: 'inherit', cwd: root });
  if (r.status !== 0) {
    console.error(`bench:${name} exited with ${r.status}`);
    failed = true;
  }
}
process.exitCode = failed ? 1 : 0;
