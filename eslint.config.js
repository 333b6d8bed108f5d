import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

// Layer rules from docs/architecture.md: pure layers may not reach for effects.
const pureLayers = [
  'src/core/**',
  'src/design/**',
  'src/importers/**',
  'src/answers/**',
  'src/masbench/**',
  'src/view/**',
  'src/share/**',
  'src/policy/**',
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bench/results/**', 'test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/**/*.tsx', 'src/ui/**/*.ts', 'src/store/**/*.ts'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    files: pureLayers,
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        {
          name: 'fetch',
          message: 'Pure layers take data in and return data; network lives in src/executor/llm.',
        },
        { name: 'setTimeout', message: 'No timers in pure layers.' },
        { name: 'setInterval', message: 'No timers in pure layers.' },
        { name: 'requestAnimationFrame', message: 'No animation frames in pure layers.' },
        { name: 'localStorage', message: 'Storage lives in src/store.' },
        { name: 'sessionStorage', message: 'Storage lives in src/store.' },
        { name: 'indexedDB', message: 'Storage lives in src/store.' },
        { name: 'document', message: 'No DOM in pure layers.' },
        { name: 'window', message: 'No DOM in pure layers.' },
        { name: 'postMessage', message: 'postMessage lives in src/workers.' },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: 'Use the seeded RNG from src/core/rng.ts.' },
      ],
    },
  },
  {
    files: ['src/ui/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/gpu/**', '**/executor/**', '**/train/**', '**/workers/**'],
              message: 'The UI goes through the store.',
            },
          ],
        },
      ],
    },
  },
);
