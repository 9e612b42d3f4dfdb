import { Billing } from '../billing/billing.js';
import { buildCatalogue, retiredModels } from '../catalogue/catalogue.js';
import { catalogueClock, LiveCatalogue } from '../catalogue/live.js';
import { Models } from '../catalogue/models.js';
import { loadPresets, type Preset } from '../catalogue/presets.js';
import { TokenCalibration } from '../core/calibration.js';
import { ClientTokenCounts } from '../relay/token-counts.js';
import { KeyRing } from '../keys/keyring.js';
import type { RelayServices } from '../relay/ports.js';
import type { LineHealth } from '../routing/health.js';
import { Lines } from '../routing/lines.js';
import { ConfigStore } from '../store/config.js';
import { lockDataDir, LOCK_FILE } from '../store/data-dir-lock.js';
import { openPrivate, prepareDataDir } from '../store/data-dir.js';
import { Ledger } from '../store/ledger.js';
import { ResponseStore } from '../store/responses.js';
import { BodyStore } from '../store/bodies.js';
import { settingsOf } from '../store/settings.js';
import { startRetention } from './retention.js';
import { openKeychain, type SecretStore } from '../store/secrets.js';
import { UpstreamClient } from '../upstream/client.js';
import { trustOf, type Trust } from '../upstream/trust.js';
import { PauseSwitch } from './pause.js';
import { Sessions } from '../sessions/sessions.js';

/**
 * One gateway's services, built from a data dir: the stores, and the narrow services on them.
 * The server, the admin API and the CLI's doctor take what they need from it; the relay gets
 * only `relay`, a handful of small interfaces.
 */
export interface Gateway {
  readonly dataDir: string;
  readonly config: ConfigStore;
  readonly ledger: Ledger;
  /** Where upstream keys live (the OS keychain unless a test says otherwise). */
  readonly secrets: SecretStore;
  readonly presets: ReadonlyMap<string, Preset>;
  /** The presets' models with the user's custom models and prices, following every config change. */
  readonly catalogue: LiveCatalogue;
  /** Authentication, over an index that follows every config change. */
  readonly keys: KeyRing;
  /** Which catalogue models a key may use: groups and aliases. */
  readonly models: Models;
  /** Line selection, health, rate windows, timeouts and upstream keys. */
  readonly lines: Lines;
  /** The lines' circuit breakers and 429 holds (the same object as lines.health). */
  readonly health: LineHealth;
  /** Admission and settlement: reservations, key limits, prices, ledger rows. */
  readonly billing: Billing;
  readonly calibration: TokenCalibration;
  /** Counts clients ask for (count_tokens): limited per key, counted for the status. */
  readonly tokenCounts: ClientTokenCounts;
  readonly upstream: UpstreamClient;
  /** What upstream TLS trusts now: the CA settings as applied (upstream/trust.ts). */
  trust(): Trust;
  /** Stored Responses conversations (previous_response_id). */
  readonly responses: ResponseStore;
  /** Request bodies, kept while the storeBodies setting is on. */
  readonly bodies: BodyStore;
  /** What the relay is given. */
  readonly relay: RelayServices;
  /** Paused: the model API answers 503 (pause.ts). */
  readonly pause: PauseSwitch;
  /** Agent sessions: attribution, caps, budget windows, the loop guard (sessions/sessions.ts). */
  readonly sessions: Sessions;
  close(): Promise<void>;
}

/**
 * The composition root: takes the data dir's lock (store/data-dir-lock.ts) before anything in it
 * is written, opens its stores and builds the services on them. Throws DataDirBusyError when
 * another gateway holds the data dir.
 */
export async function openGateway(dataDir: string, secrets: SecretStore = openKeychain()): Promise<Gateway> {
  prepareDataDir(dataDir);
  const lock = openPrivate(dataDir, LOCK_FILE, 'The lock file', () => lockDataDir(dataDir));
  try {
    return await build(dataDir, secrets, lock.release);
  } catch (err) {
    lock.release();
    throw err;
  }
}

async function build(dataDir: string, secrets: SecretStore, release: () => void): Promise<Gateway> {
  const config = await ConfigStore.open(dataDir);
  const ledger = openPrivate(dataDir, 'ledger.sqlite', 'The ledger', () => new Ledger(dataDir));
  let responses: ResponseStore;
  try {
    responses = openPrivate(
      dataDir,
      'responses.sqlite',
      'The store of Responses conversations',
      () => new ResponseStore(dataDir),
    );
  } catch (err) {
    ledger.close();
    throw err;
  }
  let bodies: BodyStore;
  try {
    bodies = openPrivate(dataDir, 'bodies.sqlite', 'The store of request bodies', () => new BodyStore(dataDir));
  } catch (err) {
    ledger.close();
    responses.close();
    throw err;
  }
  const presets = loadPresets();
  const builtIn = buildCatalogue(presets);
  const catalogue = new LiveCatalogue(
    builtIn,
    retiredModels(presets, builtIn),
    config,
    catalogueClock(process.env.TOLLGATE_CATALOGUE_DATE),
  );
  const models = new Models(catalogue, config, { retired: catalogue.retired, now: catalogue.now });
  const lines = new Lines(config, secrets);
  const billing = new Billing(ledger, models, lines);
  const sessions = new Sessions(ledger.sessions);
  const keys = new KeyRing(config);
  // The key as config.json has it now (its cap and budgets may have changed while the request ran), by id.
  billing.onSettled((row) => sessions.settled(row, row.keyId === null ? undefined : keys.byId(row.keyId)));
  const calibration = new TokenCalibration();
  const tokenCounts = new ClientTokenCounts(billing.keyLimits);
  const upstream = new UpstreamClient();
  const stopRetention = startRetention(config, ledger, bodies);
  const settings = () => settingsOf(config.data);
  // The CA settings apply to new connections as soon as they change (a PEM file is read then and at start).
  const trustSig = (): string => JSON.stringify([settings().caFile, settings().systemCa]);
  let trust = trustOf(settings());
  let appliedTrust = trustSig();
  upstream.setTrust(trust);
  config.onChange(() => {
    if (trustSig() === appliedTrust) return;
    appliedTrust = trustSig();
    trust = trustOf(settings());
    upstream.setTrust(trust);
  });
  return {
    dataDir,
    config,
    ledger,
    secrets,
    presets,
    catalogue,
    keys,
    models,
    lines,
    health: lines.health,
    billing,
    calibration,
    tokenCounts,
    upstream,
    trust: () => trust,
    responses,
    bodies,
    pause: new PauseSwitch(),
    sessions,
    relay: {
      sessions,
      billing,
      lines,
      upstream,
      models,
      calibration,
      tokenCounts,
      // The settings are read per request, so turning either off takes effect at once.
      conversations: {
        get: (id, keyId) => (settings().storeResponses ? responses.get(id, keyId) : undefined),
        put: (id, keyId, items) => void (settings().storeResponses && responses.put(id, keyId, items)),
      },
      bodies: { record: (id, body) => void (settings().storeBodies && bodies.put(id, body)) },
    },
    async close() {
      stopRetention();
      await upstream.close();
      ledger.close();
      responses.close();
      bodies.close();
      release();
    },
  };
}
