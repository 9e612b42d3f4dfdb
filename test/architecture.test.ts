/**
 * Folder boundaries (style.md habit 6) and file size (habit 9), checked by reading the source.
 * eslint.config.js flags the same imports in the editor; this test resolves every import form
 * (static, re-export, dynamic import(), require, import-type nodes) against the real folders.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CODE = /\.(?:[cm]?[jt]s|[jt]sx)$/;
const NOT_SOURCE = new Set(['node_modules', 'dist', 'results']);
const MAX_LINES = 500;

interface Import {
  specifier: string;
  line: number;
  /** Erased at compile time: `import type`, `export type`, `import('…').T` in a type position. */
  typeOnly: boolean;
}

/** Repository-relative paths (with /) of the code files under `dir`. */
function sourceFiles(dir: string): string[] {
  const abs = join(ROOT, dir);
  if (!existsSync(abs)) return [];
  const out: string[] = [];
  for (const e of readdirSync(abs, { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory() && !NOT_SOURCE.has(e.name)) out.push(...sourceFiles(rel));
    else if (e.isFile() && CODE.test(e.name)) out.push(rel);
  }
  return out.sort();
}

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
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require')) add(node.arguments[0], false);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** Where an import lands: a repository path for relative specifiers, else the package name. */
function target(file: string, specifier: string): { path?: string; pkg?: string } {
  if (specifier.startsWith('.') || specifier.startsWith('/')) {
    return { path: relative(ROOT, resolve(ROOT, dirname(file), specifier)).split('\\').join('/') };
  }
  const parts = specifier.split('/');
  return { pkg: specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0] };
}

/** The typed admin client and the contract it is derived from: they build for a browser (test/admin/client.test.ts). */
const RENDERER_MAY_LOAD = ['gateway/admin/client.js', 'gateway/admin/contract.js'];

const under = (path: string | undefined, folder: string): boolean => path !== undefined && (path === folder || path.startsWith(`${folder}/`));

/** Every boundary violation in one file, as "file:line imports 'specifier' (reason)". */
function violations(file: string, imports: readonly Import[]): string[] {
  const out: string[] = [];
  const framework = /^gateway\/(core|wire|upstream|billing)\//.test(file);
  for (const imp of imports) {
    const t = target(file, imp.specifier);
    const where = `${file}:${imp.line} imports '${imp.specifier}'`;
    if (file.startsWith('gateway/')) {
      if (t.pkg === 'electron') out.push(`${where} (no electron under gateway/)`);
      if (framework && (t.pkg === 'fastify' || t.pkg?.startsWith('@fastify/'))) out.push(`${where} (no fastify under gateway/core|wire|upstream|billing)`);
      if (under(t.path, 'main') || under(t.path, 'renderer')) out.push(`${where} (gateway/ must not import main/ or renderer/)`);
    }
    // The connect engine edits users' files; it stands on core/ alone, and the admin API and CLI use it.
    if (file.startsWith('gateway/connect/') && under(t.path, 'gateway') && !under(t.path, 'gateway/core') && !under(t.path, 'gateway/connect')) {
      out.push(`${where} (gateway/connect may import only gateway/core)`);
    }
    if (file.startsWith('renderer/') && under(t.path, 'gateway') && !RENDERER_MAY_LOAD.includes(t.path ?? '') && !(imp.typeOnly && under(t.path, 'gateway/admin'))) {
      out.push(`${where} (the renderer loads only the admin client and contract; other gateway/admin modules only with "import type")`);
    }
  }
  return out;
}

