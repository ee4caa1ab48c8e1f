import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The same split as tsconfig.node.json and tsconfig.web.json: the renderer and the shared contract
// run in a browser window, so they may not reach for Node (typecheck refuses it too; this says why
// at the line, in the editor).
const BROWSER_FILES = ['src-renderer/**/*.{ts,tsx}', 'src-shared/**/*.ts'];
const TEST_FILES = ['**/*.test.ts', '**/*.test.tsx', 'src-renderer/testing/**'];
const NODE_GLOBALS = ['process', 'Buffer', 'require', '__dirname', '__filename', 'global', 'setImmediate'];

export default tseslint.config(
  { ignores: ['node_modules/', 'out/', 'dist/', 'coverage/', 'src-client/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { console: 'readonly', process: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setImmediate: 'readonly', Buffer: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    files: BROWSER_FILES,
    ignores: TEST_FILES,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*'], message: 'browser code: Node modules are not available in the window; ask the engine through the API' },
            { group: ['**/src-main/**', '**/src-client/**'], message: 'browser code talks to the engine only through the contract in src-shared/api.ts (ARCHITECTURE.md: rooms)' },
          ],
        },
      ],
      'no-restricted-globals': ['error', ...NODE_GLOBALS.map((name) => ({ name, message: 'browser code: this Node global does not exist in the window' }))],
    },
  },
  // The rooms of ARCHITECTURE.md: the engine never imports Electron or the renderer, and the shared
  // contract nothing of either side.
  {
    files: ['src-main/engine/**/*.ts', 'src-main/serve/**/*.ts'],
    ignores: TEST_FILES,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: 'only src-main/electron/ imports electron (ARCHITECTURE.md: rooms)' }],
          patterns: [{ group: ['**/src-renderer/**', '**/electron/**'], message: 'the engine and serve do not reach into the renderer or the desktop shell (ARCHITECTURE.md: rooms)' }],
        },
      ],
    },
  },
  {
    files: ['src-client/**/*.ts'],
    ignores: TEST_FILES,
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/src-main/**', '**/src-renderer/**'], message: 'the client package ships alone: it may use src-shared/limits.ts and nothing of the app' }] },
      ],
    },
  },
);
