/**
 * What the admin API answers: every reply is one of these schemas, and the client checks each reply
 * against its schema. Objects accept fields they do not name, so the server may add fields without
 * breaking older clients. Amounts are integer micro-USD; prices are micro-USD per million tokens.
 */
import { LineQuirksSchema } from '../quirks.js';
import { Type, type Static, type TInteger, type TLiteral, type TUnion } from '@sinclair/typebox';
import { FORMATS } from '../formats.js';
import { ModelPrices, PriceTier } from '../model-fields.js';
import { LISTED_BUCKETS, type BucketKey } from '../usage-buckets.js';
import { Nullable, timeoutFields } from './schemas.js';
import { BudgetsView } from './key-session-fields.js';
import { LineHealthView } from './line-setup.js';

/**
 * One of a list of strings, as a union of literals (which TypeBox's Value can check, in a browser
 * too). The tuple type lets `Type.Record` make one required field per value; `map` cannot say so.
 */
export function OneOf<const T extends readonly string[]>(
  values: T,
): TUnion<{ -readonly [K in keyof T]: TLiteral<T[K]> }> {
  return Type.Union(values.map((v) => Type.Literal(v))) as TUnion<{ -readonly [K in keyof T]: TLiteral<T[K]> }>;
}

const Int = Type.Integer();
/** An amount in micro-USD. */
const Micro = Int;
const Strings = Type.Array(Type.String());

export const ErrorBody = Type.Object({ error: Type.Object({ code: Type.String(), message: Type.String() }) });
export type ErrorBody = Static<typeof ErrorBody>;

/** `paused`: the model API answers 503 until resumed (POST /api/gateway/pause, /resume). */
export const StatusView = Type.Object({
  version: Type.String(),
  dataDir: Type.String(),
  url: Type.String(),
  paused: Type.Boolean(),
  /** Model requests refused since start for a missing or wrong key: counted here, never written to the ledger. */
  unauthenticatedRequests: Type.Optional(Type.Integer({ minimum: 0 })),
  /** Token counts clients asked for since start (count_tokens, countTokens): answered, and refused by a key's limits. */
  tokenCounts: Type.Optional(
    Type.Object({ answered: Type.Integer({ minimum: 0 }), refused: Type.Integer({ minimum: 0 }) }),
  ),
});
export type StatusView = Static<typeof StatusView>;

/** A one-time console login: open `url` (`<gateway>/login?code=<code>`) before `expiresAt`. */
export const LoginCodeView = Type.Object({ code: Type.String(), url: Type.String(), expiresAt: Type.String() });
export type LoginCodeView = Static<typeof LoginCodeView>;

export const KeyView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  group: Type.String(),
  state: OneOf(['enabled', 'disabled', 'deleted']),
  /** The last four characters of the secret; the secret itself is never stored. */
  last4: Type.String(),
  quotaMicro: Nullable(Micro),
  usedMicro: Micro,
  expiresAt: Nullable(Type.String()),
  createdAt: Type.String(),
  rpm: Nullable(Int),
  maxConcurrent: Nullable(Int),
  /** What one agent session may spend (docs/sessions.md); null: no cap. */
  sessionCapMicro: Nullable(Micro),
  /** Budgets over rolling windows, for the windows the key has. */
  budgets: BudgetsView,
  /** The loop guard's K (0: off). */
  loopLimit: Int,
  /** The project its requests count under when they name none; null: the key's name. */
  project: Nullable(Type.String()),
  /** What made it, when not a person: the Connect tool id (`claude-code`, `codex`, …) or `playground`. */
  madeBy: Nullable(Type.String()),
});
export type KeyView = Static<typeof KeyView>;

export const CreatedKey = Type.Object({
  key: KeyView,
  /** Shown once; Tollgate keeps only its hash. */
  secret: Type.String(),
});
export type CreatedKey = Static<typeof CreatedKey>;

export const WalletView = Type.Object({
  balanceMicro: Micro,
  /** Held for requests in flight. */
  heldMicro: Micro,
  topupsMicro: Micro,
  /** Σ of the signed adjustments (POST /api/wallet/adjust); may be negative. */
  adjustmentsMicro: Type.Integer(),
  /** top-ups + adjustments − balance: what finished requests cost. */
  spentMicro: Micro,
});
export type WalletView = Static<typeof WalletView>;

