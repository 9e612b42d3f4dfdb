import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

// Folder boundaries (style.md habit 6). test/architecture.test.ts enforces the same boundaries by
// resolving every import; these patterns give the early warning in the editor.
const ELECTRON = { regex: '^electron(/|$)', message: 'gateway/ runs without Electron: keep Electron APIs in main/.' };
const FASTIFY = {
  regex: '^(fastify(/|$)|@fastify/)',
  message: 'core, wire, upstream and billing are framework-free: Fastify stays in server.ts, serve.ts and admin/.',
};
// A path that climbs out of gateway/ into main/ or renderer/.
const SHELLS = { regex: '^(\\.\\./)+(main|renderer)(/|$)', message: 'gateway/ must not depend on the Electron shell or the console.' };

function restrict(...patterns) {
  return { '@typescript-eslint/no-restricted-imports': ['error', { patterns }] };
}

export default defineConfig(
  globalIgnores(['dist/', 'node_modules/', '.scratch/', 'bench/results/', 'renderer/dist/']),
  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [tseslint.configs.recommended],
    rules: {
      // A leading underscore marks a binding as deliberately unused (`for await (const _ of stream)`).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  {
    files: ['gateway/**/*.ts'],
    rules: restrict(ELECTRON, SHELLS),
  },
  {
    files: ['gateway/{core,wire,upstream,billing}/**/*.ts'],
    rules: restrict(ELECTRON, SHELLS, FASTIFY),
  },
  {
    // The console reaches the gateway only over HTTP, through the typed admin client and the contract
    // it is derived from (both build for a browser: test/admin/client.test.ts); other admin modules
    // may lend it types only.
    files: ['renderer/**/*.ts', 'renderer/**/*.tsx'],
    rules: {
      ...restrict(
        {
          regex: '(^|/)gateway/admin/(?!(client|contract)(\\.js)?$)',
          allowTypeImports: true,
          message: 'From gateway/admin the renderer imports client.js and contract.js; anything else only with "import type".',
        },
        { regex: '(^|/)gateway(/(?!admin(/|$))|$)', message: 'The renderer talks to the gateway over the admin API, never by importing it.' },
      ),
      // Under verbatimModuleSyntax `import { type X } from '…'` still loads the module at run time.
      '@typescript-eslint/no-import-type-side-effects': 'error',
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
