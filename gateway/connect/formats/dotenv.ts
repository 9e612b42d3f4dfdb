import { parse } from 'dotenv';
import { GatewayError } from '../../core/errors.js';
import { lineEnding, type Change, type FileFormat } from './format.js';

/**
 * `.env` files (Gemini CLI's ~/.gemini/.env), read with dotenv (the parser Gemini CLI itself
 * uses) and edited line by line: a change touches only the lines that define its own variable.
 * dotenv lets the last definition of a name win, so a set rewrites that line, a removal drops
 * every line defining the name, and a new name is appended.
 */
export const dotenv: FileFormat = {
  id: 'dotenv',
  read(text) {
    // dotenv reads any text: a line it cannot understand is skipped, as Gemini CLI skips it.
    return parse(text);
  },
  edit(text, changes: readonly Change[]) {
    const eol = lineEnding(text);
    const lines = text === '' ? [] : text.split(/\r?\n/);
    // A trailing newline leaves an empty last element; keep it aside so appends go before it.
    const endsWithNewline = lines.at(-1) === '';
    if (endsWithNewline) lines.pop();
    for (const { path, value } of changes) {
      const name = path[0]!;
      const defining = lines.flatMap((line, i) => (definesName(line, name) ? [i] : []));
      for (const i of defining) {
        if (opensMultilineValue(lines[i]!)) {
          throw new GatewayError(
            'invalid_request',
            `${name} in the .env file has a value over several lines; Tollgate will not edit it. Remove that line and try again.`,
            {
              code: 'file_invalid',
              status: 409,
            },
          );
        }
      }
      if (value === undefined) {
        for (const i of defining.reverse()) lines.splice(i, 1);
      } else if (defining.length > 0) {
        lines[defining.at(-1)!] = `${name}=${quote(name, String(value))}`;
      } else {
        lines.push(`${name}=${quote(name, String(value))}`);
      }
    }
    if (lines.length === 0) return '';
    // Keep the file's own convention for the last line; a new file ends with a newline.
    return lines.join(eol) + (endsWithNewline || text === '' ? eol : '');
  },
};

function definesName(line: string, name: string): boolean {
  const m = /^\s*(?:export\s+)?([\w.-]+)\s*(?:=|:\s)/.exec(line);
  return m?.[1] === name;
}

/** A value that starts with a quote its own line does not close continues on the next lines. */
function opensMultilineValue(line: string): boolean {
  const value = line.replace(/^[^=:]*[=:]\s*/, '');
  const q = value[0];
  if (q !== '"' && q !== "'" && q !== '`') return false;
  return value.indexOf(q, 1) === -1;
}

/** Plain when it is safe unquoted; single quotes (taken literally by dotenv) otherwise. */
function quote(name: string, value: string): string {
  if (/^[\w./:@+-]*$/.test(value)) return value;
  if (!value.includes("'") && !/[\r\n]/.test(value)) return `'${value}'`;
  throw new GatewayError(
    'invalid_request',
    `The value for ${name} cannot be written to a .env file (it has a quote or a line break).`,
    { code: 'invalid_value' },
  );
}