export const PresetView = Type.Object({
  id: Type.String(),
  displayName: Type.String(),
  protocol: OneOf(FORMATS),
  baseUrl: Type.String(),
  /** How the key is sent: bearer, x-api-key, x-goog-api-key or none. */
  auth: Type.String(),
  apiKeyEnv: Nullable(Type.String()),
  docs: Type.String(),
  /** Catalogue ids it serves. */
  models: Strings,
});
export type PresetView = Static<typeof PresetView>;

export const LineView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  protocol: OneOf(FORMATS),
  baseUrl: Type.String(),
  models: Strings,
  modelMap: Type.Record(Type.String(), Type.String()),
  /** Where the upstream key comes from; the key itself is never shown. */
  apiKeySource: OneOf(['keychain', 'env', 'none']),
  apiKeyEnv: Nullable(Type.String()),
  rpm: Nullable(Int),
  priority: Int,
  weight: Int,
  enabled: Type.Boolean(),
  /** The line's own timeouts (ms): only those it overrides. */
  timeouts: Type.Object(timeoutFields),
  /** The timeouts it runs with: its own, else the defaults. */
  effectiveTimeouts: Type.Object({
    connectMs: Int,
    firstByteMs: Int,
    nonStreamingFirstByteMs: Int,
    idleMs: Int,
    totalMs: Int,
  }),
  /** Circuit-breaker state now and the last Test (line-setup.ts). */
  health: LineHealthView,
  /** The line's own word on each vendor quirk (null: cleared); what its models' vendor data asks for applies where it says nothing. */
  quirks: LineQuirksSchema,
  /** anthropic lines: the `anthropic-version` translated requests go with; null for other formats. */
  anthropicVersion: Nullable(Type.String()),
  /**
   * What the line's upstream last said about its rate limits and plan windows (Anthropic's
   * `anthropic-ratelimit-unified-{5h,7d}-*`, OpenAI's `x-ratelimit-*`); null until it said anything.
   */
  planWindows: Nullable(
    Type.Object({
      /** When (ISO 8601). */
      seenAt: Type.String(),
      windows: Type.Array(
        Type.Object({
          /** `5h`, `7d`, `requests`, `tokens`, … */
          name: Type.String(),
          /** Used, 0–1. */
          utilization: Nullable(Type.Number()),
          /** ISO 8601. */
          resetsAt: Nullable(Type.String()),
          /** `allowed`, `allowed_warning`, `rejected`, as the upstream says. */
          status: Nullable(Type.String()),
        }),
      ),
      /** The headers as the upstream sent them (and the client got them). */
      headers: Type.Record(Type.String(), Type.String()),
    }),
  ),
});
export type LineView = Static<typeof LineView>;

export const LineTestView = Type.Object({
  ok: Type.Boolean(),
  /** The upstream's HTTP status; null when there was no answer (or no credential to send). */
  status: Nullable(Int),
  latencyMs: Int,
  message: Type.String(),
});
export type LineTestView = Static<typeof LineTestView>;

export const AliasView = Type.Object({ pattern: Type.String(), model: Type.String() });
export type AliasView = Static<typeof AliasView>;

export const GroupView = Type.Object({
  name: Type.String(),
  /** Decimal string, e.g. "1" or "0.8". */
  multiplier: Type.String(),
  /** Catalogue ids; ["*"] = all models. */
  models: Strings,
});
export type GroupView = Static<typeof GroupView>;

/** Every model has input, output, cacheRead and cacheWrite; the other kinds only where priced apart (else billed as input). */
export const PricesView = ModelPrices;
export type PricesView = Static<typeof PricesView>;

/** Tokens per usage bucket (contract/usage-buckets.ts says what each counts), in the order they are listed. */
export const UsageView = Type.Object(
  Object.fromEntries(LISTED_BUCKETS.map((k) => [k, Int])) as { [K in BucketKey]: TInteger },
);

