import type { ConfigStore } from '../store/config.js';
import type { KeyRecord } from '../store/types.js';
import { authenticate, extractKey, type KeySource } from './authenticate.js';
import { AuthFailures } from './failures.js';

/**
 * The keys of config.json, indexed by hash for authentication. The index is rebuilt after every
 * change made through the config store, so code that adds, disables or deletes a key never has
 * to remember to refresh it.
 */
export class KeyRing {
  private byHash = new Map<string, KeyRecord>();
  private byKeyId = new Map<string, KeyRecord>();
  /** Model requests refused for a missing or wrong key: counted (not written to the ledger) and slowed. */
  readonly failures = new AuthFailures();

  constructor(private readonly config: ConfigStore) {
    this.reindex();
    config.onChange(() => this.reindex());
  }

  /** The enabled, unexpired key the request presents, or a 401 that says what is wrong. */
  authenticate(src: KeySource, now = Date.now()): KeyRecord {
    return authenticate(extractKey(src), this.byHash, now);
  }

  /** The key with this id as config.json has it now, whatever its state; undefined once deleted. */
  byId(id: string): KeyRecord | undefined {
    return this.byKeyId.get(id);
  }

  private reindex(): void {
    this.byHash = new Map(this.config.data.keys.map((k) => [k.hash, k]));
    this.byKeyId = new Map(this.config.data.keys.map((k) => [k.id, k]));
  }
}
