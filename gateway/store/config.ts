import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import type { ConfigData } from './types.js';

export const DEFAULT_GROUP = 'default';

function defaults(): ConfigData {
  return { version: 1, keys: [], lines: [], groups: [{ name: DEFAULT_GROUP, multiplier: '1', models: ['*'] }], aliases: [] };
}

export class ConfigError extends Error {}

/**
 * Settings, keys (hashes only), lines (no credentials) and groups, as one JSON file written
 * atomically by lowdb (write to a temporary file, then rename). A file that does not parse stops
 * start-up with a clear message and is copied aside; it is never silently reset.
 */
export class ConfigStore {
  private readonly db: Low<ConfigData>;
  private readonly listeners: (() => void)[] = [];
  readonly path: string;

  private constructor(path: string) {
    this.path = path;
    this.db = new Low(new JSONFile<ConfigData>(path), defaults());
  }

  static async open(dataDir: string): Promise<ConfigStore> {
    const store = new ConfigStore(join(dataDir, 'config.json'));
    await store.load();
    return store;
  }

  private async load(): Promise<void> {
    if (existsSync(this.path)) {
      const text = readFileSync(this.path, 'utf8');
      try {
        const parsed = JSON.parse(text) as Partial<ConfigData>;
        if (typeof parsed !== 'object' || parsed === null || parsed.version !== 1) throw new Error('not a Tollgate config (version 1)');
      } catch (err) {
        const kept = `${this.path}.corrupt-${Date.now()}`;
        copyFileSync(this.path, kept);
        throw new ConfigError(
          `The config file ${this.path} cannot be read (${(err as Error).message}). A copy was kept at ${kept}. ` +
            'Fix the file, or move it away to start with an empty config (keys and lines would have to be added again).',
        );
      }
      await this.db.read();
      const data = this.db.data;
      const base = defaults();
      data.keys ??= base.keys;
      data.lines ??= base.lines;
      data.groups ??= base.groups;
      data.aliases ??= base.aliases;
      if (!data.groups.some((g) => g.name === DEFAULT_GROUP)) data.groups.unshift(base.groups[0]!);
    } else {
      await this.db.write();
    }
  }

  get data(): ConfigData {
    return this.db.data;
  }

  /**
   * Change the config in memory, tell the listeners, and persist it. Writes are serialised by
   * lowdb's writer. The memory is what the gateway runs on, so listeners hear of a change at once,
   * before it is on disk.
   */
  async update<T>(change: (data: ConfigData) => T): Promise<T> {
    const result = change(this.db.data);
    for (const listener of this.listeners) listener();
    await this.db.write();
    return result;
  }

  /** Calls `listener` after every change made through update(), e.g. to rebuild an index of the data. */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }
}
