import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { boundaries } from './scripts/lint/boundaries.js';

export default tseslint.config(
  // scripts/fixtures is its own package (the fixture-capture libraries; `npm run typecheck` there).
  { ignores: ['node_modules/', 'data/', '.cache/', 'coverage/', 'test/fixtures/**', '**/generated/**', 'dist/**', 'clients/typescript/dist/**', 'clients/python/build/**', 'scripts/fixtures/**', 'examples/node-*/**', 'examples/*/.venv/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.js', 'bin/*.mjs', 'scripts/lint/*.js', 'scripts/build/*.mjs'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      'no-console': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportAllDeclaration', message: 'No `export *`: name what a module exports.' },
        {
          selector: "ClassDeclaration[superClass.name='Error'], ClassExpression[superClass.name='Error']",
          message: 'Extend RetriableError or PermanentError (shared/runtime/errors): every error says whether trying again can help.',
        },
      ],
    },
  },
  {
    // The two roots themselves; tests, and the published client (its own package).
    files: ['shared/runtime/errors/index.ts', '**/*.test.ts', 'test/**/*.ts', 'scripts/test/**/*.ts', 'clients/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', { selector: 'ExportAllDeclaration', message: 'No `export *`: name what a module exports.' }] },
  },
  {
    // Dependencies run cli -> services | tools -> shared, never back; shared/engines/checks stays pure.
    // Checked on resolved paths by a local rule (scripts/lint/boundaries.js).
    files: ['shared/**/*.ts', 'services/**/*.ts', 'tools/**/*.ts'],
    plugins: { tracecheck: boundaries },
    rules: { 'tracecheck/boundaries': 'error' },
  },
  {
    files: ['shared/engines/checks/**/*.ts'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'shared/engines/checks never reads the environment.' }],
    },
  },
  {
    files: ['**/*.test.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  { files: ['scripts/lint/*.js'], ...tseslint.configs.disableTypeChecked, languageOptions: { globals: { process: 'readonly' } } },
  {
    files: ['bin/*.mjs', 'scripts/build/*.mjs'],
    languageOptions: { globals: { process: 'readonly', URL: 'readonly' } },
    // bin/tracecheck.mjs imports the build by URL, which has no types.
    rules: { '@typescript-eslint/no-unsafe-assignment': 'off', '@typescript-eslint/no-unsafe-call': 'off' },
  },
  {
    files: ['cli/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    // No hand-written file over 400 lines: past that a module has more than one job. Generated code
    // and test data are ignored above (`**/generated/**`, `test/fixtures/**`).
    files: ['**/*.{ts,js,mjs}'],
    rules: { 'max-lines': ['error', { max: 400 }] },
  },
);
