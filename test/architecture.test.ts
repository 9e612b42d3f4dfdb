/**
 * The shape of the code, checked by reading the source: the import graph between folders has no
 * cycle, every import follows the layer table (test/architecture.layers.json, which
 * gateway/README.md draws), every wire format folder is registered, and no file (CSS included)
 * passes 500 lines. eslint.config.js flags the same imports in the editor; this test resolves every import form (static, re-export, dynamic
 * import(), require, import-type nodes) against the real folders, type-only imports included.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CODE = /\.(?:[cm]?[jt]s|[jt]sx)$/;
const NOT_SOURCE = new Set(['node_modules', 'dist', 'results']);
const MAX_LINES = 500;

/** The layer table, the single-module entries and the sibling rule, shared with eslint.config.js. */
const LAYERS = JSON.parse(readFileSync(join(ROOT, 'test/architecture.layers.json'), 'utf8')) as {
  mayImport: Record<string, readonly string[]>;
  entries: Record<string, readonly string[]>;
  siblingImports: readonly (readonly [string, string])[];
  fastify: readonly string[];
};
const MAY_IMPORT = LAYERS.mayImport;
const ENTRIES = LAYERS.entries;
const SIBLING_IMPORTS = LAYERS.siblingImports;
const FASTIFY_LAYERS = LAYERS.fastify;

/** Packages a folder must not import, and why. */
function packageRule(layer: string, pkg: string): string | undefined {
  if (layer.startsWith('gateway') && pkg === 'electron') return 'no electron under gateway/';
  if (layer === 'gateway/contract' && (pkg.startsWith('node:') || pkg === 'fastify' || pkg.startsWith('@fastify/')))
    return 'contract/ runs in the browser and the Electron shell too: no Node or Fastify APIs';
  if (
    (pkg === 'fastify' || pkg.startsWith('@fastify/')) &&
    !FASTIFY_LAYERS.includes(layer) &&
    !layer.startsWith('main')
  )
    return `fastify stays in ${FASTIFY_LAYERS.join(', ')}`;
  if (layer === 'renderer' && (pkg === 'electron' || pkg.startsWith('node:')))
    return 'the renderer has no Node or Electron APIs';
  return undefined;
}

interface Import {
  specifier: string;
  line: number;
  /** Erased at compile time: `import type`, `export type`, `import('…').T` in a type position. */
  typeOnly: boolean;
}

/** Repository-relative paths (with /) of the code files under `dir`. */
function filesOf(dir: string, kind: RegExp): string[] {
  const abs = join(ROOT, dir);
  if (!existsSync(abs)) return [];
  const out: string[] = [];
  for (const e of readdirSync(abs, { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory() && !NOT_SOURCE.has(e.name)) out.push(...filesOf(rel, kind));
    else if (e.isFile() && kind.test(e.name)) out.push(rel);
  }
  return out.sort();
}

const sourceFiles = (dir: string): string[] => filesOf(dir, CODE);

function importsOf(fileName: string, text: string): Import[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const out: Import[] = [];
  const add = (lit: ts.Node, typeOnly: boolean): void => {
    if (!ts.isStringLiteralLike(lit)) return;
    out.push({ specifier: lit.text, line: sf.getLineAndCharacterOfPosition(lit.getStart(sf)).line + 1, typeOnly });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      // `import { type X } from 'm'` is not type-only: under verbatimModuleSyntax it still loads m.
      add(node.moduleSpecifier, node.importClause?.phaseModifier === ts.SyntaxKind.TypeKeyword);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      add(node.moduleSpecifier, node.isTypeOnly);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, node.isTypeOnly);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal, true);
    } else if (ts.isCallExpression(node) && node.arguments[0]) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require'))
        add(node.arguments[0], false);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** Where an import lands: a repository path (without extension) for relative specifiers, else the package name. */
function target(file: string, specifier: string): { path?: string; pkg?: string } {
  if (specifier.startsWith('.') || specifier.startsWith('/')) {
    return {
      path: relative(ROOT, resolve(ROOT, dirname(file), specifier))
        .split('\\')
        .join('/')
        .replace(/\.[cm]?[jt]sx?$/, ''),
    };
  }
  if (specifier.startsWith('node:')) return { pkg: specifier };
  const parts = specifier.split('/');
  return { pkg: specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]! };
}

