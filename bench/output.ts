/** Where a run's results go: bench/results/<timestamp>.{json,md} and latest.{json,md}, or a profile summary. */
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CellResult } from './cell.js';
import type { BenchPath, Phase } from './matrix.js';
import { REPO } from './processes.js';
import { profileMarkdown, summariseProfile } from './profile.js';
import { markdownReport } from './report.js';
import type { BenchResults } from './results.js';

export const RESULTS = join(REPO, 'bench/results');
export const PROFILES = join(RESULTS, 'profiles');

export function stamp(d: Date): string {
  return d.toISOString().slice(0, 19).replace(/:/g, '-') + 'Z';
}

/** Writes the JSON and the Markdown of the run; returns the Markdown and the path they share. */
export function writeResults(results: BenchResults): { markdown: string; base: string } {
  const markdown = markdownReport(results);
  const json = JSON.stringify(results, null, 2) + '\n';
  const base = join(RESULTS, stamp(new Date(results.startedAt)));
  writeFileSync(`${base}.json`, json);
  writeFileSync(`${base}.md`, markdown);
  writeFileSync(join(RESULTS, 'latest.json'), json);
  writeFileSync(join(RESULTS, 'latest.md'), markdown);
  return { markdown, base };
}

/** Summarises the gateway's .cpuprofile over the measured cell only; returns the Markdown and where it went. */
export function writeProfileSummary(
  pid: number,
  path: BenchPath,
  phase: Phase,
  cell: CellResult,
  startedAt: Date,
): { markdown: string; file: string; profile: string } {
  const name = readdirSync(PROFILES).find((f) => f.endsWith('.cpuprofile') && f.includes(`.${pid}.`));
  if (!name) throw new Error(`no CPU profile of pid ${pid} in ${PROFILES}`);
  const profile = join(PROFILES, name);
  const markdown =
    `# CPU profile of ${path.label}, ${phase.label} — ${startedAt.toISOString()}\n\n` +
    `Under the profiler: ${cell.rps.toFixed(0)} req/s, ${cell.gatewayCpuUs?.toFixed(0) ?? '–'} µs gateway CPU per request (the profiler adds overhead).\n\n` +
    profileMarkdown(summariseProfile(profile, cell.windowUs), 'Where the gateway spends its CPU');
  const file = join(PROFILES, `${stamp(startedAt)}-${path.id.replace(/>/g, '-to-')}-${phase.id}.md`);
  writeFileSync(file, markdown);
  return { markdown, file, profile };
}
