import { createHash } from 'node:crypto';
import ts from 'typescript';

const cache = new Map<string, { ok: true; code: string } | { ok: false; error: string }>();

/** TypeScript or JavaScript → CommonJS JavaScript for the sandbox; syntax errors are reported, types are not checked. */
export function transpileCheck(source: string, language: 'typescript' | 'javascript'): { ok: true; code: string } | { ok: false; error: string } {
  const key = createHash('sha256').update(language).update('\0').update(source).digest('hex');
  const hit = cache.get(key);
  if (hit) return hit;
  const out = ts.transpileModule(source, {
    reportDiagnostics: true,
    fileName: language === 'typescript' ? 'check.ts' : 'check.js',
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, allowJs: true, esModuleInterop: false },
  });
  const diags = out.diagnostics ?? [];
  const result =
    diags.length > 0
      ? { ok: false as const, error: `does not compile: ${diags.slice(0, 3).map((d) => ts.flattenDiagnosticMessageText(d.messageText, ' ')).join('; ')}` }
      : /\brequire\(/.test(out.outputText)
        ? { ok: false as const, error: 'imports are not available to code checks: the module must be self-contained' }
        : { ok: true as const, code: out.outputText };
  if (cache.size > 500) cache.delete(cache.keys().next().value!);
  cache.set(key, result);
  return result;
}
