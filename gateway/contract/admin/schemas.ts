/**
 * What the admin API accepts: path parameters, query strings and request bodies (TypeBox, so one
 * declaration gives the server's validation and the client's types). Amounts are integer micro-USD.
 */
import { LineQuirksSchema } from '../quirks.js';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { FORMATS } from '../formats.js';
import { LogFilter } from './log-filter.js';
import { AddModelsBody } from './model-schemas.js';
import { KeySessionFields } from './key-session-fields.js';

/** $1,000,000,000: far above any real wallet, far below where integers lose precision. */
const MAX_MICRO = 1_000_000_000_000_000;

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const Name = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._@-]*$' });
const ModelId = Type.String({ minLength: 1, maxLength: 200 });
const EnvVar = Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' });
const ModelMap = Type.Record(Type.String(), Type.String({ minLength: 1 }));
const PerMinute = Nullable(Type.Integer({ minimum: 1 }));
/** Stored in the OS keychain, never in config; never returned. */
const ApiKey = Type.String({ minLength: 1, maxLength: 8192 });
// An enum (not a union of literals) so a wrong value gets a readable error listing the choices.
// Only the server validates bodies; the client never checks one (TypeBox's Value cannot read this kind).
const UpstreamProtocol = Type.Unsafe<(typeof FORMATS)[number]>({ type: 'string', enum: [...FORMATS] });

/**
 * Path segments are taken as sent (no pattern): a name that cannot exist is answered by the
 * operation itself ("There is no key named …"), as for any other unknown name.
 */
export const NameParams = Type.Object({ name: Type.String() });
export const PatternParams = Type.Object({ pattern: Type.String() });

/** The usage log's filter (log-filter.ts), and a page of it. */
export const LogsQuery = Type.Object({
  ...LogFilter.properties,
  /** Default 50; more than 1000 gives 1000. */
  limit: Type.Optional(Type.Integer({ minimum: 1 })),
  /** An entry id: only older entries, for paging. */
  before: Type.Optional(Type.Integer()),
  /** An entry id: only newer entries, oldest first (to catch up on a log as it grows). */
  after: Type.Optional(Type.Integer()),
});
export type LogsQuery = Static<typeof LogsQuery>;

export const CreateKeyBody = Type.Object(
  {
    name: Name,
    group: Type.Optional(Name),
    quotaMicro: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: MAX_MICRO }))),
    expiresAt: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
    rpm: Type.Optional(PerMinute),
    maxConcurrent: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
    ...KeySessionFields,
  },
  { additionalProperties: false },
);
export type CreateKeyBody = Static<typeof CreateKeyBody>;

export const TopupBody = Type.Object(
  {
    amountMicro: Type.Integer({ minimum: 1, maximum: MAX_MICRO }),
    note: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type TopupBody = Static<typeof TopupBody>;

/** A signed correction; the note saying why is required. */
export const AdjustBody = Type.Object(
  {
    amountMicro: Type.Integer({ minimum: -MAX_MICRO, maximum: MAX_MICRO }),
    note: Type.String({ minLength: 1, maxLength: 200 }),
  },
  { additionalProperties: false },
);
export type AdjustBody = Static<typeof AdjustBody>;

/** PATCH /api/settings: the fields to change; absent fields stay. */
export const UpdateSettingsBody = Type.Object(
  {
    host: Type.Optional(Type.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9.:\\[\\]%-]+$' })),
    port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
    retentionDays: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 36500 }))),
    storeBodies: Type.Optional(Type.Boolean()),
    storeResponses: Type.Optional(Type.Boolean()),
    lowBalanceMicro: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: MAX_MICRO }))),
    /** An absolute path to a PEM file of CAs for upstream TLS; null: none. Checked when set. */
    caFile: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 4096 }))),
    systemCa: Type.Optional(Type.Boolean()),
    /** Required (true) to set a host beyond loopback: the model API would face the network. */
    allowLan: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type UpdateSettingsBody = Static<typeof UpdateSettingsBody>;