function lineCount(text: string): number {
  if (text.length === 0) return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

test('the import scanner sees every import form', () => {
  const sample = [
    "import a from 'electron';",
    "import type { B } from '../gateway/admin/contract.js';",
    "import { type C } from '../gateway/admin/operations.js';",
    "export * from 'fastify';",
    "export type { D } from '@fastify/cors';",
    "import e = require('m1');",
    "const f = await import('m2');",
    "const g = require('m3');",
    "let h: import('node:http').ServerResponse;",
    "import 'side-effect';",
    "import { AdminClient } from '../gateway/admin/client.js';",
  ].join('\n');
  assert.deepEqual(
    importsOf('renderer/sample.ts', sample).map((i) => `${i.line} ${i.specifier} ${i.typeOnly ? 'type' : 'value'}`),
    [
      '1 electron value',
      '2 ../gateway/admin/contract.js type',
      '3 ../gateway/admin/operations.js value',
      '4 fastify value',
      '5 @fastify/cors type',
      '6 m1 value',
      '7 m2 value',
      '8 m3 value',
      '9 node:http type',
      '10 side-effect value',
      '11 ../gateway/admin/client.js value',
    ],
  );
  assert.deepEqual(violations('renderer/sample.ts', importsOf('renderer/sample.ts', sample)), [
    "renderer/sample.ts:3 imports '../gateway/admin/operations.js' (the renderer loads only the admin client and contract; other gateway/admin modules only with \"import type\")",
  ]);
  assert.equal(violations('gateway/core/sample.ts', importsOf('gateway/core/sample.ts', sample)).length, 3);
  assert.equal(violations('gateway/cli/sample.ts', importsOf('gateway/cli/sample.ts', "import x from '../../main/index.js';")).length, 1);
  assert.equal(violations('gateway/cli/sample.ts', importsOf('gateway/cli/sample.ts', "import x from './main.js';")).length, 0);
  assert.equal(violations('gateway/connect/sample.ts', importsOf('gateway/connect/sample.ts', "import x from '../admin/routes.js';")).length, 1);
  assert.equal(violations('gateway/connect/sample.ts', importsOf('gateway/connect/sample.ts', "import x from '../core/errors.js';")).length, 0);
});

test('imports respect the folder boundaries', () => {
  const files = [...sourceFiles('gateway'), ...sourceFiles('renderer')];
  assert.ok(files.some((f) => f.startsWith('gateway/')), 'no source files found under gateway/');
  const found = files.flatMap((f) => violations(f, importsOf(f, readFileSync(join(ROOT, f), 'utf8'))));
  assert.deepEqual(found, [], `Forbidden imports:\n${found.join('\n')}`);
});

test('every folder under gateway/wire/ exports its WireFormat from index.ts, and the registry lists each', async () => {
  const base = join(ROOT, 'gateway/wire');
  const folders = readdirSync(base, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const { WIRE } = (await import(pathToFileURL(join(base, 'index.ts')).href)) as { WIRE: Record<string, { id: string; routes: unknown[] }> };
  assert.deepEqual(Object.keys(WIRE).sort(), folders, 'gateway/wire/index.ts must list exactly the format folders');
  for (const id of folders) {
    const index = join(base, id, 'index.ts');
    assert.ok(existsSync(index), `gateway/wire/${id}/ has no index.ts`);
    const mod = (await import(pathToFileURL(index).href)) as Record<string, unknown>;
    const own = Object.values(mod).find((v): v is { id: unknown; routes: unknown } => typeof v === 'object' && v !== null && (v as { id?: unknown }).id === id && 'routes' in v);
    assert.ok(own, `gateway/wire/${id}/index.ts exports no WireFormat with id "${id}"`);
    assert.equal(WIRE[id], own, `gateway/wire/index.ts must register the object gateway/wire/${id}/index.ts exports`);
    assert.ok(Array.isArray(own.routes) && own.routes.length > 0, `gateway/wire/${id}: the format has no routes`);
  }
});

test(`no source file is longer than ${MAX_LINES} lines`, () => {
  const files = ['gateway', 'main', 'renderer', 'test', 'bench'].flatMap(sourceFiles);
  const long = files.map((f) => ({ f, n: lineCount(readFileSync(join(ROOT, f), 'utf8')) })).filter((x) => x.n > MAX_LINES);
  assert.deepEqual(
    long.map((x) => `${x.f} (${x.n} lines)`),
    [],
    `Split these files (style.md habit 9):\n${long.map((x) => `${x.f}: ${x.n} lines`).join('\n')}`,
  );
});
