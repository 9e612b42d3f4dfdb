import { createInterface } from 'node:readline/promises';

/** Writing to stdout, for every command. */
export function print(text: string): void {
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
