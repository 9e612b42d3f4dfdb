/** What config.json holds: keys (hashes only), lines (no credentials), groups, aliases and the user's catalogue entries. */
import type { AuthStyle } from '../core/auth.js';
import type { LineQuirks } from '../core/quirks.js';
import type { FormatId } from '../contract/formats.js';
import type { ModelFields } from '../contract/model-fields.js';
import type { Timeouts } from '../upstream/client.js';
import type { Settings } from './settings.js';
import type { Budgets } from '../contract/sessions.js';

export type KeyState = 'enabled' | 'disabled' | 'deleted';

/** A key as stored in config: the secret itself is never kept, only its hash and last four characters. */
export interface KeyRecord {
  id: string;
  name: string;
  hash: string;
  last4: string;
  group: string;
  /** Spending cap for this key in micro-USD; null = no cap. */
  quotaMicro: number | null;
  /**
   * What the key had spent and held for requests in flight when its quota was last changed. A quota
   * lowered below it stops new spending, but cannot undo the old: doctor measures against the larger.
   */
  spentWhenQuotaSetMicro?: number;
  /** ISO time; null = never expires. */
  expiresAt: string | null;
  state: KeyState;
  createdAt: string;
  /** Requests per minute allowed for this key; null or absent = unlimited. */
  rpm?: number | null;
  /** Requests in flight allowed for this key; null or absent = unlimited. */
  maxConcurrent?: number | null;
  /** What one agent session may spend, micro-USD; null or absent = no cap (docs/sessions.md). */
  sessionCapMicro?: number | null;
  /** Budgets over rolling windows, micro-USD per window; absent windows have none. */
  budgets?: Budgets;
  /** The loop guard's K; 0 turns it off; null or absent = the default (5). */
  loopLimit?: number | null;
  /** The project its requests count under when they name none; null or absent = the key's name. */
  project?: string | null;
  /** What made the key, when not a person: the Connect tool id, or `playground`; absent = a person. */
  madeBy?: string | null;
}

/**
 * Model aliases steer requested ids to catalogue models, so a tool that hard-codes model names
 * (Claude Code's haiku background calls, say) can be pointed elsewhere without touching it.
 */
export interface AliasRecord {
  /** An exact id, or a glob where `*` matches any run of characters. */
  pattern: string;
  model: string;
}

/** An upstream channel. It holds no credential: only where to find one. */
export interface LineRecord {
  id: string;
  name: string;
  protocol: FormatId;
  baseUrl: string;
  /** Catalogue model ids this line serves. */
  models: string[];
  /** Catalogue id → the id this upstream knows the model by, where they differ. */
  modelMap: Record<string, string>;
  /**
   * Where the upstream key comes from: the OS keychain (service "Tollgate", account = line id),
   * an environment variable read at request time (headless servers), or nowhere (local servers).
   * Absent in configs written before the keychain: then `env` if apiKeyEnv is set, else `none`.
   */
  apiKeySource?: 'keychain' | 'env' | 'none';
  /** Name of the environment variable, when apiKeySource is `env`. */
  apiKeyEnv: string | null;
  /** Requests per minute allowed through this line; null = unlimited. */
  rpm: number | null;
  /** Higher priority lines are tried first. */
  priority: number;
  /** Share of traffic among lines of equal priority. */
  weight: number;
  enabled: boolean;
  timeouts: Partial<Timeouts>;
  createdAt: string;
  /**
   * The line's own word on each vendor quirk: copied from its preset (OpenAI's
   * max_completion_tokens), set by the user, or learnt from an upstream's refusal; null clears a
   * quirk the served model's vendor data asks for (core/quirks.ts effectiveQuirks).
   */
  quirks?: LineQuirks;
  /** How the credential is sent, copied from the line's preset; absent: its wire format's usual style. */
  auth?: AuthStyle;
  /** The preset the line was made from, if any (its model references map catalogue ids to the vendor's). */
  preset?: string;
  /**
   * anthropic lines: the `anthropic-version` sent with translated requests, which then leave out
   * what that version refuses (wire/anthropic/versions.ts); absent: 2023-06-01. The pass-through
   * sends the client's own version.
   */
  anthropicVersion?: string;
}

/**
 * Prices in integer micro-USD per million tokens, by price kind (the kinds of the usage-bucket
 * table, contract/usage-buckets.ts; catalogue/user-models.ts checks them).
 */
export type PriceRecord = Record<string, number>;

/**
 * A catalogue entry of the user's own: listed, served and billed like a preset's model. Its fields
 * are the model's (contract/model-fields.ts); catalogue/user-models.ts checks them when it is read.
 */
export interface CustomModelRecord extends Omit<ModelFields, 'prices' | 'retires' | 'replacement'> {
  /** input, output, cacheRead and cacheWrite always; the other kinds where priced apart. */
  prices: PriceRecord;
  /** YYYY-MM-DD from which requests for it are refused, naming `replacement`. */
  retires?: ModelFields['retires'];
  replacement?: ModelFields['replacement'];
  /** How it was added: `user` (models add), `line:NAME` (with a line), `upstream:NAME` (a line's model list), `litellm` (a price file). */
  source: string;
  createdAt: string;
  updatedAt: string;
}

/** The user's prices for a preset's model: each kind given replaces the preset's price of that kind. */
export interface PriceOverrideRecord {
  id: string;
  prices: PriceRecord;
  /** The model's price tiers, replacing the preset's ([] removes them); absent: the preset's. */
  tiers?: { above: number; prices: PriceRecord }[];
  /** `user` or `litellm`, as for custom models. */
  source: string;
  updatedAt: string;
}

export interface GroupRecord {
  name: string;
  /** Decimal string, e.g. "1" or "0.8". */
  multiplier: string;
  /** Catalogue ids this group may use; ["*"] = all models. */
  models: string[];
}

export interface ConfigData {
  version: 1;
  keys: KeyRecord[];
  lines: LineRecord[];
  groups: GroupRecord[];
  aliases: AliasRecord[];
  /** The user's own catalogue entries (absent in configs written before they existed). */
  models?: CustomModelRecord[];
  /** The user's prices for preset models (absent in configs written before they existed). */
  priceOverrides?: PriceOverrideRecord[];
  /** Only what was changed from the defaults (store/settings.ts); absent in older configs. */
  settings?: Partial<Settings>;
}
