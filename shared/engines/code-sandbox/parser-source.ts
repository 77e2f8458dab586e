import { REFUSE_NETWORK_SOURCE } from './sandbox-pool/index.ts';

/**
 * The TypeScript parser's process program (run with `node -e`; argument: the path of the
 * `typescript` package's main file, the only file it may read). The pool's line protocol
 * (sandbox-pool/): `{"ready": true}` once, then one stdin line `{id, request}` per text
 * (request: JSON of `{kind, code, language}`) and one stdout line `{id, ok, errors | code | error,
 * exiting?}`. Two kinds: `syntax`, the syntax errors of a snippet from a trace (no type checking: a
 * snippet's imports are not available here); `transpile`, a check's TypeScript or JavaScript
 * module to CommonJS for the code sandbox (check sources are hostile too). The parser keeps
 * module-level state (its scanner), and an input can leave it broken (2,000 nested parentheses
 * overflow its stack midway): after anything thrown the process answers and exits, so the next
 * text is parsed by a fresh one. Time is bounded by the parent's deadline (SIGKILL).
 */
export const PARSER_SOURCE = String.raw`
'use strict';
${REFUSE_NETWORK_SOURCE}
const ts = require(process.argv[1]);
const readline = require('node:readline');
const out = process.stdout;
const MAX_ERRORS = 5;
const MAX_TEXT = 2000;
function syntaxErrors(code, language) {
  const result = ts.transpileModule(code, {
    reportDiagnostics: true,
    fileName: language === 'typescript' ? 'snippet.tsx' : 'snippet.jsx',
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, jsx: ts.JsxEmit.Preserve, allowJs: true },
  });
  return (result.diagnostics || []).slice(0, MAX_ERRORS).map((d) => {
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
    return ('line ' + line + ': ' + ts.flattenDiagnosticMessageText(d.messageText, ' ')).slice(0, MAX_TEXT);
  });
}
function transpile(code, language) {
  const result = ts.transpileModule(code, {
    reportDiagnostics: true,
    fileName: language === 'typescript' ? 'check.ts' : 'check.js',
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, allowJs: true, esModuleInterop: false },
  });
  const diags = result.diagnostics || [];
  if (diags.length > 0) return { ok: false, error: ('does not compile: ' + diags.slice(0, 3).map((d) => ts.flattenDiagnosticMessageText(d.messageText, ' ')).join('; ')).slice(0, MAX_TEXT) };
  if (/\brequire\(/.test(result.outputText)) return { ok: false, error: 'imports are not available to code checks: the module must be self-contained' };
  return { ok: true, code: result.outputText };
}
let exiting = false;
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  if (exiting) return;
  const { id, request } = JSON.parse(line);
  let msg;
  try {
    const req = JSON.parse(request);
    msg = req.kind === 'transpile' ? { id, ...transpile(String(req.code), req.language) } : { id, ok: true, errors: syntaxErrors(String(req.code), req.language) };
  } catch (err) {
    exiting = true;
    msg = { id, ok: false, error: String(err && err.name ? err.name + ': ' + err.message : err).slice(0, MAX_TEXT), exiting: true };
  }
  out.write(JSON.stringify(msg) + '\n', () => { if (exiting) process.exit(0); });
}).on('close', () => process.exit(0));
out.write(JSON.stringify({ ready: true, startMs: Math.round(performance.now()) }) + '\n');
`;
