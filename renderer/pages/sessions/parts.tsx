/** Small pieces the sessions list and a session's view share: its state, tool and cache figures. */
import type { LogEntry, SessionView } from '../../lib/api.js';
import { BUCKET_KEYS, USAGE_BUCKETS, type BucketKey } from '../../../gateway/contract/usage-buckets.js';
import { Badge, type Tone } from '../../components/ui.js';
import { TOOL_NAMES } from '../../../gateway/contract/sessions.js';

const TONES: Record<SessionView['state'], Tone> = { active: 'ok', idle: 'muted', paused: 'bad' };

const GUARD_NAMES: Record<string, string> = {
  'session-cap': 'session cap',
  loop: 'loop guard',
  'repeated-body': 'repeated request',
  budget: 'budget window',
};

export function StateBadge({ s }: { s: SessionView }) {
  return <Badge tone={TONES[s.state]}>{s.state}</Badge>;
}

/** The guard that paused a session, in words (the full reason is its title and the detail view's). */
export function guardName(s: SessionView): string | null {
  return s.pause ? (GUARD_NAMES[s.pause.guard] ?? s.pause.guard) : null;
}

export function toolName(tool: SessionView['tool']): string {
  return TOOL_NAMES[tool];
}

/** Cache-hit rate as a percentage: 82.4 %. Sessions without prompt tokens read "—". */
export function hitRate(s: SessionView): string {
  return s.promptTokens === 0 ? '—' : `${(s.cacheHitRate * 100).toFixed(1)} %`;
}

const PROMPT = BUCKET_KEYS.filter((k) => USAGE_BUCKETS[k].family !== 'output');
const OUTPUT = BUCKET_KEYS.filter((k) => USAGE_BUCKETS[k].family === 'output');

/** A request's prompt tokens (uncached, cache read, cache write) and output tokens, as the session counts them. */
export function requestTokens(u: LogEntry['usage']): { prompt: number; output: number } {
  const sum = (keys: readonly BucketKey[]): number => keys.reduce((n, k) => n + (u[k] ?? 0), 0);
  return { prompt: sum(PROMPT), output: sum(OUTPUT) };
}
