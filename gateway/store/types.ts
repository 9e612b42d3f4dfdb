import type { LineQuirks } from '../core/codec.js';
import type { UpstreamProtocolId } from '../core/protocol-ids.js';
import type { KeyRecord } from '../keys/types.js';
import type { AliasRecord } from '../routing/aliases.js';

export interface Timeouts {
  connectMs: number;
  /** From sending the request to the upstream's response headers. */
  firstByteMs: number;
  /** Longest silence between two chunks of a response body. */
  idleMs: number;
  totalMs: number;
}

/** An upstream channel. It holds no credential: only where to find one. */
export interface LineRecord {
  id: string;
  name: string;
  protocol: UpstreamProtocolId;
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
  /** Request quirks of the vendor, copied from its preset (e.g. OpenAI's max_completion_tokens). */
  quirks?: LineQuirks;
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
}
