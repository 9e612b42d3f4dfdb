import type { CatalogueModel } from '../catalogue/catalogue.js';
import type { ResolvedModel } from '../catalogue/models.js';
import { GatewayError } from '../core/errors.js';
import { usdExact } from '../contract/money.js';
import { emptyUsage, maxUsageTokens, promptTokens, usageProblem, type Usage } from '../core/usage.js';
import { tieredPrices, tierFor } from '../contract/prices.js';
import { KeyLimits } from '../routing/key-limits.js';
import { upstreamModelId } from '../routing/lines.js';
import { LedgerWriteError, type Ledger, type RequestRow } from '../store/ledger.js';
import type { KeyRecord, LineRecord } from '../store/types.js';
import { affordableOutputTokens, costMicro, reservationMicro, savedMicro } from './pricing.js';
import { Reservations, type Reservation } from './reservations.js';

/** Output tokens reserved when neither the client nor the catalogue gives a limit. */
export const DEFAULT_RESERVED_OUTPUT_TOKENS = 16_384;
/**
 * Fewer output tokens than this (or the model's maximum, if smaller) is not worth answering: a
 * request without a limit of its own that the wallet or quota cannot pay this much for is refused
 * (402) instead of being cut to a uselessly short answer.
 */
export const MIN_OUTPUT_TOKENS = 1_024;

export interface AdmitInput {
  /** The client's output limit, if it set one. */
  maxOutputTokens: number | undefined;
  /** The cheap byte-based prompt estimate (core/estimate.ts). */
  estimatedInputTokens: number;
  /** What the pending row of the request says (store/ledger.ts): who asked, how, when. */
  trace: { requestId: string; ts: number; inboundProtocol: string; stream: boolean; model: string };
  /**
   * The estimate of the prompt's text alone (inline files discounted), checked against the context
   * window: `tokens()` is read only when `atMost`, a bound known without reading the body, fails the check.
   */
  text?: { atMost: number; tokens(): number };
  /**
   * A limit beside the wallet and the key's quota: the agent session's cap and the key's budget
   * windows (sessions/guards.ts). Called with the request's reservation once it is known; throws
   * the refusal when it does not fit. `freeMicro` lowers the output limit of a client that set
   * none, as the wallet's free balance does.
   */
  limit?: SpendLimit;
}

/** What a limit beside the wallet lets a request hold (AdmitInput.limit). */
export interface SpendLimit {
  /** What a new reservation may take; Infinity when unlimited. */
  freeMicro: number;
  /** Throws the limit's refusal when `amountMicro` may not be held; returns when it may. */
  check(amountMicro: number): void;
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
  /**
   * The output limit Tollgate sends upstream for a client that set none, when the model's own
   * maximum is more than the wallet or quota can pay (or the catalogue knows no maximum); the
   * relay puts it in the upstream request. Undefined: the client's own limit, or the model's
   * maximum, bounds the output.
   */
  outputLimit: number | undefined;
  /** The key whose concurrency slot the request holds. */
  keyId: string;
  /** The key's quota when it was admitted (null: none), for what settlement may charge. */
  quotaMicro: number | null;
}

/** One finished request as the relay reports it: the ledger row, less what the admission and the prices say. */
export type Charge = Omit<
  RequestRow,
  | 'costMicro'
  | 'unchargedMicro'
  | 'savedMicro'
  | 'usage'
  | 'servedModel'
  | 'upstreamModel'
  | 'line'
  | 'upstreamProtocol'
  | 'billedAt'
> & {
  /** Null when the request was refused before it was admitted. */
  admission: Admission | null;
  /** Null when nothing was billed (refused, or failed before the upstream read the prompt). */
  usage: Usage | null;
};

