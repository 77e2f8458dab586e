// npm records only the platform packages it could resolve when it wrote the lock: a lock written
// against a registry that lacks, say, the macOS build of a native binding silently leaves it out,
// and `npm ci` then fails on macOS ("Missing: … from lock file"). This finds such holes.

interface LockEntry {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

export interface PackageLock {
  packages: Record<string, LockEntry>;
}

/** Where Node would find `name` from the package at `path` (nested first, then each parent). */
function resolves(lock: PackageLock, path: string, name: string): boolean {
  let base = path;
  for (;;) {
    if (lock.packages[`${base ? `${base}/` : ''}node_modules/${name}`]) return true;
    if (!base) return false;
    const up = base.lastIndexOf('/node_modules/');
    base = up < 0 ? '' : base.slice(0, up);
  }
}

/** `path -> dependency` for every dependency (optional ones included) that has no entry in the lock. */
export function unresolvedDependencies(lock: PackageLock): string[] {
  const missing: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) {
      if (!resolves(lock, path, name)) missing.push(`${path || '(root)'} -> ${name}`);
    }
  }
  return missing;
}
