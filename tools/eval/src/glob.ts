import { readdirSync, statSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';

/** `*`, `?` and `**` globs relative to `baseDir`, sorted; a pattern without wildcards is a plain path. */
export function expandGlob(pattern: string, baseDir: string): string[] {
  const abs = resolve(baseDir, pattern);
  if (!/[*?]/.test(abs)) return [abs];
  const segments = abs.split(sep);
  const firstWild = segments.findIndex((s) => /[*?]/.test(s));
  const root = segments.slice(0, firstWild).join(sep) || sep;
  const re = globToRegExp(segments.slice(firstWild).join('/'));
  const out: string[] = [];
  const walk = (dir: string, rel: string): void => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names.sort()) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      const full = join(dir, name);
      const relPath = rel ? `${rel}/${name}` : name;
      const st = statSync(full);
      if (st.isDirectory()) walk(full, relPath);
      else if (re.test(relPath)) out.push(full);
    }
  };
  walk(root, '');
  return out.sort();
}

function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      // `**/` matches zero or more directories.
      re += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}
