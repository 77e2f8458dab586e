import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unresolvedDependencies, type PackageLock } from './unresolved.ts';

const root = join(import.meta.dirname, '..', '..');
const readLock = (path: string) => JSON.parse(readFileSync(join(root, path), 'utf8')) as PackageLock;

describe('unresolvedDependencies', () => {
  it('resolves nested first, then up the tree, and names what has no entry', () => {
    const lock: PackageLock = {
      packages: {
        '': { dependencies: { a: '1' } },
        'node_modules/a': { dependencies: { b: '1' }, optionalDependencies: { 'a-darwin-arm64': '1', 'a-linux-x64': '1' } },
        'node_modules/a/node_modules/b': { dependencies: { c: '1' } },
        'node_modules/c': {},
        'node_modules/a-linux-x64': {},
      },
    };
    expect(unresolvedDependencies(lock)).toEqual(['node_modules/a -> a-darwin-arm64']);
  });

  // Every platform's native bindings (DuckDB, rollup, esbuild, oxc) are in the lock, so that
  // `npm ci` works on Linux (glibc and musl, x64 and arm64), macOS and Windows alike.
  it.each(['package-lock.json', 'scripts/fixtures/package-lock.json'])('%s holds every dependency of every package', (path) => {
    expect(unresolvedDependencies(readLock(path))).toEqual([]);
  });

  it('package-lock.json holds all eight DuckDB bindings', () => {
    const bindings = Object.keys(readLock('package-lock.json').packages).filter((p) => p.startsWith('node_modules/@duckdb/node-bindings-'));
    expect(bindings.map((p) => p.slice('node_modules/@duckdb/node-bindings-'.length)).sort()).toEqual([
      'darwin-arm64', 'darwin-x64', 'linux-arm64', 'linux-arm64-musl', 'linux-x64', 'linux-x64-musl', 'win32-arm64', 'win32-x64',
    ]);
  });
});
