// ESLint flat config: typescript-eslint's type-checked recommended rules over everything that
// a tsconfig covers (tsconfig.node.json: core, shared, cli, server, main, preload, tests, bench,
// configs; tsconfig.web.json: the renderer and its tests), plus the rules that catch real bugs
// in an event-driven app: promises nobody awaits, async handlers where void is expected,
// switches over event unions that miss a case, and dead code. Formatting is Prettier's job.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', 'src/core/security/secret-rules.generated.ts'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.node.json', './tsconfig.web.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // An async function passed where a void callback is expected (onClick, setTimeout, an
      // event listener) drops its rejection; checksVoidReturn covers JSX attributes too.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: true, arguments: true } }],
      // Every switch over a union (EngineEvent['type'], roles, tool names) must name each member
      // or say `default` on purpose.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      'no-unused-private-class-members': 'error',
      // Re-rejecting a caught `unknown` is passing an error on, not inventing a non-Error reason.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // Tool.run and other interface methods are async by contract even when a body has nothing to await.
      '@typescript-eslint/require-await': 'off',
      // The terminal and filename sanitizers match control characters on purpose.
      'no-control-regex': 'off',
    },
  },
  {
    files: ['src/renderer/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    languageOptions: { globals: globals.browser },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
    },
  },
  {
    // Tests read JSON, JSONL rows, SQL results and mocked SDK objects as `any` on purpose; the
    // no-unsafe-* family there only asks for casts that would prove nothing. expect(obj.method)
    // is how vitest spies are checked, not a lost `this`.
    files: ['test/**/*.{ts,tsx}', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    // Plain Node scripts, the bin shim and test fixture processes are in no tsconfig: lint them
    // without type information.
    files: ['**/*.{js,mjs,cjs}'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: globals.node },
  },
);