/** The unit prices and group multiplier a ledger row was billed at (kept with the row). */
export const PriceSnapshotView = Type.Object({
  prices: PricesView,
  multiplierPpm: Int,
  /** The price tier the prompt reached (its prices replace those of the kinds it names); absent below every tier. */
  tier: Type.Optional(PriceTier),
});

/** tokens × price (per kind) summed, × multiplier, rounded up to the micro-USD = the row's cost. */
export const CostBreakdownView = Type.Object({
  prices: PricesView,
  multiplierPpm: Int,
  /** The tier applied, as in the snapshot; the terms are at its prices. */
  tier: Type.Optional(PriceTier),
  terms: Type.Array(
    Type.Object({
      /** The usage bucket (`inputTokens`, …) and the price kind it was billed by (`input`, …: audio and image fall back to input when not priced apart). */
      usage: Type.String(),
      price: Type.String(),
      tokens: Int,
      priceMicroPerMillion: Int,
      /** tokens × price, exact, USD decimal text. */
      usd: Type.String(),
    }),
  ),
  /** Σ terms, exact, USD decimal text. */
  subtotalUsd: Type.String(),
  /** Decimal text, e.g. "1.5". */
  multiplier: Type.String(),
  costMicro: Micro,
  /** The whole sum in one line, e.g. `1200 input × $3/M + 350 output × $15/M = $0.00885 × 1.5 = $0.013275`, led by the tier when one applied (`above 272K: ×2 input, ×1.5 output; …`). */
  formula: Type.String(),
});
export type CostBreakdownView = Static<typeof CostBreakdownView>;

export const LogEntry = Type.Object({
  id: Int,
  /** Also sent to the client as x-request-id. */
  requestId: Type.String(),
  /** Epoch milliseconds. */
  ts: Int,
  keyId: Nullable(Type.String()),
  keyName: Nullable(Type.String()),
  /** The model id the client asked for. */
  model: Nullable(Type.String()),
  /** The catalogue model that served it (differs from `model` when an alias applied). */
  servedModel: Nullable(Type.String()),
  /** Upstream attempts: more than 1 after a failover, 0 when refused before forwarding. */
  attempts: Int,
  upstreamModel: Nullable(Type.String()),
  /** The line of the last attempt. */
  line: Nullable(Type.String()),
  inboundProtocol: Type.String(),
  upstreamProtocol: Nullable(Type.String()),
  stream: Type.Boolean(),
  status: Int,
  errorCode: Nullable(Type.String()),
  errorMessage: Nullable(Type.String()),
  usage: UsageView,
  /** True when the upstream reported no usable usage (none, cut short, or figures refused) and Tollgate counted the tokens itself. */
  usageEstimated: Type.Boolean(),
  /** What the wallet and the key were charged: never more than the request's reservation. */
  costMicro: Micro,
  /** Cost at catalogue prices beyond what the wallet and the key's quota could pay, not charged (docs/money.md); usually 0. */
  unchargedMicro: Micro,
  latencyMs: Int,
  ttfbMs: Nullable(Int),
  /** What translation dropped or changed and which lines failed first, "; "-separated; null when nothing. */
  notes: Nullable(Type.String()),
  /** The prices and multiplier the row was billed at; null when no model was admitted, and for rows written before the snapshot was kept. */
  billedAt: Nullable(PriceSnapshotView),
  /** How `costMicro` came about, from `billedAt`; null with it. */
  breakdown: Nullable(CostBreakdownView),
  /** The agent session (docs/sessions.md), its sub-agent, the client tool and the project; null on rows from before sessions, and on requests refused before a key was known. */
  session: Nullable(Type.String()),
  agent: Nullable(Type.String()),
  tool: Nullable(Type.String()),
  project: Nullable(Type.String()),
  /** What cache reads saved: their tokens at the input price less what they cost. */
  savedMicro: Micro,
  /** Cache-read tokens over all prompt tokens, 0 to 1. */
  cacheHitRate: Type.Number({ minimum: 0, maximum: 1 }),
});
export type LogEntry = Static<typeof LogEntry>;

/** What every entry a log filter matches adds up to: the usage log's footer. */
export const LogSummaryView = Type.Object({
  requests: Int,
  /** Entries with a status of 400 or above. */
  errors: Int,
  costMicro: Micro,
  inputTokens: Int,
  outputTokens: Int,
  cacheReadTokens: Int,
  cacheWriteTokens: Int,
});
export type LogSummaryView = Static<typeof LogSummaryView>;

