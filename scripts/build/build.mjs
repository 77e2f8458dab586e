#!/usr/bin/env node
// `npm run build`: a clean dist/ from tsc (tsconfig.build.json), plus the files tsc does not emit:
// the generated protobufjs modules (JavaScript with a .d.ts beside, so tsc only reads the .d.ts).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
if (r.status !== 0) process.exit(r.status ?? 1);

for (const service of readdirSync(join(root, 'services'))) {
  const dir = join('services', service, 'src', 'generated');
  if (!existsSync(join(root, dir))) continue;
  for (const file of readdirSync(join(root, dir)).filter((f) => f.endsWith('.js'))) cpSync(join(root, dir, file), join(dist, dir, file));
}
process.stdout.write('built dist/\n');
