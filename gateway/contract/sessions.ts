/**
 * Agent sessions as the gateway and its clients agree on them (docs/sessions.md): the tools a
 * request can come from and their names, the budget windows, the defaults of the guards, and the
 * cache figures every view derives the same way.
 */
import { parseUsd } from './money.js';

/** The tools Tollgate tells apart by their headers (gateway/sessions/identify.ts). */
export const TOOLS = [
  'claude-code',
  'codex',
  'gemini-cli',
  'opencode',
  'openai-sdk',
  'anthropic-sdk',
  'google-genai-sdk',
  'curl',
  'unknown',
] as const;
export type ToolId = (typeof TOOLS)[number];

export const TOOL_NAMES: Record<ToolId, string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  'gemini-cli': 'Gemini CLI',
  opencode: 'OpenCode',
  'openai-sdk': 'OpenAI SDK',
  'anthropic-sdk': 'Anthropic SDK',
  'google-genai-sdk': 'Google Gen AI SDK',
  curl: 'curl',
  unknown: 'unknown',
};

export function isToolId(v: string): v is ToolId {
  return (TOOLS as readonly string[]).includes(v);
}

/** The rolling windows a key's budgets are kept over, and their lengths. */
export const BUDGET_WINDOWS = {
  '5h': 5 * 3_600_000,
  '1d': 86_400_000,
  '7d': 7 * 86_400_000,
  '30d': 30 * 86_400_000,
} as const;
export type BudgetWindow = keyof typeof BUDGET_WINDOWS;
export const WINDOW_IDS = Object.keys(BUDGET_WINDOWS) as BudgetWindow[];

/** A key's budgets: micro-USD per window, only the windows it has. */
export type Budgets = Partial<Record<BudgetWindow, number>>;

/** A session without an id of its own ends after this long without a request. */
export const SESSION_IDLE_MS = 30 * 60_000;
/** The same tool call answered the same way this many times in a row pauses a session; 0 turns it off. */
export const DEFAULT_LOOP_LIMIT = 5;
/** The same request body more than this many times within LOOP_BODY_WINDOW_MS pauses a session. */
export const LOOP_BODY_REPEATS = 10;
export const LOOP_BODY_WINDOW_MS = 60_000;
/** A cap or window at this share of its amount warns, once. */
export const WARN_PERCENT = 80;

/** The guards that pause a session or refuse a key. */
export const GUARDS = ['session-cap', 'loop', 'repeated-body', 'budget'] as const;
export type Guard = (typeof GUARDS)[number];

/**
 * Budgets as people type them, `5h=10,1d=25.50`: each window at most once, amounts as parseUsd
 * reads them. Throws a RangeError naming what is wrong.
 */
export function parseBudgets(text: string): Budgets {
  const out: Budgets = {};
  for (const part of text.split(',')) {
    const p = part.trim();
    if (p === '') continue;
    const eq = p.indexOf('=');
    const w = eq < 0 ? p : p.slice(0, eq).trim();
    if (!Object.hasOwn(BUDGET_WINDOWS, w))
      throw new RangeError(`"${w}" is not a budget window: use ${WINDOW_IDS.join(', ')}, as in 1d=20.`);
    if (eq < 0) throw new RangeError(`The ${w} budget needs an amount, as in ${w}=20.`);
    if (out[w as BudgetWindow] !== undefined) throw new RangeError(`The ${w} budget is given twice.`);
    out[w as BudgetWindow] = parseUsd(p.slice(eq + 1).trim());
  }
  return out;
}

/** Tokens as a session or a row counts them for its cache figures. */
export interface CacheTokens {
  /** Every prompt token: uncached, read from the cache, written to it. */
  promptTokens: number;
  cacheReadTokens: number;
}

/** Cache-read tokens over all prompt tokens, 0 to 1; 0 when there was no prompt. */
export function cacheHitRate(t: CacheTokens): number {
  return t.promptTokens > 0 ? t.cacheReadTokens / t.promptTokens : 0;
}
