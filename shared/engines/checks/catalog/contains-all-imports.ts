import type { Node } from 'web-tree-sitter';
import { builtinEntry } from '../builtin-check.ts';
import { codeBlocks, guessLanguage } from '../lib/code-blocks.ts';
import { PYTHON_BUILTINS } from '../lib/python-builtins.ts';
import { parsePython } from '../lib/python-parser.ts';
import { errorOutcome, notRun, passFail } from '../outcome.ts';

/** Parsed in the scorer's thread (tree-sitter, linear): 100,000 characters take ~0.3 s on a loaded core, 290,000 took 3.6 s. */
const MAX_PARSED_CHARS = 100_000;


/** Pre-order, with a stack of its own: trace text nested 20,000 deep overflowed a recursive walk's stack in the scorer's thread. */
function walk(root: Node, visit: (n: Node) => void): void {
  const stack: Node[] = [root];
  for (let n = stack.pop(); n; n = stack.pop()) {
    visit(n);
    const children = n.namedChildren;
    for (let i = children.length - 1; i >= 0; i--) {
      const c = children[i];
      if (c) stack.push(c);
    }
  }
}

/** Names a module binds: imports (with aliases), definitions, assignments, parameters, loop and with targets. */
function boundNames(root: Node): { imported: Set<string>; defined: Set<string> } {
  const imported = new Set<string>();
  const defined = new Set<string>();
  walk(root, (n) => {
    if (n.type === 'import_statement' || n.type === 'import_from_statement') {
      for (const c of n.namedChildren) {
        // Nodes are fresh objects on each access: compare positions, not identity.
        if (!c || (n.type === 'import_from_statement' && c.startIndex === n.childForFieldName('module_name')?.startIndex)) continue;
        if (c.type === 'aliased_import') imported.add(c.childForFieldName('alias')?.text ?? '');
        else if (c.type === 'dotted_name') imported.add(c.namedChildren[0]?.text ?? c.text);
        else if (c.type === 'wildcard_import') imported.add('*');
      }
    } else if (n.type === 'function_definition' || n.type === 'class_definition') {
      defined.add(n.childForFieldName('name')?.text ?? '');
    } else if (n.type === 'assignment' || n.type === 'for_statement' || n.type === 'for_in_clause' || n.type === 'as_pattern' || n.type === 'with_item') {
      const target = n.childForFieldName('left') ?? n.childForFieldName('alias') ?? n.namedChildren.at(-1) ?? null;
      if (target) walk(target, (t) => t.type === 'identifier' && defined.add(t.text));
    } else if (n.type === 'named_expression' || n.type === 'as_pattern_target') {
      // `(x := f())`; the target of `except E as err` and `with f() as fh`
      const target = n.childForFieldName('name') ?? n;
      walk(target, (t) => t.type === 'identifier' && defined.add(t.text));
    } else if (n.type === 'parameters' || n.type === 'lambda_parameters' || n.type === 'global_statement') {
      walk(n, (t) => t.type === 'identifier' && defined.add(t.text));
    }
  });
  return { imported, defined };
}

/** Every call's base name: `sqrt(4)` → sqrt, `json.dumps(x)` → json, `a.b.c()` → a; with its first line. */
function calledNames(root: Node): Map<string, number> {
  const used = new Map<string, number>();
  walk(root, (n) => {
    if (n.type !== 'call') return;
    let fn = n.childForFieldName('function');
    if (fn?.type === 'identifier') {
      if (!used.has(fn.text)) used.set(fn.text, fn.startPosition.row + 1);
      return;
    }
    while (fn?.type === 'attribute') {
      const obj: Node | null = fn.childForFieldName('object');
      if (obj?.type === 'identifier') {
        if (!used.has(obj.text)) used.set(obj.text, obj.startPosition.row + 1);
        return;
      }
      fn = obj;
    }
  });
  return used;
}

/** Python: every name the code calls (`sqrt(4)`, `json.dumps(…)`) is imported, defined in the code, or a builtin. */
export const containsAllImports = builtinEntry(
  {
    kind: 'builtin',
    name: 'contains_all_imports',
    description:
      'Python: passes when every call in the code resolves: a bare name (`sqrt(4)`, `defaultdict(list)`) or the base of an attribute call (`json.dumps(...)`) is imported, defined in the code (function, class, assignment, parameter, loop or with target) or a Python builtin. Parsed with tree-sitter-python; `from x import *` satisfies everything.',
    outputType: 'pass_fail',
    implementationVersion: '2',
  },
  ['model_output'],
  async (input) => {
    if (!input.model_output?.trim()) return notRun('deterministic', 'the unit has no final output (model_output)');
    const blocks = codeBlocks(input.model_output).filter((b) => b.language === 'python' || (b.language === 'unknown' && guessLanguage(b.code) === 'python'));
    if (blocks.length === 0) return notRun('deterministic', 'the output has no Python code');
    const code = blocks.map((b) => b.code).join('\n');
    if (code.length > MAX_PARSED_CHARS) return errorOutcome('deterministic', `the Python code has ${code.length} characters, more than the ${MAX_PARSED_CHARS} that are parsed`);
    const tree = await parsePython(code);
    const { imported, defined } = boundNames(tree.rootNode);
    if (imported.has('*')) return passFail(true, 'deterministic', 'a wildcard import may provide every name');
    const missing = [...calledNames(tree.rootNode)].filter(([name]) => !imported.has(name) && !defined.has(name) && !PYTHON_BUILTINS.has(name));
    if (missing.length === 0) return passFail(true, 'deterministic', `every called name is imported, defined or a builtin (imports: ${[...imported].join(', ') || 'none'})`);
    return passFail(false, 'deterministic', `not imported: ${missing.map(([n, line]) => `${n} (line ${line})`).join(', ')}`);
  },
);
