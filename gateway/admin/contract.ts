/**
 * The admin API contract, declared once: the server validates with these schemas, and the CLI
 * (and later the console) use the same types. Amounts are integer micro-USD throughout.
 */
import { Type, type Static } from '@sinclair/typebox';
import { UPSTREAM_PROTOCOLS, type InboundProtocolId } from '../core/protocol-ids.js';
import type { KeyState } from '../keys/types.js';
import type { LogEntry } from '../store/ledger.js';

/** $1,000,000,000: far above any real wallet, far below where integers lose precision. */
const MAX_MICRO = 1_000_000_000_000_000;

const Name = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._@-]*$' });
const ModelId = Type.String({ minLength: 1, maxLength: 200 });

export const CreateKeyBody = Type.Object(
  {
    name: Name,
    group: Type.Optional(Name),
    quotaMicro: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: MAX_MICRO }), Type.Null()])),
    expiresAt: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
    rpm: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
    maxConcurrent: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type CreateKeyBody = Static<typeof CreateKeyBody>;

export const TopupBody = Type.Object({ amountMicro: Type.Integer({ minimum: 1, maximum: MAX_MICRO }), note: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: false });
export type TopupBody = Static<typeof TopupBody>;

export const TimeoutsBody = Type.Object(
  {
    connectMs: Type.Optional(Type.Integer({ minimum: 1 })),
    firstByteMs: Type.Optional(Type.Integer({ minimum: 1 })),
    idleMs: Type.Optional(Type.Integer({ minimum: 1 })),
    totalMs: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

export const CreateLineBody = Type.Object(
  {
    /** A provider preset (gateway/presets/<id>) that fills protocol, base URL, models and key variable. */
    preset: Type.Optional(Name),
    name: Type.Optional(Name),
    // An enum (not a union of literals) so a wrong value gets a readable error listing the choices.
    protocol: Type.Optional(Type.Unsafe<(typeof UPSTREAM_PROTOCOLS)[number]>({ type: 'string', enum: [...UPSTREAM_PROTOCOLS] })),
    baseUrl: Type.Optional(Type.String({ minLength: 1 })),
    models: Type.Optional(Type.Array(ModelId, { minItems: 1 })),
    modelMap: Type.Optional(Type.Record(Type.String(), Type.String({ minLength: 1 }))),
    apiKeyEnv: Type.Optional(Type.Union([Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), Type.Null()])),
    /** Stored in the OS keychain, never in config; never returned. */
    apiKey: Type.Optional(Type.String({ minLength: 1, maxLength: 8192 })),
    rpm: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
    priority: Type.Optional(Type.Integer()),
    weight: Type.Optional(Type.Integer({ minimum: 0 })),
    timeouts: Type.Optional(TimeoutsBody),
  },
  { additionalProperties: false },
);
export type CreateLineBody = Static<typeof CreateLineBody>;

export const CreateGroupBody = Type.Object(
  {
    name: Name,
    multiplier: Type.Optional(Type.String({ pattern: '^\\d+(\\.\\d{1,6})?$' })),
    models: Type.Optional(Type.Array(ModelId, { minItems: 1 })),
  },
  { additionalProperties: false },
);
export type CreateGroupBody = Static<typeof CreateGroupBody>;

export const CreateAliasBody = Type.Object(
  { pattern: Type.String({ minLength: 1, maxLength: 200 }), model: ModelId },
  { additionalProperties: false },
);
export type CreateAliasBody = Static<typeof CreateAliasBody>;

export const UpdateLineBody = Type.Object(
  {
    baseUrl: Type.Optional(Type.String({ minLength: 1 })),
    models: Type.Optional(Type.Array(ModelId, { minItems: 1 })),
    modelMap: Type.Optional(Type.Record(Type.String(), Type.String({ minLength: 1 }))),
    apiKeyEnv: Type.Optional(Type.Union([Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), Type.Null()])),
    apiKey: Type.Optional(Type.String({ minLength: 1, maxLength: 8192 })),
    rpm: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
    priority: Type.Optional(Type.Integer()),
    weight: Type.Optional(Type.Integer({ minimum: 0 })),
    enabled: Type.Optional(Type.Boolean()),
    timeouts: Type.Optional(TimeoutsBody),
  },
  { additionalProperties: false },
);
export type UpdateLineBody = Static<typeof UpdateLineBody>;

export interface PresetView {
  id: string;
  displayName: string;
  protocol: string;
  baseUrl: string;
  auth: string;
  apiKeyEnv: string | null;
  docs: string;
  /** Catalogue ids it serves. */
  models: string[];
}

export interface AliasView {
  pattern: string;
  model: string;
}

export interface LineTestView {
  ok: boolean;
  status: number | null;
  latencyMs: number;
  message: string;
}

export interface KeyView {
  id: string;
  name: string;
  group: string;
  state: KeyState;
  last4: string;
  quotaMicro: number | null;
  usedMicro: number;
  expiresAt: string | null;
  createdAt: string;
  rpm: number | null;
  maxConcurrent: number | null;
}

export interface CreatedKey {
  key: KeyView;
  /** Shown once; Tollgate keeps only its hash. */
  secret: string;
}

export interface WalletView {
  balanceMicro: number;
  /** Held for requests in flight. */
  heldMicro: number;
  topupsMicro: number;
  spentMicro: number;
}

export interface LineView {
  id: string;
  name: string;
  protocol: string;
  baseUrl: string;
  models: string[];
  modelMap: Record<string, string>;
  /** Where the upstream key comes from; the key itself is never shown. */
  apiKeySource: 'keychain' | 'env' | 'none';
  apiKeyEnv: string | null;
  rpm: number | null;
  priority: number;
  weight: number;
  enabled: boolean;
  timeouts: Record<string, number>;
  /** Circuit-breaker state now, and ms until the line takes requests again. */
  health: { state: 'closed' | 'open' | 'half-open'; failures: number; waitMs: number };
}

export interface ModelView {
  id: string;
  vendor: string;
  displayName: string;
  contextWindow: number;
  maxOutputTokens: number;
  nativeProtocols: string[];
  /** micro-USD per million tokens. */
  prices: { input: number; output: number; cacheRead: number; cacheWrite: number; audioInput?: number; imageInput?: number };
  /** Names of the lines that serve it. */
  lines: string[];
  /**
   * For each client protocol, how this model is reached through the current lines: `native` when
   * a line speaks the client's own protocol (pass-through), `translated` when only lines of other
   * protocols serve it, `unavailable` when no line does.
   */
  access: Record<InboundProtocolId, 'native' | 'translated' | 'unavailable'>;
}

export interface GroupView {
  name: string;
  multiplier: string;
  models: string[];
}

export interface DoctorCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export interface DoctorReport {
  ok: boolean;
  checks: DoctorCheck[];
}

export interface StatusView {
  version: string;
  dataDir: string;
  url: string;
}

export type { LogEntry };
