import type { CatalogueModel } from '../catalogue/catalogue.js';
import type { ResolvedModel } from '../catalogue/models.js';
import { GatewayError } from '../core/errors.js';
import type { Usage } from '../core/usage.js';
import { emptyUsage } from '../core/usage.js';
import { KeyLimits } from '../routing/key-limits.js';
import type { Ledger, RequestRow } from '../store/ledger.js';
import type { KeyRecord, LineRecord } from '../store/types.js';
import { costMicro, reservationMicro } from './pricing.js';
import { Reservations, type Reservation } from './reservations.js';

/** Output tokens reserved when the client sets no limit, capped so a small wallet still works. */
export const DEFAULT_RESERVED_OUTPUT_TOKENS = 16_384;

export interface AdmitInput {
  /** The client's output limit, if it set one. */
  maxOutputTokens: number | undefined;
  /** The cheap byte-based prompt estimate (core/estimate.ts). */
  estimatedInputTokens: number;
  /** The estimate of the prompt's text alone (inline files discounted), checked against the context window. */
  textTokens?: number;
}

/**
 * A prompt whose text estimate passes twice the context window is refused before anything is held
 * or sent. The estimate counts a token per 3 bytes where real text averages about 4, so twice the
 * window is at least half again what the model takes: the upstream would refuse it, and some
 * charge for the attempt.
 */
export const CONTEXT_OVERFLOW_FACTOR = 2;

/** A request let in: what it may cost, the lines to try, and what it holds until it is settled. */
export interface Admission {
  /** The catalogue model served (after aliases). */
  model: CatalogueModel;
  multiplierPpm: number;
  /** Lines serving the model, in the order to try them. */
  candidates: LineRecord[];
  /** The line of the current (or last) attempt, and the id that line knows the model by. */
  line: LineRecord;
  upstreamModel: string;
  reservation: Reservation;
  /** The prompt estimate the reservation was made with. */
  estimatedInputTokens: number;
  /** The key whose concurrency slot the request holds. */
  keyId: string;
}

/** One finished request as the relay reports it: the ledger row, less what the admission and the prices say. */
export type Charge = Omit<RequestRow, 'costMicro' | 'usage' | 'servedModel' | 'upstreamModel' | 'line' | 'upstreamProtocol' | 'billedAt'> & {
  /** Null when the request was refused before it was admitted. */
  admission: Admission | null;
  /** Null when nothing was billed (refused, or failed before the upstream read the prompt). */
  usage: Usage | null;
};

/**
 * Admission and settlement: the money side of a request. Admission resolves the model, orders
 * its lines, takes a slot of the key's limits and reserves the worst-case cost; settlement writes
 * the one ledger row (cost, wallet debit and key usage in one transaction) and gives back what
 * the admission held.
 */
export class Billing {
  readonly reservations = new Reservations();
  readonly keyLimits = new KeyLimits();

  constructor(
    private readonly ledger: Ledger,
    private readonly models: { resolve(id: string, key: KeyRecord): ResolvedModel },
    private readonly lines: { order(modelId: string): LineRecord[] },
  ) {}

  /** Model (404), then a line for it (503), then the key's own limits (429), then money (402). */
  admit(key: KeyRecord, modelId: string, input: AdmitInput): Admission {
    const { model, multiplierPpm } = this.models.resolve(modelId, key);
    const candidates = this.lines.order(model.id);
    if (input.textTokens !== undefined && model.contextWindow > 0 && input.textTokens > CONTEXT_OVERFLOW_FACTOR * model.contextWindow) {
      throw new GatewayError(
        'invalid_request',
        `The prompt is far longer than the context window of ${model.id} (${model.contextWindow.toLocaleString('en-US')} tokens): it holds about ${input.textTokens.toLocaleString('en-US')} tokens by Tollgate's estimate. Shorten the conversation or the documents in it, or use a model with a larger context window.`,
        { code: 'context_length_exceeded' },
      );
    }
    this.keyLimits.admit(key, Date.now());
    const maxOut = Math.min(input.maxOutputTokens ?? DEFAULT_RESERVED_OUTPUT_TOKENS, model.maxOutputTokens || Infinity);
    let reservation: Reservation;
    try {
      reservation = this.reservations.reserve({
        keyId: key.id,
        keyName: key.name,
        amountMicro: reservationMicro(input.estimatedInputTokens, maxOut, model.prices, multiplierPpm),
        balanceMicro: this.ledger.balanceMicro(),
        quotaMicro: key.quotaMicro,
        keyUsedMicro: this.ledger.keyUsageMicro(key.id),
      });
    } catch (err) {
      this.keyLimits.release(key.id);
      throw err;
    }
    const first = candidates[0]!;
    return {
      model,
      multiplierPpm,
      candidates,
      line: first,
      upstreamModel: first.modelMap[model.id] ?? model.id,
      reservation,
      estimatedInputTokens: input.estimatedInputTokens,
      keyId: key.id,
    };
  }

  /**
   * Writes the request's ledger row and releases what its admission held. Call once per request.
   * A failed ledger write (disk full, say) must not take the gateway down: it is reported, the
   * wallet in memory has been given the money back (Ledger.flush), and the promise resolves false
   * so that the answer is not delivered as if it had been recorded (relay/exchange.ts).
   */
  settle(charge: Charge): Promise<boolean> {
    const { admission: a, usage, ...row } = charge;
    if (a) {
      this.keyLimits.release(a.keyId);
      this.reservations.release(a.reservation);
    }
    const written = this.ledger.settle({
      ...row,
      servedModel: a?.model.id ?? null,
      upstreamModel: a?.upstreamModel ?? null,
      line: a?.line.name ?? null,
      upstreamProtocol: a?.line.protocol ?? null,
      usage: usage ?? emptyUsage(),
      costMicro: a && usage ? costMicro(usage, a.model.prices, a.multiplierPpm) : 0,
      // The prices of the model object taken at admission: a price changed while the request ran applies from the next one.
      billedAt: a ? { prices: { ...a.model.prices }, multiplierPpm: a.multiplierPpm } : null,
    });
    return written.then(
      () => true,
      (err: unknown) => {
        process.stderr.write(`tollgate: could not write the ledger row of ${row.requestId}: ${(err as Error).message}\n`);
        return false;
      },
    );
  }
}
