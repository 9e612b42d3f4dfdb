/**
 * The admin API's agent sessions (docs/sessions.md): what `GET /api/sessions`, `GET
 * /api/sessions/:id` and `POST /api/sessions/:id/resume` take and answer, what caching saved per
 * key and day (`GET /api/savings`), the key's session fields, and the `session` event's data.
 */
import { Type, type Static } from '@sinclair/typebox';
import { GUARDS, TOOLS } from '../sessions.js';
import { Nullable } from './schemas.js';
import { LogEntry, OneOf } from './views.js';

const Int = Type.Integer();
const Micro = Int;
/** $1,000,000,000, as for every amount the admin API takes. */
const MAX_MICRO = 1_000_000_000_000_000;

export const SessionPauseView = Type.Object({
  guard: OneOf(GUARDS),
  /** Names the guard and the amount, as the refused client was told. */
  reason: Type.String(),
  /** The tool call that repeated (the loop guard); null for the others. */
  call: Nullable(Type.String()),
  at: Int,
});

export const SessionView = Type.Object({
  id: Type.String(),
  tool: OneOf(TOOLS),
  keyName: Nullable(Type.String()),
  project: Nullable(Type.String()),
  /** Epoch ms of its first and last request. */
  firstTs: Int,
  lastTs: Int,
  requests: Int,
  errors: Int,
  /** Every prompt token (uncached, cache read, cache write), and the output. */
  promptTokens: Int,
  cacheReadTokens: Int,
  outputTokens: Int,
  costMicro: Micro,
  /** What cache reads saved: their tokens at the input price less what they cost. */
  savedMicro: Micro,
  /** Cache-read tokens over all prompt tokens, 0 to 1. */
  cacheHitRate: Type.Number({ minimum: 0, maximum: 1 }),
  /** The key's session cap plus what resumes added; null: no cap. */
  capMicro: Nullable(Micro),
  /** Held for its requests in flight. */
  heldMicro: Micro,
  /** `active`: a request in the last 5 minutes or one in flight; `paused`: refused until resumed. */
  state: OneOf(['active', 'idle', 'paused']),
  pause: Nullable(SessionPauseView),
});
export type SessionView = Static<typeof SessionView>;

export const SessionAgentView = Type.Object({
  agent: Type.String(),
  requests: Int,
  costMicro: Micro,
  firstTs: Int,
  lastTs: Int,
});

/** A request of a session, with what the session had cost up to and including it. */
export const SessionRequestView = Type.Composite([LogEntry, Type.Object({ cumulativeMicro: Micro })]);

export const SessionDetailView = Type.Object({
  session: SessionView,
  /** Its requests, oldest first (at most the last 1,000). */
  requests: Type.Array(SessionRequestView),
  agents: Type.Array(SessionAgentView),
});
export type SessionDetailView = Static<typeof SessionDetailView>;

export const SessionNoticeView = Type.Object({
  kind: OneOf(['warning', 'paused', 'resumed']),
  guard: Nullable(OneOf(GUARDS)),
  message: Type.String(),
});
export type SessionNoticeView = Static<typeof SessionNoticeView>;

export const SessionsQuery = Type.Object({
  key: Type.Optional(Type.String()),
  tool: Type.Optional(Type.String()),
  /** Only sessions whose state is `active`. */
  active: Type.Optional(Type.Boolean()),
  /** Default 100, at most 1000. */
  limit: Type.Optional(Type.Integer({ minimum: 1 })),
});
export type SessionsQuery = Static<typeof SessionsQuery>;

export const SessionParams = Type.Object({ id: Type.String() });

export const ResumeSessionBody = Type.Object(
  {
    /** Raises the session's cap by this much. */
    addMicro: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_MICRO })),
  },
  { additionalProperties: false },
);
export type ResumeSessionBody = Static<typeof ResumeSessionBody>;

export const SavingsQuery = Type.Object({
  /** Epoch ms; the range spans at most 366 days. */
  since: Type.Integer({ minimum: 0 }),
  until: Type.Integer({ minimum: 0 }),
  /** Minutes east of UTC where days start (the console sends its own); UTC days when absent. */
  tz: Type.Optional(Type.Integer({ minimum: -840, maximum: 840 })),
  /** Only this key's requests. */
  key: Type.Optional(Type.String({ minLength: 1 })),
});
export type SavingsQuery = Static<typeof SavingsQuery>;

const SavingsFigures = {
  requests: Int,
  /** Every prompt token (uncached, cache read, cache write). */
  promptTokens: Int,
  cacheReadTokens: Int,
  /** Cache-read tokens over all prompt tokens, 0 to 1. */
  cacheHitRate: Type.Number({ minimum: 0, maximum: 1 }),
  costMicro: Micro,
  /** What cache reads saved: their tokens at the input price less what they cost. */
  savedMicro: Micro,
};

export const SavingsView = Type.Object({
  since: Int,
  until: Int,
  /** One per key and day with requests, oldest day first, then by key name. */
  days: Type.Array(
    Type.Object({
      /** Epoch ms where the day starts. */
      start: Int,
      /** Null for requests refused before a key was known. */
      key: Nullable(Type.String()),
      ...SavingsFigures,
    }),
  ),
  /** The range per key, the most saved first. */
  keys: Type.Array(Type.Object({ key: Nullable(Type.String()), ...SavingsFigures })),
  /** The whole range. */
  total: Type.Object(SavingsFigures),
});
export type SavingsView = Static<typeof SavingsView>;