/**
 * Admission and settlement: the money side of a request. Admission resolves the model, orders
 * its lines, takes a slot of the key's limits and reserves the most the request may cost;
 * settlement writes the one ledger row (cost, wallet debit and key usage in one transaction) and
 * gives back what the admission held.
 *
 * Neither the wallet nor a key's quota can be overspent (docs/money.md): a request is charged its
 * cost, but never more than its reservation plus what the wallet and the quota have free at
 * settlement (other requests' holds stay untouched). A client without an output limit gets the
 * model's maximum, lowered to what the wallet and quota can pay, and that lower limit is sent
 * upstream. What an upstream reports beyond what can be paid is not charged: the row records it as
 * `unchargedMicro` and says so in its notes.
 */
export class Billing {
  readonly reservations = new Reservations();
  readonly keyLimits = new KeyLimits();
  private readonly settledListeners: ((row: RequestRow) => void)[] = [];

  constructor(
    private readonly ledger: Ledger,
    private readonly models: { resolve(id: string, key: KeyRecord): ResolvedModel },
    private readonly lines: { order(modelId: string): LineRecord[] },
  ) {
    // What requests in flight hold is not free to an adjustment (store/ledger.ts adjust).
    ledger.bindHolds(() => this.reservations.heldMicro());
  }

  /** Model (404), then a line for it (503), then the key's own limits (429), then money (402). */
  admit(key: KeyRecord, modelId: string, input: AdmitInput): Admission {
    const { model, multiplierPpm } = this.models.resolve(modelId, key);
    const candidates = this.lines.order(model.id);
    const contextMost = CONTEXT_OVERFLOW_FACTOR * model.contextWindow;
    const textTokens =
      input.text && model.contextWindow > 0 && input.text.atMost > contextMost ? input.text.tokens() : 0;
    if (textTokens > contextMost) {
      throw new GatewayError(
        'invalid_request',
        `The prompt is far longer than the context window of ${model.id} (${model.contextWindow.toLocaleString('en-US')} tokens): it holds about ${textTokens.toLocaleString('en-US')} tokens by Tollgate's estimate. Shorten the conversation or the documents in it, or use a model with a larger context window.`,
        { code: 'context_length_exceeded' },
      );
    }
    this.keyLimits.admit(key, Date.now());
    const money = {
      keyId: key.id,
      balanceMicro: this.ledger.balanceMicro(),
      quotaMicro: key.quotaMicro,
      keyUsedMicro: this.ledger.keyUsageMicro(key.id),
    };
    const modelMax = model.maxOutputTokens > 0 ? model.maxOutputTokens : undefined;
    // A prompt the estimate puts above a tier's threshold is held at the tier's prices. The
    // estimate counts a token per 3 bytes where text averages about 4, so a prompt that is really
    // above the threshold is estimated above it too.
    const prices = tieredPrices(model.prices, tierFor(model.tiers, input.estimatedInputTokens));
    let reserved: number;
    let outputLimit: number | undefined;
    if (input.maxOutputTokens !== undefined) {
      reserved = Math.min(input.maxOutputTokens, modelMax ?? Infinity);
    } else {
      const most = modelMax ?? DEFAULT_RESERVED_OUTPUT_TOKENS;
      const affordable = affordableOutputTokens(
        Math.min(this.reservations.freeMicro(money), input.limit?.freeMicro ?? Infinity),
        input.estimatedInputTokens,
        prices,
        multiplierPpm,
      );
      // Below the floor the reservation is made anyway, and refused as any other that does not fit.
      reserved = Math.max(Math.min(most, affordable), Math.min(most, MIN_OUTPUT_TOKENS));
      if (reserved < most || modelMax === undefined) outputLimit = reserved;
    }
    let reservation: Reservation;
    try {
      const amountMicro = reservationMicro(input.estimatedInputTokens, reserved, prices, multiplierPpm);
      input.limit?.check(amountMicro);
      // Written out: a spread followed by more properties is V8's slow path, about 2 µs here (relay/respond.ts answerHeaders).
      reservation = this.reservations.reserve({
        keyId: money.keyId,
        keyName: key.name,
        amountMicro,
        balanceMicro: money.balanceMicro,
        quotaMicro: money.quotaMicro,
        keyUsedMicro: money.keyUsedMicro,
      });
    } catch (err) {
      this.keyLimits.release(key.id);
      throw err;
    }
    const t = input.trace;
    this.ledger.open({
      requestId: t.requestId,
      ts: t.ts,
      keyId: key.id,
      keyName: key.name,
      model: t.model,
      inboundProtocol: t.inboundProtocol,
      stream: t.stream,
      heldMicro: reservation.amountMicro,
    });
    const first = candidates[0]!;
    return {
      model,
      multiplierPpm,
      candidates,
      line: first,
      upstreamModel: upstreamModelId(first, model.id),
      reservation,
      estimatedInputTokens: input.estimatedInputTokens,
      outputLimit,
      keyId: key.id,
      quotaMicro: key.quotaMicro,
    };
  }

