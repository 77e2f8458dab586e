// ESLint rule: the dependency direction of the tree, checked on resolved paths (so a deep relative
// path such as `../../../model-server/src/x.ts` is caught as well as a bare folder name).
//
//   cli/            the composition root: may import anything
//   services/<s>/   a pipeline stage: itself and shared/ only
//   tools/<t>/      an offline tool: itself and shared/ only
//   shared/<kind>/<m>/  library code: shared/ only, and of shared/ only its own kind and the kinds
//                       below it: runtime < contracts < adapters < engines < kit (shared/README.md)
//   shared/engines/checks/  pure: itself, shared/contracts/schemas, and an allow-list of packages
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const PURE_PACKAGES = new Set(['node:crypto', 'ajv', 'fastest-levenshtein', 'web-tree-sitter', 'tree-sitter-python', 'typescript', 'node:module', 'vitest']);
// Test tools that tests beside pure code may use (never the code itself).
const TEST_PACKAGES = new Set(['fast-check']);

// The kinds of shared/, lowest first: a kind imports only itself and the kinds before it.
const SHARED_KINDS = ['runtime', 'contracts', 'adapters', 'engines', 'kit'];

/** `services/collector/src/x.ts` → { top: 'services', name: 'collector' }, `shared/engines/checks/x.ts` →
 *  { top: 'shared', name: 'engines/checks', kind: 'engines' }; null outside the zones. */
function zoneOf(absPath) {
  const rel = path.relative(ROOT, absPath).split(path.sep);
  if (rel[0] === '..' || rel.length < 2) return null;
  const [top, name] = rel;
  if (top === 'shared') return { top, name: rel.length > 2 ? `${name}/${rel[2]}` : name, kind: name };
  if (top === 'services' || top === 'tools') return { top, name };
  if (top === 'cli') return { top, name: '' };
  return { top: 'other', name: top };
}

function violation(from, target, spec) {
  const isRelative = spec.startsWith('.') || spec.startsWith('/');
  if (from.top === 'shared' && from.name === 'engines/checks') {
    if (from.testing && target.top === 'other' && target.name === 'test') return null;
    if (!isRelative) return PURE_PACKAGES.has(spec) || (from.testing && TEST_PACKAGES.has(spec)) ? null : `shared/engines/checks is pure: package "${spec}" is not on its allow-list`;
    if (target.top === 'shared' && (target.name === 'engines/checks' || target.name === 'contracts/schemas')) return null;
    return 'shared/engines/checks is pure: it imports only shared/engines/checks and shared/contracts/schemas';
  }
  if (!isRelative) return null;
  if (from.testing && target.top === 'other' && target.name === 'test') return null;
  if (from.top === 'shared') {
    if (target.top !== 'shared') return 'shared/ imports only shared/';
    const mine = SHARED_KINDS.indexOf(from.kind);
    const theirs = SHARED_KINDS.indexOf(target.kind);
    if (mine < 0 || theirs < 0) return `shared/ holds only the kinds ${SHARED_KINDS.join(', ')} (shared/README.md)`;
    return theirs <= mine ? null : `shared/${from.kind} imports only its own kind and the kinds below it (${SHARED_KINDS.slice(0, mine + 1).join(' < ')})`;
  }
  if (from.top === 'services' || from.top === 'tools') {
    if (target.top === 'shared') return null;
    if (target.top === from.top && target.name === from.name) return null;
    return `${from.top}/${from.name} imports only itself and shared/ (the cli composes services and tools)`;
  }
  return null;
}

const rule = {
  meta: { type: 'problem', schema: [], docs: { description: 'Imports follow the tree: cli → services | tools → shared; shared/ by kind; shared/engines/checks stays pure.' } },
  create(context) {
    const file = context.filename;
    const from = zoneOf(file);
    if (!from || from.top === 'cli' || from.top === 'other') return {};
    // Tests and test support beside the code may use the shared test helpers under test/.
    from.testing = /\.test\.ts$/.test(file) || file.split(path.sep).includes('testing');
    const check = (node) => {
      if (!node.source || typeof node.source.value !== 'string') return;
      const spec = node.source.value;
      const isRelative = spec.startsWith('.') || spec.startsWith('/');
      const target = isRelative ? zoneOf(path.resolve(path.dirname(file), spec)) ?? { top: 'outside', name: '' } : { top: 'package', name: spec };
      const message = violation(from, target, spec);
      if (message) context.report({ node: node.source, message: `${message}: "${spec}"` });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: (node) => check({ source: node.source }) };
  },
};

export const boundaries = { rules: { boundaries: rule } };
