import { createInterface } from 'node:readline/promises';
import { printable } from './format.js';

/**
 * A reader that goes away (`tollgate logs | head`) closes the pipe: the rest of the output has
 * nowhere to go, which is not an error. Any other write error is reported like every CLI error.
 */
let watching = false;
function watchStdout(): void {
  if (watching) return;
  watching = true;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    process.stderr.write(`tollgate: cannot write the output: ${err.message}\n`);
    process.exit(1);
  });
}

/**
 * Writing to stdout, for every command. Each line is made printable (format.ts): what commands
 * print quotes upstream model lists, price files and what clients sent, and none of it may move
 * the cursor or retitle the terminal. Already printable text passes unchanged.
 */
export function print(text: string): void {
  watchStdout();
  process.stdout.write(text.split('\n').map(printable).join('\n') + '\n');
}

/**
 * JSON.stringify escapes C0 controls itself; C1 controls and bidirectional overrides become JSON
 * escapes too, so the output parses to the exact values and still prints nothing a terminal acts on.
 */
export function json(value: unknown): void {
  watchStdout();
  const text = JSON.stringify(value, null, 2).replace(
    /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  process.stdout.write(text + '\n');
}

/** Asks on the terminal (the prompt on stderr, so stdout stays the command's output); true on y or yes. */
export async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}
