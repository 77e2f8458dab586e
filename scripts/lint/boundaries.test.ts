import path from 'node:path';
import { Linter } from 'eslint';
import { describe, expect, it } from 'vitest';
import { boundaries } from './boundaries.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

function lint(file: string, source: string): string[] {
  const linter = new Linter({ configType: 'flat' });
  const messages = linter.verify(
    source,
    [{ files: ['**/*.ts'], plugins: { tracecheck: boundaries }, rules: { 'tracecheck/boundaries': 'error' }, languageOptions: { sourceType: 'module' } }],
    { filename: path.join(ROOT, file) },
  );
  return messages.map((m) => m.message);
}

describe('the boundaries lint rule', () => {
  it('catches a service reaching into a tool by a deep relative path', () => {
    expect(lint('services/collector/src/http/x.ts', "import { a } from '../../../../tools/model-server/src/index.ts';")).toEqual([
      'services/collector imports only itself and shared/ (the cli composes services and tools): "../../../../tools/model-server/src/index.ts"',
    ]);
  });

  it('catches one service importing another, and a re-export', () => {
    expect(lint('services/api/src/x.ts', "export { b } from '../../scorer/src/index.ts';")).toHaveLength(1);
  });

  it('lets a service import itself and shared/', () => {
    expect(lint('services/api/src/x.ts', "import { a } from './y.ts'; import { s } from '../../../shared/adapters/store/index.ts';")).toEqual([]);
  });

  it('keeps shared/ from importing services, tools or the cli', () => {
    expect(lint('shared/adapters/store/x.ts', "import { a } from '../../../cli/main.ts';")).toEqual(['shared/ imports only shared/: "../../../cli/main.ts"']);
  });

  it('lets a kind of shared/ import itself and the kinds below it, never those above', () => {
    expect(lint('shared/adapters/store/x.ts', "import { a } from '../bus/index.ts'; import { b } from '../../contracts/schemas/index.ts'; import { c } from '../../runtime/errors/index.ts';")).toEqual([]);
    expect(lint('shared/runtime/flow/x.ts', "import { a } from '../../kit/stage/index.ts';")).toEqual([
      'shared/runtime imports only its own kind and the kinds below it (runtime): "../../kit/stage/index.ts"',
    ]);
    expect(lint('shared/adapters/bus/x.ts', "import { a } from '../../engines/checks/index.ts';")).toEqual([
      'shared/adapters imports only its own kind and the kinds below it (runtime < contracts < adapters): "../../engines/checks/index.ts"',
    ]);
  });

  it('keeps shared/engines/checks pure by allow-list: shared/engines/judge and openai are refused', () => {
    expect(lint('shared/engines/checks/x.ts', "import { j } from '../judge/index.ts'; import OpenAI from 'openai'; import { s } from '../../contracts/schemas/index.ts';")).toEqual([
      'shared/engines/checks is pure: it imports only shared/engines/checks and shared/contracts/schemas: "../judge/index.ts"',
      'shared/engines/checks is pure: package "openai" is not on its allow-list: "openai"',
    ]);
  });

  it('lets tests beside shared/engines/checks use fast-check, and the checks themselves not', () => {
    expect(lint('shared/engines/checks/x.test.ts', "import fc from 'fast-check';")).toEqual([]);
    expect(lint('shared/engines/checks/x.ts', "import fc from 'fast-check';")).toEqual(['shared/engines/checks is pure: package "fast-check" is not on its allow-list: "fast-check"']);
  });

  it('leaves the cli free to compose', () => {
    expect(lint('cli/commands/x.ts', "import { a } from '../../tools/eval/src/index.ts'; import { b } from '../../services/api/src/index.ts';")).toEqual([]);
  });
});
