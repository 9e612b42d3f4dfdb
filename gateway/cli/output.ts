/** Writing to stdout, for every command. */
export function print(text: string): void {
  process.stdout.write(text + '\n');
}

export function json(value: unknown): void {
  print(JSON.stringify(value, null, 2));
}
