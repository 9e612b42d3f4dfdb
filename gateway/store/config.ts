import { chmodSync, copyFileSync, existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Low } from 'lowdb';
import { DataFile } from 'lowdb/node';
import { configProblem } from './config-check.js';
import { storeError } from './data-dir.js';
import type { ConfigData } from './types.js';

export const DEFAULT_GROUP = 'default';

function defaults(): ConfigData {
  return {
    version: 1,
    keys: [],
    lines: [],
    groups: [{ name: DEFAULT_GROUP, multiplier: '1', models: ['*'] }],
    aliases: [],
    models: [],
    priceOverrides: [],
  };
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * Settings, keys (hashes only), lines (no credentials) and groups, as one JSON file written
 * atomically by lowdb (write to a temporary file, then rename), kept 0600. A file that does not
 * parse, or lacks what the gateway reads (config-check.ts), stops start-up with a clear message and
 * is copied aside; it is never silently reset.
 */
export class ConfigStore {
  private readonly db: Low<ConfigData>;
  private readonly listeners: (() => void)[] = [];
  readonly path: string;
  /**
   * The text of the config as last read or written whole: what a change that cannot be saved goes
   * back to. Kept instead of a copy of the data taken before each change, which cost as much as
   * the write itself with thousands of custom models; the write makes this text anyway.
   */
  private saved = '';
  /** The text the adapter made for the write in progress (lowdb stringifies synchronously in write()). */
  private writing = '';

  private constructor(path: string) {
    this.path = path;
    const file = new DataFile<ConfigData>(path, {
      parse: JSON.parse,
      stringify: (data) => (this.writing = JSON.stringify(data, null, 2)),
    });
    this.db = new Low(file, defaults());
  }

  static async open(dataDir: string): Promise<ConfigStore> {
    const store = new ConfigStore(join(dataDir, 'config.json'));
    await store.load();
    return store;
  }

  private async load(): Promise<void> {
    if (!existsSync(this.path)) return this.write();
    const text = this.read();
    let problem: string | undefined;
    try {
      problem = configProblem(JSON.parse(text));
    } catch (err) {
      problem = (err as Error).message;
    }
    if (problem !== undefined) {
      const kept = `${this.path}.corrupt-${Date.now()}`;
      copyFileSync(this.path, kept);
      throw new ConfigError(
        `The config file ${this.path} cannot be read (${problem}). A copy was kept at ${kept}, and the file was left as it is. ` +
          'Fix the file, or move it away to start with an empty config (keys and lines would have to be added again; the wallet is in the ledger and stays).',
      );
    }
    await this.db.read();
    this.saved = text;
    ConfigStore.complete(this.db.data);
    chmodSync(this.path, 0o600);
  }

  /** Fills in what an older or hand-written file may lack. */
  private static complete(data: ConfigData): void {
    const base = defaults();
    data.keys ??= base.keys;
    data.lines ??= base.lines;
    data.groups ??= base.groups;
    data.aliases ??= base.aliases;
    data.models ??= [];
    data.priceOverrides ??= [];
    if (!data.groups.some((g) => g.name === DEFAULT_GROUP)) data.groups.unshift(base.groups[0]!);
  }

  private read(): string {
    try {
      return readFileSync(this.path, 'utf8');
    } catch (err) {
      throw storeError(err, `The config file ${this.path}`, dirname(this.path)) ?? err;
    }
  }

  /** Writes the file (lowdb: a temporary file renamed over it) and keeps it private (its mode comes from the temporary file). */
  private async write(): Promise<void> {
    try {
      const written = this.db.write();
      const text = this.writing;
      await written;
      chmodSync(this.path, 0o600);
      this.saved = text;
    } catch (err) {
      throw storeError(err, `The config file ${this.path}`, dirname(this.path)) ?? err;
    }
  }

  get data(): ConfigData {
    return this.db.data;
  }

  /**
   * Change the config in memory, tell the listeners, and persist it. Writes are serialised by
   * lowdb's writer. The memory is what the gateway runs on, so listeners hear of a change at once,
   * before it is on disk. A change that cannot be saved (a full disk) is taken back, in memory too,
   * and the error says why: a key the user was shown must not vanish at the next start.
   */
  async update<T>(change: (data: ConfigData) => T): Promise<T> {
    const result = change(this.db.data);
    this.notify();
    try {
      await this.write();
    } catch (err) {
      const before = JSON.parse(this.saved) as ConfigData;
      ConfigStore.complete(before);
      this.db.data = before;
      this.notify();
      throw err;
    }
    return result;
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }

  /** Calls `listener` after every change made through update(), e.g. to rebuild an index of the data. */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }
}
