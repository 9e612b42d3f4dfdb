/**
 * Runs the real Claude Code CLI (CLAUDE_BIN) in print mode against a test gateway, offline: a
 * throw-away HOME, no non-essential traffic, every permission granted, JSON output.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface ClaudeRun {
  is_error: boolean;
  num_turns: number;
  result: string;
  session_id: string;
  usage: { input_tokens: number };
}

export interface ClaudeTarget {
  /** The working directory, also used as HOME so no user settings leak in. */
  work: string;
  gatewayUrl: string;
  key: string;
  model: string;
  haikuModel: string;
  /** More environment, e.g. MAX_THINKING_TOKENS. */
  env?: Record<string, string>;
}

export async function runClaude(bin: string, args: string[], t: ClaudeTarget): Promise<ClaudeRun> {
  const { stdout } = await run(bin, [...args, '--output-format', 'json', '--dangerously-skip-permissions'], {
    cwd: t.work,
    env: {
      PATH: process.env.PATH,
      HOME: t.work,
      IS_SANDBOX: '1',
      ANTHROPIC_BASE_URL: t.gatewayUrl,
      ANTHROPIC_API_KEY: t.key,
      ANTHROPIC_MODEL: t.model,
      ANTHROPIC_DEFAULT_HAIKU_MODEL: t.haikuModel,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      ...t.env,
    },
  });
  return JSON.parse(stdout) as ClaudeRun;
}

/** As runClaude, for a run expected to end in an error: Claude Code exits 1 then, and its JSON result says why. */
export async function runClaudeToEnd(bin: string, args: string[], t: ClaudeTarget): Promise<ClaudeRun> {
  try {
    return await runClaude(bin, args, t);
  } catch (err) {
    const out = (err as { stdout?: string }).stdout ?? '';
    if (!out.trim().startsWith('{')) throw err;
    return JSON.parse(out) as ClaudeRun;
  }
}
