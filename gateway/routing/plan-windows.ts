/**
 * What an upstream's rate-limit headers say about a line's plan windows, kept per line from its
 * latest answer. Anthropic answers every request with `anthropic-ratelimit-unified-{5h,7d}-*`
 * (utilisation as a fraction, reset as epoch seconds, status `allowed`, `allowed_warning` or
 * `rejected`) on subscription-backed keys, and `anthropic-ratelimit-{requests,tokens,…}-*`
 * otherwise; OpenAI sends `x-ratelimit-{limit,remaining,reset}-{requests,tokens}` (a reset as a
 * duration, `6m0s`). The headers reach the client unchanged too (relay/upstream-call.ts); here they
 * become the line's health for the console and the tray. In memory only, like the rest of health.
 */

/** One window of a line's plan or rate limit, as its upstream last reported it. */
export interface PlanWindow {
  /** `5h`, `7d` (Anthropic's unified windows), `requests`, `tokens`, … */
  name: string;
  /** How much of the window is used, 0–1; null when the upstream does not say. */
  utilization: number | null;
  /** When the window resets (ISO 8601); null when the upstream does not say. */
  resetsAt: string | null;
  /** The upstream's word on it (`allowed`, `allowed_warning`, `rejected`); null when none. */
  status: string | null;
}

export interface PlanWindowsView {
  /** When the headers were read (ISO 8601). */
  seenAt: string;
  windows: PlanWindow[];
  /** The rate-limit headers as the upstream sent them. */
  headers: Record<string, string>;
}

type Headers = Record<string, string | string[] | undefined>;

/** Whether a response header is a rate-limit or plan-window header passed on to clients. */
export function isRateLimitHeader(name: string): boolean {
  const n = name.toLowerCase();
  return n.startsWith('anthropic-ratelimit-') || n.startsWith('x-ratelimit-');
}

/** What rateLimitHeaders gives for an answer without any: one shared, empty, read-only object. */
const NO_RATE_LIMITS: Record<string, string> = Object.freeze({});

/**
 * The rate-limit headers of an upstream answer, as they came. Read on every answer: the names are
 * walked without an array of entries, only those starting with `a` or `x` are lowercased and
 * compared, and an answer without any (most, from most upstreams) gets the shared empty object.
 */
export function rateLimitHeaders(headers: Headers): Record<string, string> {
  let out: Record<string, string> | undefined;
  for (const k in headers) {
    const c = k.charCodeAt(0) | 0x20;
    if (c !== 0x61 /* a */ && c !== 0x78 /* x */) continue;
    const v = headers[k];
    if (v === undefined || !isRateLimitHeader(k)) continue;
    (out ??= {})[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out ?? NO_RATE_LIMITS;
}

/** `6m0s`, `1h2m3.5s`, `250ms` (OpenAI's reset durations) → ms; NaN when it is not one. */
export function durationMs(text: string): number {
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
  let total = 0;
  let matched = '';
  for (const m of text.matchAll(re)) {
    const n = Number(m[1]);
    total += m[2] === 'h' ? n * 3_600_000 : m[2] === 'm' ? n * 60_000 : m[2] === 's' ? n * 1000 : n;
    matched += m[0];
  }
  return matched === text && text !== '' ? total : NaN;
}

const iso = (ms: number): string | null => (Number.isFinite(ms) ? new Date(ms).toISOString() : null);
const num = (v: string | undefined): number | null => {
  if (v === undefined || v.trim() === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
};

/** The windows the headers describe. */
export function windowsOf(h: Record<string, string>, now: number): PlanWindow[] {
  const out: PlanWindow[] = [];
  const names = new Set<string>();
  for (const k of Object.keys(h)) {
    const unified = /^anthropic-ratelimit-unified-([^-]+)-(utilization|reset|status)$/.exec(k);
    if (unified) names.add(`unified:${unified[1]}`);
    const anthropic = /^anthropic-ratelimit-(?!unified-)([a-z-]+?)-(limit|remaining|reset)$/.exec(k);
    if (anthropic) names.add(`anthropic:${anthropic[1]}`);
    const openai = /^x-ratelimit-(limit|remaining|reset)-([a-z-]+)$/.exec(k);
    if (openai) names.add(`openai:${openai[2]}`);
  }
  for (const key of names) {
    const [kind, name] = key.split(':') as [string, string];
    if (kind === 'unified') {
      const p = `anthropic-ratelimit-unified-${name}-`;
      const reset = num(h[`${p}reset`]);
      out.push({
        name,
        utilization: num(h[`${p}utilization`]),
        resetsAt: reset === null ? null : iso(reset * 1000),
        status: h[`${p}status`] ?? null,
      });
    } else {
      const get = (part: string): string | undefined =>
        kind === 'anthropic' ? h[`anthropic-ratelimit-${name}-${part}`] : h[`x-ratelimit-${part}-${name}`];
      const limit = num(get('limit'));
      const remaining = num(get('remaining'));
      const reset = get('reset');
      // Anthropic gives the reset as a date, OpenAI as a duration from now.
      const resetMs = reset === undefined ? NaN : kind === 'anthropic' ? Date.parse(reset) : now + durationMs(reset);
      out.push({
        name,
        // Rounded to 1/10,000: enough for a percentage, and free of float noise (1 - 499/500).
        utilization:
          limit && remaining !== null
            ? Math.round(Math.min(1, Math.max(0, 1 - remaining / limit)) * 10_000) / 10_000
            : null,
        resetsAt: iso(resetMs),
        status: null,
      });
    }
  }
  return out;
}

/**
 * The plan windows of every line, from each line's latest answer that had rate-limit headers. An
 * upstream sends them with every answer, and the console reads them now and then: each answer
 * only keeps its headers, and the windows are worked out when a view asks for them.
 */
export class PlanWindows {
  private readonly latest = new Map<string, { at: number; headers: Record<string, string>; view?: PlanWindowsView }>();

  record(lineId: string, headers: Headers, now: number): void {
    this.remember(lineId, rateLimitHeaders(headers), now);
  }

  /** As `record`, for headers already filtered by `rateLimitHeaders` (the relay filters each answer's once). */
  remember(lineId: string, limits: Record<string, string>, now: number): void {
    for (const _ in limits) {
      this.latest.set(lineId, { at: now, headers: limits });
      return;
    }
  }

  view(lineId: string): PlanWindowsView | null {
    const seen = this.latest.get(lineId);
    if (!seen) return null;
    seen.view ??= {
      seenAt: new Date(seen.at).toISOString(),
      windows: windowsOf(seen.headers, seen.at),
      headers: seen.headers,
    };
    return seen.view;
  }
}