  /**
   * Writes the request's ledger row and releases what its admission held. Call once per request.
   * Never throws and never rejects: it runs after an answer was delivered. Resolves null once the
   * row is written, else the LedgerWriteError that says why not, so that the answer is not
   * delivered as if it had been recorded (relay/exchange.ts). Such a failure is written to the
   * gateway log and kept for `tollgate doctor` (Ledger.writeFailure), and the wallet in memory has
   * been given the money back (Ledger.flush). A row the ledger refused (not a failed disk) is
   * replaced by one that charges nothing and says why, so the request still has its one row.
   */
  settle(charge: Charge): Promise<LedgerWriteError | null> {
    const a = charge.admission;
    if (a) {
      this.keyLimits.release(a.keyId);
      this.reservations.release(a.reservation);
    }
    let row: RequestRow;
    try {
      row = this.row(charge, a ? this.payable(a) : 0);
    } catch (err) {
      // Unreachable unless a bug lets something through: still a row, charged nothing, and the reason.
      row = {
        ...this.row({ ...charge, usage: null }, 0),
        notes: `settlement failed: ${(err as Error).message}`.slice(0, 2000),
      };
    }
    for (const fn of this.settledListeners) {
      try {
        fn(row);
      } catch (err) {
        process.stderr.write(`tollgate: a settlement listener failed on ${row.requestId}: ${(err as Error).message}\n`);
      }
    }
    return this.ledger.settle(row).then(
      () => null,
      (err: unknown) => {
        const failure = LedgerWriteError.of(charge.requestId, err);
        process.stderr.write(`tollgate: could not write the ledger row of ${charge.requestId}: ${failure.reason}\n`);
        if (!failure.storage) this.ledger.settle(refusedRow(row, failure)).catch(() => undefined);
        return failure;
      },
    );
  }

  /** Calls `fn` with every ledger row as it is settled, before it is written (the session guards count it). */
  onSettled(fn: (row: RequestRow) => void): void {
    this.settledListeners.push(fn);
  }

  /**
   * The most a settled request may be charged: its reservation, or more if the wallet and the
   * key's quota have more free (their own reservation released, other requests' holds kept).
   */
  private payable(a: Admission): number {
    const keyId = a.reservation.keyId;
    const balanceMicro = this.ledger.balanceMicro();
    const free = this.reservations.freeMicro({
      keyId,
      balanceMicro,
      quotaMicro: a.quotaMicro,
      keyUsedMicro: this.ledger.keyUsageMicro(keyId),
    });
    // Never more than the balance: holds are always covered (admission and adjustments keep them so),
    // and this keeps the balance's CHECK from ever refusing a settlement if they were not.
    return Math.min(Math.max(a.reservation.amountMicro, free), Math.max(0, balanceMicro));
  }

