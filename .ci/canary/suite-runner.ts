/**
 * Runs test files in this process's environment (the CLI's binary variable and PATH set by the
 * canary) with node:test's `run()`, one file at a time: each finished test becomes one JSON line
 * on stdout (.ci/canary/outcomes.ts), and a readable log, with what the test files printed, goes to
 * the file after `--log`. A file that fails before any test runs is one failed "test" named after
 * the file, its reason the last lines the file printed to stderr.
 *
 *   node --import tsx .ci/canary/suite-runner.ts --log run.log test/e2e/a.test.ts …
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { run } from 'node:test';
import { outcomeOf, type Outcome, type TestData } from './outcomes.js';

const args = process.argv.slice(2);
const at = args.indexOf('--log');
const log = at >= 0 ? args.splice(at, 2)[1]! : undefined;
const write = (text: string): void => {
  if (log) appendFileSync(log, text);
};
if (log) writeFileSync(log, '');
// Started from inside a test run (the canary's own tests), this would make run() refuse to run anything.
delete process.env.NODE_TEST_CONTEXT;

const stderr = new Map<string, string[]>();
let reported = 0;
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** The fields of node:test's events read here. */
interface Event {
  type: string;
  data: TestData & { message?: string };
}

for await (const { type, data } of run({ files: args, concurrency: 1 }) as AsyncIterable<Event>) {
  if (type === 'test:stdout' || type === 'test:stderr') {
    write(data.message ?? '');
    if (type === 'test:stderr' && data.file) {
      const lines = stderr.get(data.file) ?? [];
      lines.push(...String(data.message).split('\n').filter(Boolean));
      stderr.set(data.file, lines.slice(-60));
    }
    continue;
  }
  if (type !== 'test:pass' && type !== 'test:fail') continue;
  const outcome: Outcome | undefined = outcomeOf(type, data);
  if (!outcome) continue;
  if (outcome.result === 'fail' && outcome.name === outcome.file && /^test failed$/.test(outcome.reason ?? '')) {
    outcome.reason = `the file failed to run: ${crashLine(stderr.get(outcome.file ?? '') ?? [])}`;
  }
  const mark = outcome.result === 'pass' ? '✔' : outcome.result === 'skip' ? '﹣' : '✖';
  write(
    `${mark} ${outcome.name} (${seconds(outcome.durationMs)})${outcome.reason ? `\n    ${outcome.reason.replace(/\n/g, '\n    ')}` : ''}\n`,
  );
  process.stdout.write(JSON.stringify(outcome) + '\n');
  reported++;
}
if (reported === 0) {
  process.stderr.write(`no test reported from ${args.join(', ')}\n`);
  process.exitCode = 1;
}

/** The line of a crashed file's stderr that says what went wrong: the error's own line, else the last that is not a stack frame. */
function crashLine(lines: readonly string[]): string {
  const said = lines.map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('at ') && !/^Node\.js v/.test(l));
  return [...said].reverse().find((l) => /^(\w*Error|Error)\b.*:/.test(l)) ?? said.at(-1) ?? 'no output';
}
