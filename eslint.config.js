import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', '.cache/', 'coverage/', 'test/fixtures/**', '**/generated/**', 'services/collector/src/proto/*.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.js', 'bin/*.mjs'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      'no-console': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-syntax': ['error', { selector: 'ExportAllDeclaration', message: 'No `export *`: name what a module exports.' }],
    },
  },
  {
    // Dependencies run services -> shared, never back; shared/checks stays pure.
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/services/**', '**/cli/**'], message: 'shared/ must not import services/ or cli/.' }] }],
    },
  },
  {
    files: ['shared/checks/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['**/services/**', '**/cli/**', '**/kafka/**', '**/clickhouse/**', '**/duckdb/**', '**/store/**', '**/bus/**', '**/logging/**', '**/config/**'], message: 'shared/checks is pure: it imports only shared/schemas.' },
        ],
        paths: ['kafkajs', '@clickhouse/client', '@duckdb/node-api', 'pino'],
      }],
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'shared/checks never reads the environment.' }],
    },
  },
  {
    files: ['services/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['../../*/src/**', '**/services/*/src/**', '**/cli/**'], message: 'Services never import each other; the cli composes them.' }] }],
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
  {
    files: ['bin/*.mjs'],
    languageOptions: { globals: { process: 'readonly' } },
  },
  {
    files: ['cli/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
);