export const RequestIdParams = Type.Object({ requestId: Type.String() });

/** A timeout in ms: at least 1 ms, at most a day (timers cannot wait much longer). */
const Ms = Type.Integer({ minimum: 1, maximum: 86_400_000 });

/** The per-line timeouts, in ms; shared by the line bodies and the line view. */
export const timeoutFields = {
  connectMs: Type.Optional(Ms),
  /** To the first bytes of a streamed answer. */
  firstByteMs: Type.Optional(Ms),
  /** To the first bytes of a non-streaming answer (which come when all of it is written). */
  nonStreamingFirstByteMs: Type.Optional(Ms),
  idleMs: Type.Optional(Ms),
  totalMs: Type.Optional(Ms),
};
export const TimeoutsBody = Type.Object(timeoutFields, { additionalProperties: false });

/** An Anthropic API version: a date. */
export const AnthropicVersion = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' });

/** What a line is set up with, at creation and on update. */
const lineSettings = {
  baseUrl: Type.Optional(Type.String({ minLength: 1 })),
  models: Type.Optional(Type.Array(ModelId, { minItems: 1 })),
  modelMap: Type.Optional(ModelMap),
  apiKeyEnv: Type.Optional(Nullable(EnvVar)),
  apiKey: Type.Optional(ApiKey),
  rpm: Type.Optional(PerMinute),
  priority: Type.Optional(Type.Integer()),
  weight: Type.Optional(Type.Integer({ minimum: 0 })),
  timeouts: Type.Optional(TimeoutsBody),
  /** How to add the ids of `models` the catalogue lacks (prices, or free); a local preset's line adds them free by default. */
  addModels: Type.Optional(AddModelsBody),
  /**
   * The line's own word on each vendor quirk (contract/quirks.ts): a value sets it, null clears it
   * even where the model's vendor data asks for it; a quirk left out is the model's to decide. On
   * update it replaces the line's whole map, as `modelMap` does.
   */
  quirks: Type.Optional(LineQuirksSchema),
  /**
   * anthropic lines: the `anthropic-version` translated requests go with (YYYY-MM-DD); null on update
   * goes back to the default (a preset's, else 2023-06-01). The pass-through keeps the client's own.
   */
  anthropicVersion: Type.Optional(Nullable(AnthropicVersion)),
};

export const CreateLineBody = Type.Object(
  {
    /** A provider preset (gateway/presets/<id>) that fills protocol, base URL, models and key variable. */
    preset: Type.Optional(Name),
    name: Type.Optional(Name),
    protocol: Type.Optional(UpstreamProtocol),
    ...lineSettings,
  },
  { additionalProperties: false },
);
export type CreateLineBody = Static<typeof CreateLineBody>;

