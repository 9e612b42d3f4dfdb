import {
  applyEdits,
  findNodeAtLocation,
  modify,
  parse,
  parseTree,
  printParseErrorCode,
  type FormattingOptions,
  type ParseError,
} from 'jsonc-parser';
import { invalidFile, isPlainObject, lineColumn, lineEnding, valueAt, type Change, type FileFormat } from './format.js';

/**
 * JSON and JSON with comments (Claude Code's and Gemini CLI's settings.json), edited with
 * jsonc-parser's `modify`: each change becomes a text edit of its own entry, so comments,
 * order and formatting elsewhere stay byte for byte. One known shift: a new entry is appended
 * after the object's last value, so a `// comment` ending that line ends up after the new entry
 * (still in the file; taking the entry out puts it back).
 */
export const json: FileFormat = {
  id: 'json',
  read(text, file) {
    if (text.trim() === '') return {};
    const errors: ParseError[] = [];
    const doc: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
    const first = errors[0];
    if (first)
      throw invalidFile(file, 'JSON', `${printParseErrorCode(first.error)} at ${lineColumn(text, first.offset)}`);
    if (!isPlainObject(doc)) throw invalidFile(file, 'JSON', 'the top level is not an object');
    return doc;
  },
  edit(text, changes: readonly Change[]) {
    const created = text.trim() === '';
    const formattingOptions = formatting(text);
    let out = created ? '' : text;
    for (const change of changes) {
      out =
        out === ''
          ? applyEdits(out, modify(out, [...change.path], change.value, { formattingOptions }))
          : editInPlace(out, change, formattingOptions);
    }
    return created && out !== '' ? out + formattingOptions.eol : out;
  },
};

/**
 * One change, touching no byte of the user's. jsonc-parser formats an insertion or removal
 * together with the whole line it starts on, so `"permissions": { "allow": ["Read"] }` next to a
 * new entry would be spread over five lines. Here a replacement is applied as computed,
 * unformatted; a removal takes out the entry's own line (see removeEntry); an insertion is
 * formatted, and only the inserted property is taken from the formatted text and put in at the
 * place of the unformatted one.
 */
function editInPlace(text: string, change: Change, formattingOptions: FormattingOptions): string {
  if (change.value === undefined) return removeEntry(text, change.path);
  const raw = modify(text, [...change.path], change.value, {});
  const edit = raw[0];
  if (raw.length !== 1 || !edit || edit.length !== 0) return applyEdits(text, raw);
  const formatted = applyEdits(text, modify(text, [...change.path], change.value, { formattingOptions }));
  const span = insertedSpan(formatted, change.path, parse(text) as unknown);
  if (!span) return formatted;
  return text.slice(0, edit.offset) + formatted.slice(span.start, span.end) + text.slice(edit.offset);
}

/**
 * Takes out one property, keeping every other byte. One with lines of its own loses those
 * lines (its trailing comma and line comment included) when a property follows; the last one
 * loses its line break and itself, and the comma after the property before it goes (strict JSON
 * has no trailing comma), so a comment at the end of its line stays, on the line before: the
 * mirror of an insertion. Otherwise only the property and the comma joining it to a neighbour go.
 */
function removeEntry(text: string, path: readonly string[]): string {
  const property = findNodeAtLocation(parseTree(text)!, [...path])?.parent;
  const siblings = property?.parent?.children;
  if (!property || !siblings) return text;
  const at = siblings.indexOf(property);
  const start = property.offset;
  const end = start + property.length;
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const ownLine = lineStart > 0 && /^[ \t]*$/.test(text.slice(lineStart, start));
  const next = siblings[at + 1];
  if (next) {
    const comma = skipTrivia(text, end);
    const tail = /^[ \t]*(\/\/[^\n]*)?\n/.exec(text.slice(comma + 1));
    if (ownLine && text[comma] === ',' && tail)
      return text.slice(0, lineStart) + text.slice(comma + 1 + tail[0].length);
    return text.slice(0, start) + text.slice(next.offset);
  }
  const from = ownLine ? lineStart - (text[lineStart - 2] === '\r' ? 2 : 1) : start;
  const previous = siblings[at - 1];
  if (!previous) {
    // The only property: an object left with white space alone becomes `{}`, as an insertion found it.
    const object = property.parent!;
    const inside = [text.slice(object.offset + 1, start), text.slice(end, object.offset + object.length - 1)];
    if (inside.every((t) => t.trim() === ''))
      return text.slice(0, object.offset + 1) + text.slice(object.offset + object.length - 1);
    return text.slice(0, from) + text.slice(end);
  }
  const comma = skipTrivia(text, previous.offset + previous.length);
  if (ownLine && text[comma] === ',' && comma < from)
    return text.slice(0, comma) + text.slice(comma + 1, from) + text.slice(end);
  return text.slice(0, previous.offset + previous.length) + text.slice(end);
}

/** The first offset at or after `from` that is not white space or a comment. */
function skipTrivia(text: string, from: number): number {
  let i = from;
  for (;;) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (text.startsWith('//', i)) i = text.indexOf('\n', i) < 0 ? text.length : text.indexOf('\n', i);
    else if (text.startsWith('/*', i)) i = text.indexOf('*/', i + 2) < 0 ? text.length : text.indexOf('*/', i + 2) + 2;
    else return i;
  }
}

/**
 * Where the new property sits in the formatted text: from the end of the value before it (so the
 * comma and line break come along), or from just inside the braces of an object that was empty.
 */
function insertedSpan(
  formatted: string,
  path: readonly string[],
  before: unknown,
): { start: number; end: number } | undefined {
  let depth = 1;
  while (depth < path.length && valueAt(before, path.slice(0, depth)) !== undefined) depth++;
  const property = findNodeAtLocation(parseTree(formatted)!, [...path.slice(0, depth)])?.parent;
  const object = property?.parent;
  const siblings = object?.children ?? [];
  const at = property ? siblings.indexOf(property) : -1;
  if (!property || !object || at !== siblings.length - 1) return undefined;
  if (at === 0) {
    // Into an object that was empty: up to its closing brace, unless a comment sits in between.
    const close = object.offset + object.length - 1;
    const end = property.offset + property.length;
    return { start: object.offset + 1, end: formatted.slice(end, close).trim() === '' ? close : end };
  }
  const previous = siblings[at - 1]!;
  return { start: previous.offset + previous.length, end: property.offset + property.length };
}

/** The indentation and line ending the file already uses, so inserted entries look like the rest. */
function formatting(text: string): FormattingOptions {
  const indent = /^([ \t]+)["}\]/]/m.exec(text)?.[1];
  const eol = lineEnding(text);
  if (indent?.startsWith('\t')) return { insertSpaces: false, tabSize: 1, eol };
  return { insertSpaces: true, tabSize: indent?.length ?? 2, eol };
}