/**
 * The folder a file belongs to in the graph: gateway/<folder>, each format folder on its own
 * (gateway/wire/<format>), `gateway` for the shell files directly in gateway/; main and renderer
 * by their first folder. Files outside these roots are not part of the graph.
 */
function folderOf(path: string): string | undefined {
  const parts = path.split('/');
  const [root] = parts;
  if (root !== 'gateway' && root !== 'main' && root !== 'renderer') return undefined;
  const dirs = parts.slice(0, -1);
  if (root === 'gateway' && dirs[1] === 'wire' && dirs.length >= 3) return dirs.slice(0, 3).join('/');
  return dirs.slice(0, 2).join('/');
}

/** The row of MAY_IMPORT that rules a folder. */
function layerOf(folder: string): string {
  if (folder.startsWith('gateway/wire/')) return 'gateway/wire/*';
  if (folder.startsWith('main')) return 'main';
  if (folder.startsWith('renderer')) return 'renderer';
  return folder;
}

function allowed(from: string, to: string, toPath: string): boolean {
  if (from === to) return true;
  const layer = layerOf(from);
  if (ENTRIES[layer]?.includes(toPath)) return true;
  // The shells, each folder of them importing the others freely, and from the gateway its row alone.
  if (layer === 'main' || layer === 'renderer') return to.startsWith(layer) || MAY_IMPORT[layer]!.includes(to);
  if (layer.startsWith('gateway') && !to.startsWith('gateway')) return false;
  if (from.startsWith('gateway/wire/') && to.startsWith('gateway/wire/'))
    return SIBLING_IMPORTS.some(([a, b]) => a === from && b === to);
  const rules = MAY_IMPORT[layer];
  if (!rules) return false;
  return rules.includes(to) || rules.includes(layerOf(to));
}

interface Edge {
  from: string;
  to: string;
  /** "file:line imports 'specifier'" */
  where: string;
}

/** The graph's edges, and every import that breaks a rule. */
function scan(files: readonly { path: string; text: string }[]): { edges: Edge[]; violations: string[] } {
  const edges: Edge[] = [];
  const violations: string[] = [];
  for (const { path, text } of files) {
    const from = folderOf(path);
    if (!from) continue;
    for (const imp of importsOf(path, text)) {
      const t = target(path, imp.specifier);
      const where = `${path}:${imp.line} imports '${imp.specifier}'`;
      if (t.pkg !== undefined) {
        const why = packageRule(layerOf(from), t.pkg);
        if (why) violations.push(`${where} (${why})`);
        continue;
      }
      const to = folderOf(`${t.path}.ts`);
      if (!to) {
        if (layerOf(from) !== 'main' || !t.path!.startsWith('package'))
          violations.push(`${where} (outside gateway/, main/ and renderer/)`);
        continue;
      }
      if (from !== to) edges.push({ from, to, where });
      if (!allowed(from, to, t.path!)) violations.push(`${where} (${from} may not import ${to})`);
    }
  }
  return { edges, violations };
}

/** Strongly connected components of more than one folder (Tarjan), each with the imports that close it. */
function cycles(edges: readonly Edge[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const e of edges) {
    if (!next.has(e.from)) next.set(e.from, new Set());
    if (!next.has(e.to)) next.set(e.to, new Set());
    next.get(e.from)!.add(e.to);
  }
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return found.map((component) => [
    `folders ${component.join(' ⇄ ')}, through:`,
    ...edges.filter((e) => component.includes(e.from) && component.includes(e.to)).map((e) => `  ${e.where}`),
  ]);
}

