/**
 * What the relay needs from the gateway's services, as small interfaces: the composition root
 * (compose/gateway.ts, openGateway) hands it the real services, unit tests hand it fakes.
 */
import type { Billing } from '../billing/billing.js';
import type { ResolvedModel } from '../catalogue/models.js';
import type { TokenCalibration } from '../core/calibration.js';
import type { ClientTokenCounts } from './token-counts.js';
import type { CatalogueModel } from '../catalogue/catalogue.js';
import type { LineAffinity } from '../routing/affinity.js';
import type { LineHealth } from '../routing/health.js';
import type { PlanWindows } from '../routing/plan-windows.js';
import type { LineQuirks } from '../core/quirks.js';
import type { KeyRecord, LineRecord } from '../store/types.js';
import type { Timeouts, UpstreamCall, UpstreamResponse } from '../upstream/client.js';
import type { Sessions } from '../sessions/sessions.js';

/** The lines a request is tried on (routing/lines.ts): health, rate windows, timeouts, credentials. */
export interface LinePool {
  readonly health: Pick<LineHealth, 'rateLimitWaitMs' | 'waitMs' | 'tryUse' | 'release' | 'record' | 'rateLimited'>;
  /** Takes a slot in the line's requests-per-minute window; the wait in ms when there is none (0 = taken). */
  take(line: LineRecord, now: number): number;
  timeoutsFor(line: LineRecord): Timeouts;
  /** The line's key: as it is when at hand, a promise when the keychain must be asked (routing/lines.ts). */
  credentialFor(line: LineRecord): string | undefined | Promise<string | undefined>;
  /** The line each conversation last used: tried first while it is healthy (routing/affinity.ts). */
  readonly affinity: Pick<LineAffinity, 'prefer' | 'record'>;
  /** Each line's latest rate-limit and plan-window headers (routing/plan-windows.ts). */
  readonly planWindows: Pick<PlanWindows, 'remember'>;
  /** Keeps quirks an upstream turned out to need on the line (relay/quirk-retry.ts). */
  learnQuirks(line: LineRecord, quirks: LineQuirks): Promise<void>;
}

/** The pooled upstream HTTP client (upstream/client.ts). */
export interface Upstream {
  send(call: UpstreamCall): Promise<UpstreamResponse>;
}

/** The models a key may use (catalogue/models.ts). */
export interface ModelDirectory {
  forKey(key: KeyRecord): CatalogueModel[];
  resolve(id: string, key: KeyRecord): ResolvedModel;
}

/** Stored Responses conversations (store/responses.ts). */
export interface Conversations {
  get(id: string, keyId: string): unknown[] | undefined;
  put(id: string, keyId: string, items: unknown[]): void;
}

/** Request bodies kept for the usage log, when the storeBodies setting is on (store/bodies.ts). */
export interface RequestBodies {
  record(requestId: string, body: string): void;
}

export interface RelayServices {
  /** Admission and settlement (billing/billing.ts). */
  billing: Pick<Billing, 'admit' | 'settle'>;
  lines: LinePool;
  upstream: Upstream;
  models: ModelDirectory;
  calibration: Pick<TokenCalibration, 'promptFromEstimate' | 'countPrompt' | 'learn'>;
  /** Counts clients ask for: limited per key, in their own tokenizer thread. */
  tokenCounts: Pick<ClientTokenCounts, 'run'>;
  conversations: Conversations;
  bodies: RequestBodies;
  /** The session guards (sessions/sessions.ts): absent, requests are not checked against them. */
  sessions?: Pick<Sessions, 'check' | 'limit' | 'hold'>;
}
