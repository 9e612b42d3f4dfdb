/**
 * gateway/contract/ is the ground the console and the Electron shell stand on, so every module in
 * it must build for a browser: compiled with the DOM library and no Node types, it has no errors,
 * and it loads no package but those below (the architecture test refuses `node:` and Fastify
 * imports by name; this catches a Node global such as Buffer or process, too).
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { REPO } from '../helpers/gateway.js';

const PACKAGES = ['@sinclair/typebox', '@sinclair/typebox/value', 'eventsource-parser'];

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? modules(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

test(`every module of gateway/contract/ builds for a browser, loading no package but ${PACKAGES.join(', ')}`, () => {
  const files = modules(join(REPO, 'gateway/contract'));
  assert.ok(files.some((f) => f.endsWith('gateway/contract/admin/client.ts')));
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: [],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  });
  const problems = ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  assert.deepEqual(problems, []);
  const ours = program.getSourceFiles().filter((f) => !f.fileName.includes('/node_modules/') && !f.isDeclarationFile);
  assert.ok(
    ours.every((f) => f.fileName.startsWith(join(REPO, 'gateway/contract/'))),
    'imports outside contract/',
  );
  const packages = new Set(
    ours
      .flatMap((f) => ts.preProcessFile(f.text, true, true).importedFiles.map((i) => i.fileName))
      .filter((s) => !s.startsWith('.')),
  );
  assert.deepEqual([...packages].sort(), [...PACKAGES].sort());
});
