import { createInterface } from 'node:readline/promises';

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

/** Writing to stdout, for every command. */
export function print(text: string): void {
  watchStdout();
  process.stdout.write(text + '\n');
}

export function json(value: unknown): void {
  print(JSON.stringify(value, null, 2));
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
