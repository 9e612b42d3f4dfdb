import { applyEdits, modify, parse, printParseErrorCode, type FormattingOptions, type ParseError } from 'jsonc-parser';
import { invalidFile, isPlainObject, lineColumn, lineEnding, type Change, type FileFormat } from './format.js';

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
    if (first) throw invalidFile(file, 'JSON', `${printParseErrorCode(first.error)} at ${lineColumn(text, first.offset)}`);
    if (!isPlainObject(doc)) throw invalidFile(file, 'JSON', 'the top level is not an object');
    return doc;
  },
  edit(text, changes: readonly Change[]) {
    const created = text.trim() === '';
    const formattingOptions = formatting(text);
    let out = created ? '' : text;
    for (const change of changes) {
      out = applyEdits(out, modify(out, [...change.path], change.value, { formattingOptions }));
    }
    return created && out !== '' ? out + formattingOptions.eol : out;
  },
};

/** The indentation and line ending the file already uses, so inserted entries look like the rest. */
function formatting(text: string): FormattingOptions {
  const indent = /^([ \t]+)["}\]/]/m.exec(text)?.[1];
  const eol = lineEnding(text);
  if (indent?.startsWith('\t')) return { insertSpaces: false, tabSize: 1, eol };
  return { insertSpaces: true, tabSize: indent?.length ?? 2, eol };
}

