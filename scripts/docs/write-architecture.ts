// `npm run docs:architecture`: rewrites the README's architecture picture from cli/topology.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { topicsFor } from '../../shared/adapters/bus/index.ts';
import { TOPOLOGY } from '../../cli/topology.ts';
import { renderArchitecture, withArchitecture } from './architecture.ts';

const readme = join(import.meta.dirname, '..', '..', 'README.md');
const before = readFileSync(readme, 'utf8');
const after = withArchitecture(before, renderArchitecture(TOPOLOGY, topicsFor('tracecheck')));
if (after !== before) writeFileSync(readme, after);
console.log(after === before ? 'README.md: the architecture picture is current' : 'README.md: architecture picture rewritten');
