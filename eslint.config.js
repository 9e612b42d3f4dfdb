import { readFileSync } from 'node:fs';
import { defineConfig, globalIgnores } from 'eslint/config';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/**
 * The layer table of gateway/ (test/architecture.layers.json): what each folder may import besides
 * itself. test/architecture.test.ts checks the whole import graph against it, and that the rules
 * generated from it here flag what it refuses; they are the early warning in the editor.
 */
const LAYERS = JSON.parse(readFileSync(new URL('./test/architecture.layers.json', import.meta.url), 'utf8'));
const MAY_IMPORT = LAYERS.mayImport;
const SIBLING_IMPORTS = LAYERS.siblingImports;

const ELECTRON = { regex: '^electron(/|$)', message: 'gateway/ runs without Electron: keep Electron APIs in main/.' };
const FASTIFY = {
  regex: '^(fastify(/|$)|@fastify/)',
  message: `Fastify stays in ${LAYERS.fastify.join(', ')} (test/architecture.layers.json).`,
};
const NODE = { regex: '^node:', message: 'contract/ runs in the browser and the Electron shell too: no Node APIs.' };
// A path that climbs out of gateway/ into main/ or renderer/.
const SHELLS = {
  regex: '^(\\.\\./)+(main|renderer)(/|$)',
  message: 'gateway/ must not depend on the Electron shell or the console.',
};

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
      {
        regex: `^\\.\\./(?!\\.\\./${siblings.map((s) => `|${name(s).replace('wire/', '')}/`).join('')})`,
        message: `${message} Only the sibling formats in SIBLING_IMPORTS.`,
      },
    ];
  }
  const patterns = [{ regex: `^\\.\\./(?!(${alternatives(folders) || 'no-folder'})/)[^/]+/`, message }];
  if (!allowed.includes('gateway'))
    patterns.push({ regex: '^\\.\\./[^/]+$', message: `${message} Not the shell files in gateway/.` });
  if (allowed.includes('gateway/wire'))
    patterns.push({
      regex: '^\\.\\./wire/[^/]+/',
      message: `${message} Formats are reached through gateway/wire/index.ts.`,
    });
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
    const packages = LAYERS.fastify.includes(folder)
      ? [ELECTRON, SHELLS]
      : folder === 'gateway/contract'
        ? [ELECTRON, SHELLS, FASTIFY, NODE]
        : [ELECTRON, SHELLS, FASTIFY];
    if (folder === 'gateway/contract') {
      // contract/ has subfolders (contract/admin/); nothing in it reaches out of it.
      const message = 'gateway/contract imports nothing else of the gateway (test/architecture.test.ts).';
      blocks.push({ files: [`${folder}/*.ts`], rules: restrict(...packages, { regex: '^\\.\\./', message }) });
      blocks.push({ files: [`${folder}/*/*.ts`], rules: restrict(...packages, { regex: '^(\\.\\./){2}', message }) });
      continue;
    }
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
  globalIgnores(['dist/', 'node_modules/', '.scratch/', 'bench/results/', '.ci/canary/results/', 'renderer/dist/']),
  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [tseslint.configs.recommended],
    rules: {
      // A leading underscore marks a binding as deliberately unused (`for await (const _ of stream)`).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
        },
      ],
    },
  },
  ...layerBlocks(),
  {
    // The console reaches the gateway only over HTTP; from gateway/ it loads the browser-safe contract alone.
    files: ['renderer/**/*.ts', 'renderer/**/*.tsx'],
    rules: {
      ...restrict(
        {
          regex: `(^|/)gateway(/(?!(${alternatives(MAY_IMPORT.renderer)})/)|$)`,
          message: `From gateway/ the renderer imports only ${MAY_IMPORT.renderer.join(', ')}; the rest it reaches over the admin API.`,
        },
        { regex: '^(node:|electron(/|$))', message: 'The renderer has no Node or Electron APIs.' },
      ),
      // Under verbatimModuleSyntax `import { type X } from '…'` still loads the module at run time.
      '@typescript-eslint/no-import-type-side-effects': 'error',
    },
  },
  {
    // The Electron shell reaches the gateway over the admin API; from gateway/ it loads the contract and the one Node-side entry.
    files: ['main/**/*.ts'],
    rules: restrict({
      regex: `(^|/)gateway/(?!((${alternatives(MAY_IMPORT.main)})/|(${alternatives(LAYERS.entries.main)})\\.js$))`,
      message: `From gateway/ main imports only ${[...MAY_IMPORT.main, ...LAYERS.entries.main].join(', ')} (test/architecture.layers.json).`,
    }),
  },
  {
    // The rules of hooks, and the React Compiler's checks for effects and refs misused.
    files: ['renderer/**/*.tsx', 'renderer/**/*.ts'],
    ...reactHooks.configs.flat.recommended,
  },
  {
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
