import { mkdirSync } from 'node:fs';
import { buildCatalogue, type CatalogueModel } from './catalogue/catalogue.js';
import { loadPresets, type Preset } from './catalogue/presets.js';
import { parseMultiplier } from './core/money.js';
import { costMicro, reservationMicro } from './billing/pricing.js';
import { Reservations } from './billing/reservations.js';
import { GatewayError } from './core/errors.js';
import type { Admission, Exchange, Outcome } from './core/exchange.js';
import { emptyUsage } from './core/usage.js';
import { authenticate, extractKey, type KeySource } from './keys/authenticate.js';
import { DEFAULT_TIMEOUTS, UpstreamClient, type Timeouts } from './upstream/client.js';
import { resolveAlias } from './routing/aliases.js';
import { LineHealth } from './routing/health.js';
import { KeyLimits } from './routing/key-limits.js';
import { LineSelector } from './routing/select.js';
import { ConfigStore, DEFAULT_GROUP } from './store/config.js';
import { ResponseStore } from './store/responses.js';
import { openKeychain, type SecretStore } from './store/secrets.js';
import { Calibration } from './core/token-count.js';
import { Ledger } from './store/ledger.js';
import type { GroupRecord, KeyRecord, LineRecord } from './store/types.js';

/** Output tokens reserved when the client sets no limit, capped so a small wallet still works. */
export const DEFAULT_RESERVED_OUTPUT_TOKENS = 16_384;

/**
 * The byte-based prompt estimate (core/estimate.ts) corrected per model by what upstreams
 * reported: the figure a translated stream announces at its start, before the upstream's own.
 */
export interface AdmitInput {
  maxOutputTokens: number | undefined;
  estimatedInputTokens: number;
}

/**
 * The gateway's state and the pipeline steps that need it: config, ledger, catalogue, key index,
 * reservations, line selection and the upstream client. Fastify-free, so tests and the CLI's
 * doctor can use it directly.
 */
export class Gateway {
  readonly reservations = new Reservations();
  readonly selector = new LineSelector();
  readonly health = new LineHealth();
  readonly keyLimits = new KeyLimits();
  readonly upstream = new UpstreamClient();
  readonly responses: ResponseStore;
  /** Learns, per model, reported prompt tokens ÷ the cheap byte estimate made at admission. */
  readonly promptCalibration = new Calibration(() => 0.75);
  /** Learns, per model, reported prompt tokens ÷ the o200k tokenizer count (for count_tokens). */
  readonly tokenizerCalibration = new Calibration();
  private keysByHash = new Map<string, KeyRecord>();
  private readonly credentialCache = new Map<string, string>();

  private constructor(
    readonly dataDir: string,
    readonly config: ConfigStore,
    readonly ledger: Ledger,
    readonly catalogue: Map<string, CatalogueModel>,
    readonly presets: Map<string, Preset>,
    readonly secrets: SecretStore,
  ) {
    this.responses = new ResponseStore(dataDir);
    this.reindexKeys();
  }

  static async open(dataDir: string, secrets: SecretStore = openKeychain()): Promise<Gateway> {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const config = await ConfigStore.open(dataDir);
    const ledger = new Ledger(dataDir);
    const presets = loadPresets();
    return new Gateway(dataDir, config, ledger, buildCatalogue(presets), presets, secrets);
  }

  /** Stores (or, with undefined, removes) a line's upstream key in the secret store. */
  async setCredential(lineId: string, secret: string | undefined): Promise<void> {
    this.credentialCache.delete(lineId);
    if (secret === undefined) await this.secrets.delete(lineId);
    else await this.secrets.set(lineId, secret);
  }

  async close(): Promise<void> {
    await this.upstream.close();
    this.ledger.close();
    this.responses.close();
  }

  reindexKeys(): void {
    this.keysByHash = new Map(this.config.data.keys.map((k) => [k.hash, k]));
  }

  authenticate(src: KeySource): KeyRecord {
    return authenticate(extractKey(src), this.keysByHash, Date.now());
  }

  group(name: string): GroupRecord {
    const g = this.config.data.groups.find((x) => x.name === name) ?? this.config.data.groups.find((x) => x.name === DEFAULT_GROUP);
    if (!g) throw new GatewayError('internal', `group "${name}" does not exist`);
    return g;
  }

  /** Catalogue models the key's group may use, in catalogue order. */
  modelsForKey(key: KeyRecord): CatalogueModel[] {
    const g = this.group(key.group);
    const all = g.models.includes('*');
    return [...this.catalogue.values()].filter((m) => all || g.models.includes(m.id));
  }

  /** The catalogue model a requested id stands for: the exact id, else the first alias that matches. */
  resolveModel(id: string, key: KeyRecord): { model: CatalogueModel; multiplierPpm: number } {
    const target = this.catalogue.has(id) ? id : resolveAlias(id, this.config.data.aliases);
    const model = target === undefined ? undefined : this.catalogue.get(target);
    if (!model) {
      throw new GatewayError(
        'model_not_found',
        `The model "${id}" does not exist. Model ids must match the catalogue exactly: GET /v1/models with your key lists the ids you may use, as do the console's model list and "tollgate models list".`,
        { code: 'model_not_found', param: 'model' },
      );
    }
    const g = this.group(key.group);
    if (!g.models.includes('*') && !g.models.includes(model.id)) {
      throw new GatewayError(
        'model_not_found',
        `The model "${id}" is not available to this key's group "${g.name}". GET /v1/models with your key lists the ids it may use.`,
        { code: 'model_not_found', param: 'model' },
      );
    }
    return { model, multiplierPpm: parseMultiplier(g.multiplier) };
  }

