/**
 * The canary's matrix: one row per CLI and version, one cell per upstream protocol (the connect
 * suite's tests name the line they go through) and one for the CLI's other e2e tests. A cell is
 * green only when tests ran and all passed; a failure, a skipped test, no test at all, or a CLI
 * that did not install or run is red with its reason.
 */
import { UPSTREAM_PROTOCOLS, type UpstreamProtocol } from './clients.js';
import type { Outcome } from './outcomes.js';
import type { Prepared, Unprepared } from './prepare.js';
import type { SuiteRun } from './suite.js';

export type Column = UpstreamProtocol | 'more';
export const COLUMNS: readonly Column[] = [...UPSTREAM_PROTOCOLS, 'more'];

export interface Cell {
  state: 'pass' | 'fail';
  passed: number;
  total: number;
  reason?: string;
}

export interface Row {
  client: string;
  name: string;
  pkg: string;
  /** The version tested; absent when even npm could not say which. */
  version: string | null;
  /** The version CI pins, from .ci/run. */
  pinned: string | null;
  /** The package's `engines.node`. */
  engines: string | null;
  /** The Node fetched to run it, or null when this machine's Node meets its engines. */
  node: string | null;
  /** What `--version` printed. */
  reports: string | null;
  /** Null: the CLI has no tests for that column (only "more" can be empty). */
  cells: Record<Column, Cell | null>;
}

export interface Matrix {
  startedAt: string;
  finishedAt: string;
  host: { node: string; platform: string; arch: string };
  rows: Row[];
}

/** The column a test belongs to: the protocol of the line its name says it goes through, else "more". */
export function columnOf(name: string): Column {
  return UPSTREAM_PROTOCOLS.find((p) => name.includes(` ${p} line`)) ?? 'more';
}

function cellOf(tests: readonly Outcome[], empty: string | null): Cell | null {
  if (tests.length === 0) return empty === null ? null : { state: 'fail', passed: 0, total: 0, reason: empty };
  const passed = tests.filter((t) => t.result === 'pass').length;
  const bad = tests.find((t) => t.result !== 'pass');
  const cell: Cell = { state: bad ? 'fail' : 'pass', passed, total: tests.length };
  if (bad) cell.reason = `${bad.result === 'skip' ? 'skipped' : 'failed'}: ${bad.name}: ${firstLine(bad.reason ?? '')}`;
  return cell;
}

const firstLine = (text: string): string =>
  text
    .split('\n')
    .find((l) => l.trim() !== '')
    ?.trim() ?? '';

/** The row of a CLI that installed and ran its suites. */
export function testedRow(p: Prepared, run: SuiteRun, pinned: string | null): Row {
  const cells = Object.fromEntries(
    COLUMNS.map((c) => {
      const tests = run.outcomes.filter((o) => columnOf(o.name) === c);
      // "more" may have no tests; a protocol column without any is red.
      const empty = c === 'more' ? (run.error ?? null) : (run.error ?? 'no test ran for this protocol');
      return [c, cellOf(tests, empty)];
    }),
  ) as Row['cells'];
  return {
    client: p.client.id,
    name: p.client.name,
    pkg: p.client.pkg,
    version: p.version,
    pinned,
    engines: p.engines ?? null,
    node: p.node?.version ?? null,
    reports: p.reports,
    cells,
  };
}

/** The row of a CLI that could not be installed or run: every cell red, with the stage and reason. */
export function failedRow(u: Unprepared, pinned: string | null): Row {
  const cell: Cell = { state: 'fail', passed: 0, total: 0, reason: `${u.stage}: ${u.reason}` };
  return {
    client: u.client.id,
    name: u.client.name,
    pkg: u.client.pkg,
    version: u.version ?? null,
    pinned,
    engines: u.engines ?? null,
    node: u.node?.version ?? null,
    reports: null,
    cells: Object.fromEntries(COLUMNS.map((c) => [c, cell])) as Row['cells'],
  };
}

export const allGreen = (m: Matrix): boolean =>
  m.rows.every((r) => COLUMNS.every((c) => r.cells[c] === null || r.cells[c]!.state === 'pass'));

function mark(cell: Cell | null, md: boolean): string {
  if (cell === null) return '–';
  const count = cell.total > 1 ? ` ${cell.passed}/${cell.total}` : '';
  if (cell.state === 'pass') return `${md ? '✅' : 'pass'}${count}`;
  return `${md ? '❌' : 'FAIL'}${cell.total > 0 ? ` ${cell.passed}/${cell.total}` : ''}`;
}

const versionOf = (r: Row): string =>
  `${r.version ?? '?'}${r.pinned && r.pinned !== r.version ? ` (CI: ${r.pinned})` : ''}`;
const nodeOf = (r: Row, m: Matrix): string => (r.node ? `${r.node} (fetched)` : m.host.node.replace(/^v/, ''));

/** Each red cell's reason, one line each; a reason every column of a row shares (a CLI that did not install), once. */
export function failures(m: Matrix): string[] {
  const out: string[] = [];
  for (const r of m.rows) {
    const who = r.version ? `${r.name} ${r.version}` : r.name;
    const red = COLUMNS.filter((c) => r.cells[c]?.state === 'fail');
    const reasons = new Set(red.map((c) => r.cells[c]!.reason));
    if (red.length === COLUMNS.length && reasons.size === 1) {
      out.push(`${who} · every column: ${[...reasons][0]}`);
      continue;
    }
    for (const c of red) out.push(`${who} · ${c}: ${r.cells[c]!.reason}`);
  }
  return out;
}

export function toText(m: Matrix): string {
  const head = ['CLI', 'version', 'node', ...COLUMNS];
  const rows = m.rows.map((r) => [r.name, versionOf(r), nodeOf(r, m), ...COLUMNS.map((c) => mark(r.cells[c], false))]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const reasons = failures(m);
  return [
    line(head),
    ...rows.map(line),
    ...(reasons.length ? ['', 'Red cells:', ...reasons.map((r) => `  ${r}`)] : []),
  ].join('\n');
}

export function toMarkdown(m: Matrix): string {
  const head = ['CLI', 'version', 'Node', ...COLUMNS];
  const rows = m.rows.map((r) => [
    `${r.name} (\`${r.pkg}\`)`,
    versionOf(r),
    nodeOf(r, m),
    ...COLUMNS.map((c) => mark(r.cells[c], true)),
  ]);
  const reasons = failures(m);
  return [
    `# Client canary, ${m.startedAt.slice(0, 16).replace('T', ' ')} UTC`,
    '',
    `The newest release of each coding CLI, through Tollgate to each upstream protocol (test/e2e/), on ${m.host.platform}-${m.host.arch} with Node ${m.host.node.replace(/^v/, '')}. "more": the CLI's other e2e tests.`,
    '',
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
    '',
    ...(reasons.length ? ['## Red cells', '', ...reasons.map((r) => `- ${r.replace(/\|/g, '\\|')}`)] : ['All green.']),
    '',
  ].join('\n');
}
