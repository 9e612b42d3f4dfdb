import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

/**
 * The layer table of gateway/: what each folder may import besides itself. test/architecture.test.ts
 * holds the same table, checks the whole import graph against it (and for cycles), and fails if this
 * copy differs; the rules below are generated from it to flag a bad import in the editor.
 * `gateway` is the shell (the files directly in gateway/); `gateway/wire/*` is any one format folder.
 */
export const MAY_IMPORT = {
  'gateway/core': [],
  'gateway/upstream': ['gateway/core'],
  'gateway/store': ['gateway/core', 'gateway/upstream'],
  'gateway/keys': ['gateway/core', 'gateway/store'],
  'gateway/catalogue': ['gateway/core', 'gateway/store'],
  'gateway/routing': ['gateway/core', 'gateway/upstream', 'gateway/store'],
  'gateway/billing': ['gateway/core', 'gateway/store', 'gateway/catalogue', 'gateway/routing'],
  'gateway/wire/*': ['gateway/core', 'gateway/upstream'],
  'gateway/wire': ['gateway/core', 'gateway/wire/*'],
  'gateway/relay': ['gateway/core', 'gateway/upstream', 'gateway/store', 'gateway/catalogue', 'gateway/routing', 'gateway/billing', 'gateway/wire'],
  'gateway/compose': ['gateway/core', 'gateway/upstream', 'gateway/store', 'gateway/keys', 'gateway/catalogue', 'gateway/routing', 'gateway/billing', 'gateway/relay'],
  'gateway/connect': ['gateway/core'],
  'gateway/admin': ['gateway/core', 'gateway/upstream', 'gateway/store', 'gateway/keys', 'gateway/catalogue', 'gateway/routing', 'gateway/billing', 'gateway/wire', 'gateway/compose', 'gateway/connect'],
  gateway: ['gateway/core', 'gateway/upstream', 'gateway/store', 'gateway/keys', 'gateway/catalogue', 'gateway/routing', 'gateway/billing', 'gateway/wire', 'gateway/relay', 'gateway/compose', 'gateway/connect', 'gateway/admin'],
  'gateway/cli': ['gateway/core', 'gateway/store', 'gateway/connect', 'gateway/admin', 'gateway/compose', 'gateway'],
  main: ['gateway/*'],
  renderer: [],
};

/** Format folders that may import another, in this direction only. */
export const SIBLING_IMPORTS = [['gateway/wire/openai-responses', 'gateway/wire/openai-chat']];

const ELECTRON = { regex: '^electron(/|$)', message: 'gateway/ runs without Electron: keep Electron APIs in main/.' };
const FASTIFY = { regex: '^(fastify(/|$)|@fastify/)', message: 'Fastify stays in the shell (gateway/*.ts) and gateway/admin.' };
// A path that climbs out of gateway/ into main/ or renderer/.
const SHELLS = { regex: '^(\\.\\./)+(main|renderer)(/|$)', message: 'gateway/ must not depend on the Electron shell or the console.' };

const name = (folder) => folder.replace(/^gateway\/?/, '');
const alternatives = (list) => list.map((f) => name(f).replace('/*', '')).join('|');

/** The patterns that refuse, for a file directly in `folder`, every relative import the table does not allow. */
function layerPatterns(folder, allowed, siblings = []) {
  const message = `${folder} may import only ${allowed.join(', ') || 'itself'} (test/architecture.test.ts).`;
  const folders = allowed.filter((f) => f !== 'gateway' && f !== 'gateway/wire/*');
  if (folder === 'gateway') {
    // Shell files reach folders as ./<folder>/….
    return [{ regex: `^\\./(?!(${alternatives(folders)})/)[^/]+/`, message }];
  }
  if (folder === 'gateway/wire/*') {
    return [
      { regex: `^\\.\\./\\.\\./(?!(${alternatives(folders)})/)`, message },
      { regex: `^\\.\\./(?!\\.\\./${siblings.map((s) => `|${name(s).replace('wire/', '')}/`).join('')})`, message: `${message} Only the sibling formats in SIBLING_IMPORTS.` },
    ];
  }
  const patterns = [{ regex: `^\\.\\./(?!(${alternatives(folders) || 'no-folder'})/)[^/]+/`, message }];
  if (!allowed.includes('gateway')) patterns.push({ regex: '^\\.\\./[^/]+$', message: `${message} Not the shell files in gateway/.` });
  if (allowed.includes('gateway/wire')) patterns.push({ regex: '^\\.\\./wire/[^/]+/', message: `${message} Formats are reached through gateway/wire/index.ts.` });
  return patterns;
}

function restrict(...patterns) {
  return { '@typescript-eslint/no-restricted-imports': ['error', { patterns }] };
}

/** One config block per row of the table, for the files directly in that folder. */
function layerBlocks() {
  const blocks = [];
  for (const [folder, allowed] of Object.entries(MAY_IMPORT)) {
    if (!folder.startsWith('gateway')) continue;
    const packages = folder === 'gateway' || folder === 'gateway/admin' ? [ELECTRON, SHELLS] : [ELECTRON, SHELLS, FASTIFY];
    const files = folder === 'gateway' ? ['gateway/*.ts'] : [`${folder}/*.ts`];
    blocks.push({ files, rules: restrict(...packages, ...layerPatterns(folder, allowed)) });
    if (folder === 'gateway/wire/*') {
      for (const [from, to] of SIBLING_IMPORTS) {
        blocks.push({ files: [`${from}/*.ts`], rules: restrict(...packages, ...layerPatterns(folder, allowed, [to])) });
      }
    }
  }
  return blocks;
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
  ...layerBlocks(),
  {
    // The console reaches the gateway only over HTTP; it shares the admin contract and its typed client, nothing else.
    files: ['renderer/**/*.ts', 'renderer/**/*.tsx'],
    rules: {
      ...restrict(
        { regex: '(^|/)gateway(/(?!admin/(contract|client)(\\.js)?$)|$)', message: 'The renderer takes only gateway/admin/contract and gateway/admin/client from the gateway.' },
        { regex: '^(node:|electron(/|$))', message: 'The renderer has no Node or Electron APIs.' },
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
