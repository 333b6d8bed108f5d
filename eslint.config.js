import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import { layerConfigs, readLayerTable } from './eslint-layers.js';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bench/results/**', 'test-results/**'] },
  // AssemblyScript sources (src/gpu/wasm/build.ts compiles them): not TypeScript for the linter.
  { ignores: ['src/gpu/wasm/assembly/**'] },
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
  // Who may import what (`no-restricted-imports` per layer and folder depth, plus the same patterns
  // for dynamic `import()`), and which effects each layer may use: generated from the table in
  // docs/architecture.md, the one place the rule is written (see eslint-layers.js).
  ...layerConfigs(readLayerTable()),
);
