import { CREDENTIAL_VARIABLE_RULE, isCredentialVariable } from '../core/auth.js';
import { GatewayError } from '../core/errors.js';
import type { ConfigStore } from '../store/config.js';
import type { SecretStore } from '../store/secrets.js';
import type { LineQuirks } from '../core/quirks.js';
import type { LineRecord } from '../store/types.js';
import { DEFAULT_TIMEOUTS, type Timeouts } from '../upstream/client.js';
import { LineAffinity } from './affinity.js';
import { LineHealth } from './health.js';
import { PlanWindows } from './plan-windows.js';
import { LineSelector } from './select.js';

/**
 * The id the line's upstream knows a catalogue model by. `modelMap` is a plain object read from
 * config.json, so only its own entries count: a model id such as `constructor` must not read a
 * function off Object.prototype.
 */
export function upstreamModelId(line: Pick<LineRecord, 'modelMap'>, modelId: string): string {
  const mapped: unknown = Object.hasOwn(line.modelMap, modelId) ? line.modelMap[modelId] : undefined;
  return typeof mapped === 'string' ? mapped : modelId;
}

/** Where a line's upstream key comes from. */
export type KeySource = 'keychain' | 'env' | 'none';

/**
 * The lines of the config and what a request needs of them: which serve a model and in what
 * order (select.ts), their health (health.ts), their requests-per-minute windows, their timeouts,
 * and their upstream keys.
 */
export class Lines {
  readonly health: LineHealth;
  /** The line each conversation last used (affinity.ts). */
  readonly affinity = new LineAffinity();
  /** What each line's upstream last said about its rate limits and plan windows (plan-windows.ts). */
  readonly planWindows = new PlanWindows();
  private readonly selector: LineSelector;
  /** Keychain reads cost a D-Bus round trip (~15 ms): a key read once is kept until it is changed. */
  private readonly credentials = new Map<string, string>();
  private readonly timeouts = new WeakMap<object, Timeouts>();

  constructor(
    private readonly config: Pick<ConfigStore, 'data'> & Partial<Pick<ConfigStore, 'update'>>,
    readonly secrets: SecretStore,
    opts: { health?: LineHealth; random?: () => number } = {},
  ) {
    this.health = opts.health ?? new LineHealth();
    this.selector = new LineSelector(opts.random);
  }

  /** Every line serving the model, in the order to try them; a 503 when none does. */
  order(modelId: string): LineRecord[] {
    return this.selector.order(modelId, this.config.data.lines);
  }

  /** Takes a slot in the line's requests-per-minute window; returns the wait in ms when there is none (0 = taken). */
  take(line: LineRecord, now: number): number {
    return this.selector.take(line, now);
  }

  /**
   * The line's timeouts over the defaults, read twice per attempt: made once per `timeouts` object
   * (an update replaces the object, operations/lines.ts), and shared, so callers only read it.
   */
  timeoutsFor(line: LineRecord): Timeouts {
    const own = line.timeouts;
    if (!own) return DEFAULT_TIMEOUTS;
    let merged = this.timeouts.get(own);
    if (!merged) {
      merged = { ...DEFAULT_TIMEOUTS, ...own };
      this.timeouts.set(own, merged);
    }
    return merged;
  }

  keySource(line: LineRecord): KeySource {
    return line.apiKeySource ?? (line.apiKeyEnv ? 'env' : 'none');
  }

  /** Variable names judged by isCredentialVariable (two patterns), so that each is tested once, not per request. */
  private readonly variables = new Map<string, boolean>();

  private credentialVariable(name: string): boolean {
    let ok = this.variables.get(name);
    if (ok === undefined) {
      ok = isCredentialVariable(name);
      if (this.variables.size >= 1_000) this.variables.clear();
      this.variables.set(name, ok);
    }
    return ok;
  }

  /**
   * The line's upstream key, read at request time; never stored in config or logged. Given as it is
   * when it is at hand (none, the environment, a key the keychain gave before), a promise only when
   * the keychain must be asked: a request awaits nothing for it in the usual case. A refusal
   * (a variable that is not a credential's, one not set) is thrown where it is found.
   */
  credentialFor(line: LineRecord): string | undefined | Promise<string | undefined> {
    const source = this.keySource(line);
    if (source === 'none') return undefined;
    if (source === 'env') {
      if (!this.credentialVariable(line.apiKeyEnv ?? '')) {
        throw new GatewayError(
          'upstream_unavailable',
          `The line "${line.name}" names ${line.apiKeyEnv ?? '(none)'} as its key variable, which is not ${CREDENTIAL_VARIABLE_RULE}; its value is not sent.`,
          {
            code: 'line_credential_refused',
          },
        );
      }
      const value = process.env[line.apiKeyEnv ?? ''];
      if (!value) {
        throw new GatewayError(
          'upstream_unavailable',
          `The line "${line.name}" reads its API key from the environment variable ${line.apiKeyEnv ?? '(none)'}, which is not set where Tollgate runs.`,
          {
            code: 'line_credential_missing',
          },
        );
      }
      return value;
    }
    const cached = this.credentials.get(line.id);
    if (cached !== undefined) return cached;
    return this.fromKeychain(line);
  }

  /** The line's key as the keychain gives it, kept for the next requests. */
  private async fromKeychain(line: LineRecord): Promise<string | undefined> {
    let secret: string | undefined;
    try {
      secret = await this.secrets.get(line.id);
    } catch (err) {
      throw new GatewayError(
        'upstream_unavailable',
        `The OS keychain did not give the API key of the line "${line.name}": ${(err as Error).message}`,
        {
          code: 'line_credential_unavailable',
        },
      );
    }
    if (secret === undefined) {
      throw new GatewayError(
        'upstream_unavailable',
        `The API key of the line "${line.name}" is missing from the OS keychain. Set it again with "tollgate lines update ${line.name} --api-key-stdin".`,
        {
          code: 'line_credential_missing',
        },
      );
    }
    this.credentials.set(line.id, secret);
    return secret;
  }

  /**
   * Keeps quirks a line's upstream turned out to need (an upstream 400 that named a missing field,
   * relay/quirk-retry.ts), so the next request goes with them from the start. Saved in config.json
   * like a quirk the user set; a failed save is only logged: the request itself has its answer.
   */
  async learnQuirks(line: LineRecord, quirks: LineQuirks): Promise<void> {
    const update = this.config.update?.bind(this.config);
    const apply = (l: LineRecord): void => {
      l.quirks = { ...l.quirks, ...quirks };
    };
    if (!update) {
      apply(line);
      return;
    }
    try {
      await update((d) => {
        const record = d.lines.find((l) => l.id === line.id);
        if (record) apply(record);
      });
    } catch (err) {
      process.stderr.write(
        `tollgate: could not save the quirks learnt for line "${line.name}": ${(err as Error).message}\n`,
      );
    }
  }

  /** Stores (or, with undefined, removes) a line's upstream key in the secret store. */
  async setCredential(lineId: string, secret: string | undefined): Promise<void> {
    this.credentials.delete(lineId);
    if (secret === undefined) await this.secrets.delete(lineId);
    else await this.secrets.set(lineId, secret);
  }
}