/** Every field optional; `name` and `protocol` cannot change. */
export const UpdateLineBody = Type.Object(
  { ...lineSettings, enabled: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
export type UpdateLineBody = Static<typeof UpdateLineBody>;

export const CreateAliasBody = Type.Object(
  { pattern: Type.String({ minLength: 1, maxLength: 200 }), model: ModelId },
  { additionalProperties: false },
);
export type CreateAliasBody = Static<typeof CreateAliasBody>;

export const CreateGroupBody = Type.Object(
  {
    name: Name,
    multiplier: Type.Optional(Type.String({ pattern: '^\\d+(\\.\\d{1,6})?$' })),
    models: Type.Optional(Type.Array(ModelId, { minItems: 1 })),
  },
  { additionalProperties: false },
);
export type CreateGroupBody = Static<typeof CreateGroupBody>;

/** A coding tool by id or alias (`claude-code` or `claude`); the operation answers an unknown one. */
export const ToolParams = Type.Object({ tool: Type.String() });
/** A tool, or an SDK whose variables `tollgate env` prints (`openai`, `anthropic`, `google`, `aider`). */
export const TargetParams = Type.Object({ target: Type.String() });

export const ConnectBody = Type.Object(
  {
    /** The name of the tool's key; the tool's id when absent. */
    key: Type.Optional(Name),
    /** The main model, a catalogue id some line serves; a default is picked when absent (docs/connect.md). */
    model: Type.Optional(ModelId),
    /** Claude Code's small/fast model; other tools have no such setting. */
    smallModel: Type.Optional(ModelId),
    /** Compute the change and its diff, write nothing, create no key. */
    dryRun: Type.Optional(Type.Boolean()),
    /** When the key exists but no tool's files hold its secret: give it a new secret. */
    rotateKey: Type.Optional(Type.Boolean()),
    /** `expect` of a dry run: refuse if a file changed since, so what is written is what was shown. */
    expect: Type.Optional(Type.Record(Type.String(), Nullable(Type.String()))),
  },
  { additionalProperties: false },
);
export type ConnectBody = Static<typeof ConnectBody>;

export const DisconnectQuery = Type.Object({
  /** Put back each file as it was before connect even if it was changed by hand since. */
  force: Type.Optional(Type.Boolean()),
  /** Keep the tool's key (by default a key connect created for the tool is deleted). */
  keepKey: Type.Optional(Type.Boolean()),
});
export type DisconnectQuery = Static<typeof DisconnectQuery>;

export const SnippetsQuery = Type.Object({
  /** The model the snippets name; a default is picked when absent. */
  model: Type.Optional(Type.String()),
});
export type SnippetsQuery = Static<typeof SnippetsQuery>;

export const EnvBody = Type.Object(
  {
    model: Type.Optional(ModelId),
    /** Create a key for the target (named `key`, or the target's id) and write it in the exports. */
    newKey: Type.Optional(Type.Boolean()),
    key: Type.Optional(Name),
  },
  { additionalProperties: false },
);
export type EnvBody = Static<typeof EnvBody>;
/** What PATCH /api/groups/{name} may change; the name stays. */
export const UpdateGroupBody = Type.Omit(CreateGroupBody, ['name'], { additionalProperties: false });
export type UpdateGroupBody = Static<typeof UpdateGroupBody>;

/** What PATCH /api/keys/{name} may change: what creation sets, but the name; absent fields stay. */
export const UpdateKeyBody = Type.Omit(CreateKeyBody, ['name'], { additionalProperties: false });
export type UpdateKeyBody = Static<typeof UpdateKeyBody>;

/** Paging through the wallet's transactions, newest first. */
export const PageQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1 })),
  before: Type.Optional(Type.Integer()),
});

/** What the stats sum by: each is a column of the usage log (docs/sessions.md has tool, project, session). */
export const StatsBy = Type.Union([
  Type.Literal('model'),
  Type.Literal('key'),
  Type.Literal('line'),
  Type.Literal('tool'),
  Type.Literal('project'),
  Type.Literal('session'),
]);
export type StatsBy = Static<typeof StatsBy>;

/** GET /api/stats: a time range cut into hours or days, summed per model, key, line, tool, project or session. */
export const StatsQuery = Type.Object({
  since: Type.Integer({ minimum: 0 }),
  until: Type.Integer({ minimum: 0 }),
  bucket: Type.Union([Type.Literal('hour'), Type.Literal('day')]),
  by: StatsBy,
  /** Minutes east of UTC where days start; the console sends its own. */
  tz: Type.Optional(Type.Integer({ minimum: -840, maximum: 840 })),
});
export type StatsQuery = Static<typeof StatsQuery>;

/** GET /api/stats/top: the largest groups of a range by spend, and the range's totals. */
export const StatsTopQuery = Type.Object({
  since: Type.Integer({ minimum: 0 }),
  until: Type.Integer({ minimum: 0 }),
  by: StatsBy,
  /** How many groups to list (1–50, default 5). */
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
});
export type StatsTopQuery = Static<typeof StatsTopQuery>;
