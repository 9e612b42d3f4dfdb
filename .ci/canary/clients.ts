/**
 * The coding CLIs the canary installs, as data: the npm package, the command it puts in
 * node_modules/.bin, and the variable the end-to-end tests read it from. Each CLI's suites are the
 * files in test/e2e/ named after it (`connect-<id>.test.ts` drives every upstream protocol; the
 * others, such as claude-code-thinking.test.ts, join the "more" column), so a new e2e file for a
 * CLI joins the canary without an edit here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Client {
  id: string;
  name: string;
  pkg: string;
  /** The command in node_modules/.bin. */
  bin: string;
  /** The variable test/e2e reads the binary's path from. */
  envVar: string;
}

export const CLIENTS: readonly Client[] = [
  { id: 'claude-code', name: 'Claude Code', pkg: '@anthropic-ai/claude-code', bin: 'claude', envVar: 'CLAUDE_BIN' },
  { id: 'codex', name: 'Codex CLI', pkg: '@openai/codex', bin: 'codex', envVar: 'CODEX_BIN' },
  { id: 'gemini-cli', name: 'Gemini CLI', pkg: '@google/gemini-cli', bin: 'gemini', envVar: 'GEMINI_BIN' },
  { id: 'opencode', name: 'OpenCode', pkg: 'opencode-ai', bin: 'opencode', envVar: 'OPENCODE_BIN' },
];

/** The upstream protocols the connect suites run each CLI against, as their test names say them. */
export const UPSTREAM_PROTOCOLS = ['openai-chat', 'anthropic', 'openai-responses', 'gemini'] as const;
export type UpstreamProtocol = (typeof UPSTREAM_PROTOCOLS)[number];

/** The e2e files of one CLI, relative to the repository: its connect suite first. */
export function suitesOf(repo: string, client: Client): string[] {
  const dir = join(repo, 'test/e2e');
  const names = readdirSync(dir).filter((f) => f.endsWith('.test.ts'));
  const connect = `connect-${client.id}.test.ts`;
  const more = names.filter((f) => f.startsWith(`${client.id}.`) || f.startsWith(`${client.id}-`)).sort();
  return [...(names.includes(connect) ? [connect] : []), ...more].map((f) => `test/e2e/${f}`);
}

/**
 * The versions CI pins, read from `.ci/run`'s `CLIS="pkg@version …"` line, so the matrix can show
 * the newest release next to the one the suite is known to pass with.
 */
export function pinnedVersions(ciScript: string): Map<string, string> {
  const line = /^\s*CLIS="([^"]*)"/m.exec(ciScript)?.[1] ?? '';
  const out = new Map<string, string>();
  for (const spec of line.split(/\s+/).filter(Boolean)) {
    const at = spec.lastIndexOf('@');
    if (at > 0) out.set(spec.slice(0, at), spec.slice(at + 1));
  }
  return out;
}

export function readPinned(repo: string): Map<string, string> {
  try {
    return pinnedVersions(readFileSync(join(repo, '.ci/run'), 'utf8'));
  } catch {
    return new Map();
  }
}
