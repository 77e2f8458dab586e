// Writes bench/data/eval-subset/: every k-th record (8 per file) of the labelled conversations in
// ../shared/eval-data, so that `npm run bench:checks` runs in any clone. Deterministic: the same
// input gives the same files. `node bin/run-ts.mjs bench/data/make-eval-subset.ts [SOURCE_DIR]`.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const PER_FILE = 8;
const source = resolve(process.argv[2] ?? join(import.meta.dirname, '..', '..', '..', 'shared', 'eval-data'));
const out = join(import.meta.dirname, 'eval-subset');
mkdirSync(out, { recursive: true });

for (const file of readdirSync(source).filter((f) => f.endsWith('.jsonl')).sort()) {
  const lines = readFileSync(join(source, file), 'utf8').split('\n').filter((l) => l.trim());
  const stride = Math.ceil(lines.length / PER_FILE);
  const picked = lines.filter((_, i) => i % stride === 0);
  writeFileSync(join(out, file), `${picked.join('\n')}\n`);
  console.log(`${file}: ${picked.length} of ${lines.length} records (every ${stride}th)`);
}
