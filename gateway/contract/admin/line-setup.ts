/**
 * What the console asks before a line exists, so a line is added right the first time: where its
 * key can be kept here (is there an OS keychain?), and which models the server at a base URL lists,
 * matched against the catalogue, asked with a key that is not stored yet. And, for the lines that
 * exist, their health now (LineHealthView) and how they did over the last day (LineUsageView).
 */
import { Type, type Static } from '@sinclair/typebox';
import { FORMATS } from '../formats.js';
import { Nullable } from './schemas.js';

export const KeyStorageView = Type.Object({
  /** Whether the OS keychain can hold a line's key here (a probe entry was written, read and removed). */
  keychain: Type.Boolean(),
  /** Why not, in words for a person; null when it can. */
  keychainReason: Nullable(Type.String()),
});
export type KeyStorageView = Static<typeof KeyStorageView>;

export const ProbeLineBody = Type.Object(
  {
    /** A preset fills the protocol, base URL and key variable the request leaves out. */
    preset: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    protocol: Type.Optional(Type.Unsafe<(typeof FORMATS)[number]>({ type: 'string', enum: [...FORMATS] })),
    baseUrl: Type.Optional(Type.String({ minLength: 1 })),
    /** Used for this one call and dropped: never stored. */
    apiKey: Type.Optional(Type.String({ minLength: 1, maxLength: 8192 })),
    /** A variable of the gateway's environment that holds the key. */
    apiKeyEnv: Type.Optional(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' })),
  },
  { additionalProperties: false },
);
export type ProbeLineBody = Static<typeof ProbeLineBody>;

export const ProbedModelView = Type.Object({
  /** The id as the server lists it. */
  id: Type.String(),
  /** The catalogue model it is (the same id, or the preset's model served under this id); null when the catalogue lacks it. */
  catalogueId: Nullable(Type.String()),
  /** Micro-USD per million tokens as the list gives them, where it does (OpenRouter's does); null otherwise. */
  listedPrice: Nullable(Type.Object({ input: Type.Integer(), output: Type.Integer() })),
});
export type ProbedModelView = Static<typeof ProbedModelView>;

export const ProbeLineView = Type.Object({
  models: Type.Array(ProbedModelView),
  latencyMs: Type.Integer({ minimum: 0 }),
});
export type ProbeLineView = Static<typeof ProbeLineView>;

export const LineUsageQuery = Type.Object({
  /** Epoch ms; the last 24 hours when absent. */
  since: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type LineUsageQuery = Static<typeof LineUsageQuery>;

export const LineUsageView = Type.Object({
  line: Type.String(),
  requests: Type.Integer({ minimum: 0 }),
  /** Requests answered with a status of 400 or more. */
  errors: Type.Integer({ minimum: 0 }),
  /** The median latency (ms) of the requests. */
  p50LatencyMs: Type.Integer({ minimum: 0 }),
  /** The newest failure: its status, message and time (epoch ms); null when none failed. */
  lastError: Nullable(Type.Object({ status: Type.Integer(), message: Nullable(Type.String()), ts: Type.Integer() })),
});
export type LineUsageView = Static<typeof LineUsageView>;

export const LineUsageList = Type.Object({ since: Type.Integer(), lines: Type.Array(LineUsageView) });
export type LineUsageList = Static<typeof LineUsageList>;

/**
 * A line's circuit-breaker state now, and ms until it takes requests again; `lastTest`, the last
 * Test of the line (`POST /api/lines/{name}/test`), null until one ran. A failed test stays until
 * a test passes or a request through the line is answered by its upstream; it does not take the
 * line out of routing.
 */
export const LineHealthView = Type.Object({
  state: Type.Union([Type.Literal('closed'), Type.Literal('open'), Type.Literal('half-open')]),
  failures: Type.Integer(),
  waitMs: Type.Integer(),
  lastTest: Nullable(
    Type.Object({
      ok: Type.Boolean(),
      /** The upstream's HTTP status; null when it did not answer. */
      status: Nullable(Type.Integer()),
      message: Type.String(),
      /** Epoch ms. */
      at: Type.Integer(),
    }),
  ),
});
export type LineHealthView = Static<typeof LineHealthView>;
