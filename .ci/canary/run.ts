/**
 * `npm run canary`: installs the newest release of each coding CLI (Claude Code, Codex, Gemini CLI,
 * OpenCode) into a temporary folder outside the project, with a newer Node from npm where a CLI's
 * `engines` need one, runs the real-CLI end-to-end suites (test/e2e/) with it against every upstream
 * protocol, and prints a pass/fail matrix per CLI and version; .ci/canary/results/ keeps it as Markdown
 * and JSON, with each CLI's test log. Exits 1 when any cell is red. docs/canary.md says more.
 *
 *   npm run canary -- [CLI[@version] …] [--keep] [--no-build] [--out DIR]
 */
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLIENTS, readPinned, suitesOf, type Client } from './clients.js';
import { allGreen, failedRow, testedRow, toMarkdown, toText, type Matrix, type Row } from './matrix.js';
import { prepare } from './prepare.js';
import { failure, run, stopAll } from './proc.js';
import { runSuites } from './suite.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const USAGE = `npm run canary -- [CLI[@version] …] [--keep] [--no-build] [--out DIR]
  CLI       ${CLIENTS.map((c) => c.id).join(', ')} (default: all, at their newest release)
  @version  a version, range or dist-tag instead of "latest", to reproduce a result
  --keep    keep the temporary folder with the installed CLIs and Node
  --no-build  test the dist/ already built instead of running "npm run build" first
  --out DIR   where the matrix and logs go (default: .ci/canary/results)`;

interface Options {
  picks: Array<{ client: Client; want: string }>;
  keep: boolean;
  build: boolean;
  out: string;
}

function parse(argv: readonly string[]): Options {
  const o: Options = { picks: [], keep: false, build: true, out: join(REPO, '.ci/canary/results') };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--keep') o.keep = true;
    else if (a === '--no-build') o.build = false;
    else if (a === '--out' && argv[i + 1]) o.out = resolve(argv[++i]!);
    else if (a === '--help' || a === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else if (!a.startsWith('-')) {
      const at = a.indexOf('@', 1);
      const id = at < 0 ? a : a.slice(0, at);
      const client = CLIENTS.find((c) => c.id === id);
      if (!client) throw new Error(`unknown CLI "${id}"; choose from ${CLIENTS.map((c) => c.id).join(', ')}`);
      o.picks.push({ client, want: at < 0 ? 'latest' : a.slice(at + 1) });
    } else throw new Error(`unknown option ${a}\n${USAGE}`);
  }
  if (o.picks.length === 0) o.picks = CLIENTS.map((client) => ({ client, want: 'latest' }));
  return o;
}

const say = (line: string): void => void process.stderr.write(line + '\n');

async function main(): Promise<number> {
  const o = parse(process.argv.slice(2));
  if (o.build) {
    say('Building dist/ (the e2e suites run the tollgate CLI from it)…');
    const built = await run('npm', ['run', 'build'], { cwd: REPO, env: process.env, timeoutMs: 15 * 60_000 });
    if (built.code !== 0) throw new Error(failure('npm run build', built));
  }
  const root = mkdtempSync(join(tmpdir(), 'tollgate-canary-'));
  const cleanUp = (): void => {
    if (!o.keep) rmSync(root, { recursive: true, force: true });
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      stopAll();
      cleanUp();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  }
  const startedAt = new Date().toISOString();
  const outDir = join(o.out, startedAt.replace(/[:.]/g, '-'));
  mkdirSync(outDir, { recursive: true });
  const pinned = readPinned(REPO);
  const rows: Row[] = [];
  try {
    for (const { client, want } of o.picks) {
      say(`\n${client.name}: ${client.pkg}@${want}…`);
      const p = await prepare(client, want, root);
      const pin = pinned.get(client.pkg) ?? null;
      if (!p.ok) {
        say(`  red: ${p.stage}: ${p.reason}`);
        rows.push(failedRow(p, pin));
        continue;
      }
      const on = p.node ? `Node ${p.node.version} from npm first on PATH (it asks for node ${p.engines})` : 'this Node';
      say(`  ${p.version} installed, with ${on}; --version says "${p.reports}"`);
      say(`  running ${suitesOf(REPO, client).join(', ')}`);
      const log = join(outDir, `${client.id}.log`);
      const suites = await runSuites(REPO, p, log);
      const passed = suites.outcomes.filter((t) => t.result === 'pass').length;
      say(`  ${passed}/${suites.outcomes.length} passed${suites.error ? `; ${suites.error}` : ''} (log: ${log})`);
      rows.push(testedRow(p, suites, pin));
      // Hundreds of MB each: gone once its suites ran, unless asked to keep them.
      if (!o.keep) rmSync(join(root, client.id), { recursive: true, force: true });
    }
  } finally {
    cleanUp();
  }
  const matrix: Matrix = {
    startedAt,
    finishedAt: new Date().toISOString(),
    host: { node: process.version, platform: process.platform, arch: process.arch },
    rows,
  };
  const markdown = toMarkdown(matrix);
  writeFileSync(join(outDir, 'matrix.json'), JSON.stringify(matrix, null, 2) + '\n');
  writeFileSync(join(outDir, 'matrix.md'), markdown);
  // The newest run, where a reader (and the scheduled workflow) looks first.
  for (const f of ['matrix.json', 'matrix.md']) copyFileSync(join(outDir, f), join(o.out, f));
  if (process.env.GITHUB_STEP_SUMMARY) appendFileSync(process.env.GITHUB_STEP_SUMMARY, markdown);
  console.log(`\n${toText(matrix)}\n\nSaved in ${outDir}${o.keep ? `; the CLIs are kept in ${root}` : ''}`);
  return allGreen(matrix) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    say(`canary: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(2);
  },
);
