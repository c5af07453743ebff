// ESLint (typescript-eslint) for the service, its scripts and its tests. Formatting is Prettier's
// job (eslint-config-prettier turns off the stylistic rules); feature boundaries and import
// cycles are checked by dependency-cruiser (.dependency-cruiser.cjs).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'src/generated/', 'node_modules/', 'test-artifacts/', '**/vendor/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // Input validation here names control characters on purpose (U+0000-U+001F in names, file
      // names and the input guard: docs/security-hardening.md).
      'no-control-regex': 'off',
    },
  },
  // CommonJS entry points (npm scripts, the test watchdog).
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // Code that runs in a browser: the admin console and the pages of the browser tests.
  {
    files: ['**/public/**/*.js', 'console/**/*.js', 'tests/helpers/*-page.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
  prettier,
);
