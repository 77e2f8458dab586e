import ts from 'typescript';

/** Syntax errors only (no type checking: a snippet's imports are not available here). */
export function typescriptSyntaxErrors(code: string, language: 'javascript' | 'typescript', max = 5): string[] {
  const out = ts.transpileModule(code, {
    reportDiagnostics: true,
    fileName: language === 'typescript' ? 'snippet.tsx' : 'snippet.jsx',
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, jsx: ts.JsxEmit.Preserve, allowJs: true },
  });
  return (out.diagnostics ?? []).slice(0, max).map((d) => {
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
    return `line ${line}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
  });
}