function lineCount(text: string): number {
  if (text.length === 0) return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

const read = (path: string): { path: string; text: string } => ({ path, text: readFileSync(join(ROOT, path), 'utf8') });

describe('the scanner checks itself', () => {
  test('it sees every import form', () => {
    const sample = [
      "import a from 'electron';",
      "import type { B } from '../gateway/contract/admin/index.js';",
      "import { type C } from '../gateway/contract/admin/index.js';",
      "export * from 'fastify';",
      "export type { D } from '@fastify/cors';",
      "import e = require('m1');",
      "const f = await import('m2');",
      "const g = require('m3');",
      "let h: import('node:http').ServerResponse;",
      "import 'side-effect';",
    ].join('\n');
    assert.deepEqual(
      importsOf('renderer/sample.ts', sample).map((i) => `${i.line} ${i.specifier} ${i.typeOnly ? 'type' : 'value'}`),
      [
        '1 electron value',
        '2 ../gateway/contract/admin/index.js type',
        '3 ../gateway/contract/admin/index.js value',
        '4 fastify value',
        '5 @fastify/cors type',
        '6 m1 value',
        '7 m2 value',
        '8 m3 value',
        '9 node:http type',
        '10 side-effect value',
      ],
    );
  });

  test('it applies the layer table, the package rules and the renderer rule', () => {
    const files = [
      {
        path: 'gateway/core/a.ts',
        text: "import { x } from '../relay/b.js';\nimport f from 'fastify';\nimport e from 'electron';",
      },
      {
        path: 'gateway/wire/gemini/a.ts',
        text: "import { y } from '../openai-chat/b.js';\nimport { z } from '../../core/c.js';",
      },
      { path: 'gateway/wire/openai-responses/a.ts', text: "import { y } from '../openai-chat/errors.js';" },
      { path: 'gateway/admin/routes.ts', text: "import type { FastifyInstance } from 'fastify';" },
      {
        path: 'gateway/operations/keys.ts',
        text: "import type { Gateway } from '../compose/gateway.js';\nimport type { FastifyReply } from 'fastify';",
      },
      { path: 'gateway/cli/main.ts', text: "import { serve } from '../serve.js';" },
      {
        path: 'gateway/connect/sample.ts',
        text: "import { x } from '../admin/routes.js';\nimport { y } from '../core/errors.js';",
      },
      {
        path: 'renderer/pages/keys/page.tsx',
        text: [
          "import { client } from '../../../gateway/contract/admin/index.js';",
          "import type { KeyView } from '../../../gateway/admin/handlers.js';",
          "import { x } from '../../../gateway/core/money.js';",
          "import fs from 'node:fs';",
          "import type { LineView } from '../../../gateway/contract/admin/views.js';",
          "import { lineView } from '../../../gateway/admin/lines.js';",
        ].join('\n'),
      },
      {
        path: 'main/index.ts',
        text: [
          "import { serve } from '../gateway/serve.js';",
          "import { app } from 'electron';",
          "import { readRuntime } from '../gateway/desktop.js';",
          "import { usd } from '../gateway/contract/money.js';",
          "import { x } from '../gateway/admin/token.js';",
          "import { y } from './tray.js';",
        ].join('\n'),
      },
    ];
    assert.deepEqual(scan(files).violations, [
      "gateway/core/a.ts:1 imports '../relay/b.js' (gateway/core may not import gateway/relay)",
      "gateway/core/a.ts:2 imports 'fastify' (fastify stays in gateway, gateway/http, gateway/admin)",
      "gateway/core/a.ts:3 imports 'electron' (no electron under gateway/)",
      "gateway/wire/gemini/a.ts:1 imports '../openai-chat/b.js' (gateway/wire/gemini may not import gateway/wire/openai-chat)",
      "gateway/operations/keys.ts:2 imports 'fastify' (fastify stays in gateway, gateway/http, gateway/admin)",
      "gateway/connect/sample.ts:1 imports '../admin/routes.js' (gateway/connect may not import gateway/admin)",
      "renderer/pages/keys/page.tsx:2 imports '../../../gateway/admin/handlers.js' (renderer/pages may not import gateway/admin)",
      "renderer/pages/keys/page.tsx:3 imports '../../../gateway/core/money.js' (renderer/pages may not import gateway/core)",
      "renderer/pages/keys/page.tsx:4 imports 'node:fs' (the renderer has no Node or Electron APIs)",
      "renderer/pages/keys/page.tsx:6 imports '../../../gateway/admin/lines.js' (renderer/pages may not import gateway/admin)",
      "main/index.ts:1 imports '../gateway/serve.js' (main may not import gateway)",
      "main/index.ts:5 imports '../gateway/admin/token.js' (main may not import gateway/admin)",
    ]);
  });

  test('it finds a cycle between folders and names the imports that make it', () => {
    const files = [
      { path: 'gateway/store/types.ts', text: "import type { X } from '../routing/aliases.js';" },
      { path: 'gateway/routing/aliases.ts', text: "import type { Y } from '../store/types.js';" },
      { path: 'gateway/core/a.ts', text: "import { b } from './b.js';" },
      { path: 'gateway/core/b.ts', text: "import { a } from './a.js';" },
    ];
    assert.deepEqual(cycles(scan(files).edges), [
      [
        'folders gateway/routing ⇄ gateway/store, through:',
        "  gateway/store/types.ts:1 imports '../routing/aliases.js'",
        "  gateway/routing/aliases.ts:1 imports '../store/types.js'",
      ],
    ]);
  });
});

describe('the import graph', () => {
  const files = ['gateway', 'main', 'renderer'].flatMap(sourceFiles).map(read);
  const { edges, violations } = scan(files);

  test('has files to check', () => {
    assert.ok(
      files.some((f) => f.path.startsWith('gateway/relay/')) && files.some((f) => f.path.startsWith('gateway/wire/')),
      'no source files found under gateway/',
    );
  });

  test('has no cycle between folders', () => {
    const found = cycles(edges);
    assert.deepEqual(found, [], `Cycles between folders:\n${found.flat().join('\n')}`);
  });

  test('follows the layer table', () => {
    assert.deepEqual(violations, [], `Imports that break the layers:\n${violations.join('\n')}`);
  });

  test('every folder is in the layer table', () => {
    const unknown = [...new Set(edges.flatMap((e) => [e.from, e.to]))].filter((f) => !(layerOf(f) in MAY_IMPORT));
    assert.deepEqual(unknown, [], 'add these folders to MAY_IMPORT (and to gateway/README.md)');
  });
});

describe('eslint.config.js agrees', () => {
  test('its rules flag the imports this test refuses, and no others', async () => {
    const { ESLint } = await import('eslint');
    const eslint = new ESLint({ cwd: ROOT });
    const samples = [
      {
        path: 'gateway/core/sample.ts',
        text: "import { a } from './money.js';\nimport { b } from '../relay/exchange.js';\nimport f from 'fastify';\nimport e from 'electron';",
      },
      {
        path: 'gateway/contract/sample.ts',
        text: "import { a } from './admin/routes.js';\nimport { b } from '../core/money.js';\nimport fs from 'node:fs';\nimport f from 'fastify';",
      },
      {
        path: 'gateway/contract/admin/sample.ts',
        text: "import { a } from '../formats.js';\nimport { b } from './views.js';\nimport { c } from '../../core/json.js';\nimport { d } from '../../admin/guard.js';\nimport e from 'node:path';",
      },
      {
        path: 'gateway/store/sample.ts',
        text: "import { a } from '../upstream/client.js';\nimport { b } from '../routing/aliases.js';\nimport { c } from '../serve.js';",
      },
      {
        path: 'gateway/relay/sample.ts',
        text: "import { a } from '../wire/index.js';\nimport { b } from '../wire/gemini/routes.js';\nimport { c } from '../keys/keyring.js';",
      },
      {
        path: 'gateway/wire/gemini/sample.ts',
        text: "import { a } from '../../core/json.js';\nimport { b } from '../openai-chat/errors.js';\nimport { c } from '../index.js';\nimport { d } from '../../relay/route.js';",
      },
      {
        path: 'gateway/wire/openai-responses/sample.ts',
        text: "import { a } from '../openai-chat/errors.js';\nimport { b } from '../anthropic/errors.js';",
      },
      {
        path: 'gateway/sample.ts',
        text: "import { a } from './admin/routes.js';\nimport { b } from './cli/main.js';\nimport f from 'fastify';",
      },
      {
        path: 'gateway/operations/sample.ts',
        text: "import { a } from '../compose/gateway.js';\nimport { b } from '../relay/route.js';\nimport f from 'fastify';\nimport { c } from '../server.js';\nimport { d } from '../wire/gemini/routes.js';",
      },
      {
        path: 'gateway/cli/sample.ts',
        text: "import { a } from '../serve.js';\nimport { b } from '../relay/route.js';",
      },
      {
        path: 'main/sample.ts',
        text: "import { a } from '../gateway/contract/admin/index.js';\nimport { b } from '../gateway/desktop.js';\nimport { c } from '../gateway/serve.js';\nimport { d } from '../gateway/core/money.js';\nimport { e } from './tray.js';\nimport f from 'electron';",
      },
      {
        path: 'renderer/sample.ts',
        text: "import type { A } from '../gateway/contract/admin/index.js';\nimport { b } from '../gateway/contract/formats.js';\nimport { c } from '../gateway/admin/operations.js';\nimport fs from 'node:fs';\nimport type { D } from '../gateway/admin/handlers.js';\nimport type { E } from '../gateway/core/canonical.js';",
      },
    ];
    for (const sample of samples) {
      const [result] = await eslint.lintText(sample.text, { filePath: join(ROOT, sample.path) });
      const flagged = result!.messages
        .filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports')
        .map((m) => m.line);
      const refused = scan([sample]).violations.map((v) => Number(/:(\d+) imports/.exec(v)![1]));
      assert.deepEqual(
        flagged,
        refused,
        `${sample.path}: ESLint flags lines ${flagged.join(', ') || 'none'}, the layer table refuses ${refused.join(', ') || 'none'}`,
      );
    }
  });
});

test('every folder under gateway/wire/ exports its WireFormat from index.ts, and the registry lists each', async () => {
  const base = join(ROOT, 'gateway/wire');
  const folders = readdirSync(base, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const { WIRE } = (await import(pathToFileURL(join(base, 'index.ts')).href)) as {
    WIRE: Record<string, { id: string; routes: unknown[] }>;
  };
  const { FORMATS } = (await import(pathToFileURL(join(ROOT, 'gateway/contract/formats.ts')).href)) as {
    FORMATS: readonly string[];
  };
  assert.deepEqual(Object.keys(WIRE).sort(), folders, 'gateway/wire/index.ts must list exactly the format folders');
  assert.deepEqual([...FORMATS].sort(), folders, 'gateway/contract/formats.ts must list exactly the format folders');
  for (const id of folders) {
    const index = join(base, id, 'index.ts');
    assert.ok(existsSync(index), `gateway/wire/${id}/ has no index.ts`);
    const mod = (await import(pathToFileURL(index).href)) as Record<string, unknown>;
    const own = Object.values(mod).find(
      (v): v is { id: unknown; routes: unknown } =>
        typeof v === 'object' && v !== null && (v as { id?: unknown }).id === id && 'routes' in v,
    );
    assert.ok(own, `gateway/wire/${id}/index.ts exports no WireFormat with id "${id}"`);
    assert.equal(WIRE[id], own, `gateway/wire/index.ts must register the object gateway/wire/${id}/index.ts exports`);
    assert.ok(Array.isArray(own.routes) && own.routes.length > 0, `gateway/wire/${id}: the format has no routes`);
  }
});

test(`no source file is longer than ${MAX_LINES} lines`, () => {
  // Stylesheets too: the console's CSS sits next to the page or component it styles.
  const files = ['gateway', 'main', 'renderer', 'test', 'bench', '.ci'].flatMap((d) => [
    ...sourceFiles(d),
    ...filesOf(d, /\.css$/),
  ]);
  const long = files
    .map((f) => ({ f, n: lineCount(readFileSync(join(ROOT, f), 'utf8')) }))
    .filter((x) => x.n > MAX_LINES);
  assert.deepEqual(
    long.map((x) => `${x.f} (${x.n} lines)`),
    [],
    `Split these files (small files with one job):\n${long.map((x) => `${x.f}: ${x.n} lines`).join('\n')}`,
  );
});
