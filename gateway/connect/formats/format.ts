import { GatewayError } from '../../core/errors.js';
import type { FormatId } from '../types.js';

/** One change to a document: set the value at `path`, or remove it when `value` is undefined. */
export interface Change {
  path: readonly string[];
  value: unknown;
}

/**
 * A file format the engine can edit in place. `edit` must keep every byte outside the changed
 * entries as it was (comments, order, spacing, unknown keys): each format uses a library that
 * edits the text rather than re-serialising the whole document.
 */
export interface FileFormat {
  id: FormatId;
  /** The document as plain data; throws a `file_invalid` GatewayError naming the file when it does not parse. */
  read(text: string, file: string): Record<string, unknown>;
  edit(text: string, changes: readonly Change[]): string;
}

/** The error for a file Tollgate will not touch because it cannot read it. Nothing is written. */
export function invalidFile(file: string, what: string, detail: string): GatewayError {
  return new GatewayError(
    'invalid_request',
    `${file} is not valid ${what} (${detail}). Tollgate changed nothing: fix the file or move it away, then try again.`,
    {
      code: 'file_invalid',
      status: 409,
    },
  );
}

/** 1-based line and column of a character offset, for error messages. */
export function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** The value at `path` in a parsed document, or undefined. */
export function valueAt(doc: unknown, path: readonly string[]): unknown {
  let node = doc;
  for (const key of path) {
    if (!isPlainObject(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

/** The line ending a text already uses (CRLF when any line has one). */
export function lineEnding(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

/**
 * Tables left empty after entries at `paths` were taken out go too, deepest first, unless they
 * existed in `before` (the file as it was before connect).
 */
export function pruneEmptyTables(
  format: FileFormat,
  text: string,
  paths: readonly (readonly string[])[],
  before: Record<string, unknown>,
): string {
  const prefixes = new Map<string, string[]>();
  for (const path of paths)
    for (let i = path.length - 1; i >= 1; i--) prefixes.set(JSON.stringify(path.slice(0, i)), path.slice(0, i));
  const deepestFirst = [...prefixes.values()].sort((a, b) => b.length - a.length);
  let out = text;
  for (const prefix of deepestFirst) {
    const node = valueAt(format.read(out, ''), prefix);
    if (isPlainObject(node) && Object.keys(node).length === 0 && valueAt(before, prefix) === undefined)
      out = format.edit(out, [{ path: prefix, value: undefined }]);
  }
  return out;
}