export const DoctorCheck = Type.Object({
  name: Type.String(),
  ok: Type.Boolean(),
  detail: Type.String(),
  /** Passed, but something needs the user's attention soon (a model about to retire, say); absent otherwise. */
  warn: Type.Optional(Type.Boolean()),
});
export type DoctorCheck = Static<typeof DoctorCheck>;

export const DoctorReport = Type.Object({ ok: Type.Boolean(), checks: Type.Array(DoctorCheck) });
export type DoctorReport = Static<typeof DoctorReport>;

/** A wallet transaction: a top-up, or a signed adjustment (negative takes money out) with its note. */
export const WalletTransactionView = Type.Object({
  id: Type.Integer(),
  ts: Type.Integer(),
  kind: OneOf(['topup', 'adjustment']),
  amountMicro: Type.Integer(),
  note: Nullable(Type.String()),
});
export type WalletTransactionView = Static<typeof WalletTransactionView>;

/** One bucket of GET /api/stats for one model, key, line, tool, project or session (null: the row has none). */
export const StatsRowView = Type.Object({
  start: Type.Number(),
  group: Nullable(Type.String()),
  requests: Type.Integer(),
  errors: Type.Integer(),
  costMicro: Type.Integer(),
  inputTokens: Type.Integer(),
  outputTokens: Type.Integer(),
  cacheReadTokens: Type.Integer(),
  cacheWriteTokens: Type.Integer(),
});
export type StatsRowView = Static<typeof StatsRowView>;

/** What a range adds up to: GET /api/stats/top's total, and each of its groups without `start`. */
export const StatsTotalView = Type.Omit(StatsRowView, ['start', 'group']);
export type StatsTotalView = Static<typeof StatsTotalView>;
export const StatsTopRowView = Type.Omit(StatsRowView, ['start']);
export type StatsTopRowView = Static<typeof StatsTopRowView>;

/** GET /api/stats/top: the range's totals, its largest groups by spend, and how many groups it had. */
export const StatsTopView = Type.Object({
  total: StatsTotalView,
  rows: Type.Array(StatsTopRowView),
  groups: Type.Integer(),
});
export type StatsTopView = Static<typeof StatsTopView>;

/** GET and PATCH /api/settings: every setting with its value in force (store/settings.ts). */
export const SettingsView = Type.Object({
  /** Where `tollgate serve` binds at its next start (a --host flag overrides it). */
  host: Type.String(),
  port: Type.Integer(),
  /** Days usage-log rows are kept in full; null: forever. */
  retentionDays: Nullable(Type.Integer()),
  storeBodies: Type.Boolean(),
  storeResponses: Type.Boolean(),
  /** The balance below which the console and the tray warn; null: never. */
  lowBalanceMicro: Nullable(Type.Integer()),
  /** A PEM file of certificate authorities upstream TLS trusts besides the defaults; null: none. */
  caFile: Nullable(Type.String()),
  /** Whether the operating system's certificate store is trusted too. */
  systemCa: Type.Boolean(),
  /** Read-only: whether this gateway's runtime can read the system store (Node 22.15 and later). */
  systemCaAvailable: Type.Boolean(),
  /** Read-only: certificates trusted now besides the defaults (the file's and the system store's). */
  caAdded: Type.Integer(),
  /** Read-only: why the CA settings are not (all) in force, e.g. the file is gone; null when they are. */
  caProblem: Nullable(Type.String()),
  /** Where this gateway listens now; host and port changes apply at its next start. */
  listening: Type.String(),
  /** Whether `host` reaches beyond this machine. */
  lan: Type.Boolean(),
});
export type SettingsView = Static<typeof SettingsView>;

/** A model request's body as the client sent it, kept while storeBodies is on. */
export const RequestBodyView = Type.Object({
  requestId: Type.String(),
  ts: Type.Integer(),
  body: Type.String(),
  truncated: Type.Boolean(),
});
export type RequestBodyView = Static<typeof RequestBodyView>;