  /** The ledger row of a charge: the cost at the catalogue's prices, at most `payableMicro`. */
  private row(charge: Charge, payableMicro: number): RequestRow {
    const a = charge.admission;
    const given = charge.usage;
    const notes = charge.notes === null ? [] : [charge.notes];
    let usage = given ?? emptyUsage();
    let costMicroValue = 0;
    let unchargedMicro = 0;
    // The whole request at the tier its prompt reached (contract/prices.ts), as the vendor bills it.
    const tier = a && given ? tierFor(a.model.tiers, promptTokens(given)) : undefined;
    let saved = 0;
    if (a && given) {
      const problem = usageProblem(given, maxUsageTokens(a.model));
      if (problem) {
        // The relay checks upstream figures before settling (relay/usage.ts): this is a bug's safety net.
        notes.push(`usage not billable (${problem}): charged the reservation`);
        usage = emptyUsage();
        costMicroValue = a.reservation.amountMicro;
      } else {
        const cost = costMicro(given, tieredPrices(a.model.prices, tier), a.multiplierPpm);
        costMicroValue = Math.min(cost, payableMicro);
        unchargedMicro = cost - costMicroValue;
        saved = savedMicro(given, tieredPrices(a.model.prices, tier), a.multiplierPpm);
        if (unchargedMicro > 0) {
          notes.push(
            `cost ${usdExact(cost)} at catalogue prices is more than the wallet and the key's quota could pay: charged ${usdExact(costMicroValue)}, ${usdExact(unchargedMicro)} not charged`,
          );
        }
      }
    }
    // Written out field by field: an object rest and spread of the charge copied it twice on every settlement.
    return {
      requestId: charge.requestId,
      ts: charge.ts,
      keyId: charge.keyId,
      keyName: charge.keyName,
      model: charge.model,
      attempts: charge.attempts,
      inboundProtocol: charge.inboundProtocol,
      stream: charge.stream,
      status: charge.status,
      errorCode: charge.errorCode,
      errorMessage: charge.errorMessage,
      usageEstimated: charge.usageEstimated,
      latencyMs: charge.latencyMs,
      ttfbMs: charge.ttfbMs,
      session: charge.session,
      agent: charge.agent,
      tool: charge.tool,
      project: charge.project,
      servedModel: a?.model.id ?? null,
      upstreamModel: a?.upstreamModel ?? null,
      line: a?.line.name ?? null,
      upstreamProtocol: a?.line.protocol ?? null,
      usage,
      costMicro: costMicroValue,
      unchargedMicro,
      savedMicro: saved,
      notes: notes.length > 0 ? notes.join('; ').slice(0, 2000) : null,
      // The prices of the model object taken at admission: a price changed while the request ran applies from the next one.
      billedAt: a
        ? {
            prices: { ...a.model.prices },
            multiplierPpm: a.multiplierPpm,
            ...(tier ? { tier: structuredClone(tier) } : {}),
          }
        : null,
    };
  }
}

const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * What stands in the ledger for a request whose row was refused: who asked and how, that the
 * answer was withheld, and that nothing was charged. Every text field is checked again, since the
 * refused row's own may be what was wrong.
 */
function refusedRow(row: RequestRow, failure: LedgerWriteError): RequestRow {
  return {
    requestId: row.requestId,
    ts: Number.isSafeInteger(row.ts) && row.ts >= 0 ? row.ts : Date.now(),
    keyId: text(row.keyId),
    keyName: text(row.keyName),
    model: text(row.model),
    servedModel: text(row.servedModel),
    upstreamModel: text(row.upstreamModel),
    line: text(row.line),
    attempts: Number.isSafeInteger(row.attempts) && row.attempts >= 0 ? row.attempts : 0,
    inboundProtocol: text(row.inboundProtocol) ?? 'unknown',
    upstreamProtocol: text(row.upstreamProtocol),
    stream: row.stream === true,
    status: 500,
    errorCode: 'ledger_write_failed',
    errorMessage: `The ledger refused this request's row (${failure.reason}); the answer was withheld.`.slice(0, 1000),
    usage: emptyUsage(),
    usageEstimated: false,
    costMicro: 0,
    unchargedMicro: 0,
    latencyMs: Number.isSafeInteger(row.latencyMs) && row.latencyMs >= 0 ? row.latencyMs : 0,
    ttfbMs: null,
    notes: 'row refused by the ledger: charged nothing',
    billedAt: null,
    session: text(row.session),
    agent: text(row.agent),
    tool: text(row.tool),
    project: text(row.project),
    savedMicro: 0,
  };
}