  /**
   * Model, then the key's own limits, then money. The lines are tried in order by forward()
   * (core/forward.ts), which also takes each line's rate-limit slot as it tries it.
   */
  admit(ex: Exchange, key: KeyRecord, modelId: string, input: AdmitInput): Admission {
    const { model, multiplierPpm } = this.resolveModel(modelId, key);
    const candidates = this.selector.order(model.id, this.config.data.lines);
    this.keyLimits.admit(key, Date.now());
    ex.holdsKeySlot = true;
    const maxOut = Math.min(input.maxOutputTokens ?? DEFAULT_RESERVED_OUTPUT_TOKENS, model.maxOutputTokens || Infinity);
    const amount = reservationMicro(input.estimatedInputTokens, maxOut, model.prices, multiplierPpm);
    const reservation = this.reservations.reserve({
      keyId: key.id,
      keyName: key.name,
      amountMicro: amount,
      balanceMicro: this.ledger.balanceMicro(),
      quotaMicro: key.quotaMicro,
      keyUsedMicro: this.ledger.keyUsageMicro(key.id),
    });
    const first = candidates[0]!;
    const admission: Admission = {
      model,
      multiplierPpm,
      candidates,
      line: first,
      upstreamModel: first.modelMap[model.id] ?? model.id,
      reservation,
      estimatedInputTokens: input.estimatedInputTokens,
    };
    ex.admission = admission;
    return admission;
  }

  timeoutsFor(line: LineRecord): Timeouts {
    return { ...DEFAULT_TIMEOUTS, ...line.timeouts };
  }

  /** Where a line's upstream key comes from. */
  keySource(line: LineRecord): 'keychain' | 'env' | 'none' {
    return line.apiKeySource ?? (line.apiKeyEnv ? 'env' : 'none');
  }

  /**
   * The line's upstream credential, read at request time; never stored in config or logged.
   * Keychain reads cost a D-Bus round trip (~15 ms), so they are kept in memory once read.
   */
  async credentialFor(line: LineRecord): Promise<string | undefined> {
    const source = this.keySource(line);
    if (source === 'none') return undefined;
    if (source === 'keychain') {
      const cached = this.credentialCache.get(line.id);
      if (cached !== undefined) return cached;
      let secret: string | undefined;
      try {
        secret = await this.secrets.get(line.id);
      } catch (err) {
        throw new GatewayError('upstream_unavailable', `The OS keychain did not give the API key of the line "${line.name}": ${(err as Error).message}`, {
          code: 'line_credential_unavailable',
        });
      }
      if (secret === undefined) {
        throw new GatewayError('upstream_unavailable', `The API key of the line "${line.name}" is missing from the OS keychain. Set it again with "tollgate lines update ${line.name} --api-key-stdin".`, {
          code: 'line_credential_missing',
        });
      }
      this.credentialCache.set(line.id, secret);
      return secret;
    }
    const value = process.env[line.apiKeyEnv ?? ''];
    if (!value) {
      throw new GatewayError('upstream_unavailable', `The line "${line.name}" reads its API key from the environment variable ${line.apiKeyEnv ?? '(none)'}, which is not set where Tollgate runs.`, {
        code: 'line_credential_missing',
      });
    }
    return value;
  }

  /**
   * Writes the one ledger row of an exchange (cost, wallet debit and key usage in one transaction)
   * and releases its reservation. Safe to call once per exchange; later calls do nothing.
   */
  settle(ex: Exchange, outcome: Outcome): Promise<void> {
    if (ex.settled || !ex.billable) return Promise.resolve();
    ex.settled = true;
    if (ex.holdsKeySlot && ex.key) this.keyLimits.release(ex.key.id);
    const a = ex.admission;
    if (a) this.reservations.release(a.reservation);
    const usage = outcome.usage ?? emptyUsage();
    const cost = a && outcome.usage ? costMicro(usage, a.model.prices, a.multiplierPpm) : 0;
    const err = outcome.error;
    const written = this.ledger.settle({
      requestId: ex.requestId,
      ts: ex.ts,
      keyId: ex.key?.id ?? null,
      keyName: ex.key?.name ?? null,
      model: ex.model,
      servedModel: a?.model.id ?? null,
      attempts: ex.attempts,
      upstreamModel: a?.upstreamModel ?? null,
      line: a?.line.name ?? null,
      inboundProtocol: ex.inbound,
      upstreamProtocol: a?.line.protocol ?? null,
      stream: ex.stream,
      status: outcome.status,
      errorCode: err?.code ?? null,
      errorMessage: err ? err.message.slice(0, 1000) : null,
      usage,
      usageEstimated: outcome.usageEstimated,
      costMicro: cost,
      latencyMs: Math.round(performance.now() - ex.startedAt),
      ttfbMs: ex.ttfbMs,
      notes: ex.notes.length > 0 ? ex.notes.join('; ').slice(0, 2000) : null,
    });
    if (a && outcome.usage && !outcome.usageEstimated) {
      const u = outcome.usage;
      const reportedPrompt = u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens + u.audioInputTokens + u.imageInputTokens;
      this.promptCalibration.record(a.model.id, a.estimatedInputTokens, reportedPrompt);
    }
    // A failed ledger write (disk full, say) must not take the gateway down; it is reported and
    // the wallet in memory has been given the money back (Ledger.flush).
    return written.catch((err: unknown) => {
      process.stderr.write(`tollgate: could not write the ledger row of ${ex.requestId}: ${(err as Error).message}\n`);
    });
  }
}
