import { GatewayError, upstreamMalformed } from '../core/errors.js';
import type { UpstreamSide } from '../core/format.js';
import { setModel, withModel, type Passthrough } from '../core/passthrough.js';
import { formatSse, SseReader, type SseEvent } from '../core/sse.js';
import type { CallSignal } from '../upstream/client.js';
import { ClientClosedError, maskDecoded, maskError, upstreamFailure } from '../upstream/errors.js';
import { markFirstByte, settleBeforeEnd, type Exchange, type Outcome } from './exchange.js';
import { answerHeaders, sendJson, startSse, write, type ClientResponse } from './respond.js';
import { callUpstream, type UpstreamAnswer, type UpstreamCallDeps } from './upstream-call.js';
import { withQuirkRetry } from './quirk-retry.js';
import { acceptedUsage, billableUsage, type UsageCounter } from './usage.js';

export interface PassthroughSpec {
  exchange: Exchange;
  res: ClientResponse;
  signal: CallSignal;
  stream: boolean;
  /** The client's request as its format passes it on. */
  passthrough: Passthrough;
  /** The upstream side of the same format: credential style and error reading. */
  side: UpstreamSide;
  /** Tollgate's own counts, when the upstream's usage is missing or unusable. */
  counter: UsageCounter;
  /** An in-band error event in the client's format, for a stream that already started. */
  encodeStreamError(err: GatewayError): string;
  /**
   * The client's body as received, text and bytes: when the format sends it up unchanged (the
   * usual case), its bytes go as they came instead of the text encoded to UTF-8 again.
   */
  raw?: { text: string; bytes: Uint8Array } | undefined;
}

/**
 * Same format on both sides: the body goes up as the format rewrote it (usually only `model`),
 * and the answer comes back byte for byte while the tap reads usage on the way, except for the
 * model it names: the one the client asked for, as on every path (docs/protocols.md §6.20). Throws a
 * GatewayError if nothing has been written to the client yet; once a stream has started,
 * failures end it with an in-band error event instead.
 */
export async function passthrough(deps: UpstreamCallDeps, spec: PassthroughSpec): Promise<Outcome> {
  const admission = spec.exchange.admission!;
  // Not an async callback: it returns the call's own promise, where an async function returning a
  // promise costs two more microtask turns before its caller resumes; a throw is caught the same way.
  const upstream = await withQuirkRetry(deps.lines, admission, spec.exchange.notes, (quirks) => {
    const request = spec.passthrough.request(admission.upstreamModel, quirks, admission.outputLimit, admission.line);
    if (request.notes) spec.exchange.notes.push(...request.notes);
    const raw = spec.raw;
    const sent =
      raw !== undefined && request.body === raw.text
        ? { path: request.path, headers: request.headers, body: raw.bytes }
        : request;
    return callUpstream(deps, admission.line, spec.side, sent, spec.stream, spec.signal);
  });
  // Awaited, not returned: an async function that returns a promise costs one microtask turn more
  // than one that awaits it (the promise is adopted as a thenable), on every request.
  return await (spec.stream ? relayStream(spec, upstream) : relayJson(spec, upstream));
}

/** The model id the client asked for (before any alias or line mapping). */
function requestedModel(spec: PassthroughSpec): string {
  return spec.exchange.model ?? spec.exchange.admission!.model.id;
}

async function relayJson(spec: PassthroughSpec, upstream: UpstreamAnswer): Promise<Outcome> {
  let bytes: Buffer;
  try {
    bytes = await upstream.body.bytes();
  } catch (err) {
    throw upstreamFailure(err, spec.signal);
  }
  const text = bytes.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw upstreamMalformed('the upstream sent a response that is not valid JSON.');
  }
  const found = spec.passthrough.readAnswer(parsed);
  // Signatures go to the client bound to the line that made them (core/signatures.ts), and the
  // answer names the model the client asked for; the answer is serialised again only if either changed.
  // Unchanged, it goes out as the bytes that came (no second UTF-8 pass to measure and encode it),
  // unless decoding replaced a byte that was not UTF-8: then the text, as before (U+FFFD in the
  // text is the only sign of that; a one-byte string cannot hold it, so most answers are not scanned).
  const bound = spec.passthrough.signatures?.answer(parsed, spec.exchange.admission!.line.id) === true;
  let out: string | Buffer = text.includes('\uFFFD') ? text : bytes;
  if (setModel(parsed, spec.passthrough.modelField.answer, requestedModel(spec)) || bound) out = JSON.stringify(parsed);
  // The upstream's own figures, when usable, without a promise's turn; else judged and counted.
  const billed =
    acceptedUsage(spec.exchange, found.usage) ??
    (await billableUsage(spec.exchange, { final: found.usage, produced: () => found.produced }, spec.counter));
  markFirstByte(spec.exchange);
  const outcome = await settleBeforeEnd(spec.exchange, {
    status: upstream.status,
    usage: billed.usage,
    usageEstimated: billed.usageEstimated,
    error: null,
  });
  sendJson(spec.res, upstream.status, out, answerHeaders(upstream.rateLimits, spec.exchange.requestId));
  return outcome;
}

async function relayStream(spec: PassthroughSpec, upstream: UpstreamAnswer): Promise<Outcome> {
  const { res, exchange } = spec;
  const tap = spec.passthrough.tap();
  // An in-band error may echo the request, credential included: masked for the client and the row.
  const tapError = (): GatewayError | null => {
    const e = tap.error();
    return e && maskError(e, upstream.secrets);
  };
  const lineId = exchange.admission!.line.id;
  // The upstream's rate-limit and plan-window headers reach the client as they came.
  const limits = upstream.rateLimits;
  const bind = spec.passthrough.signatures?.event ?? ((data: string): string => data);
  let failure: GatewayError | null = null;
  let settled: Outcome | undefined;
  const outcomeOf = async (status: number, error: GatewayError | null): Promise<Outcome> => {
    const report = { final: tap.usage(), prompt: tap.promptUsage(), produced: () => tap.produced() };
    const billed = await billableUsage(exchange, report, spec.counter);
    return { status, usage: billed.usage, usageEstimated: billed.usageEstimated, error };
  };
  const model = requestedModel(spec);
  const modelField = spec.passthrough.modelField.event;
  const sendEvent = (ev: SseEvent): Promise<void> | undefined => {
    // Headers go out with the first event, so a line that fails before it can be swapped.
    if (!res.headersSent) startSse(res, answerHeaders(limits, exchange.requestId));
    markFirstByte(exchange);
    // formatSse reads the event's name and data only; written out, as a spread followed by a
    // property is V8's slow path (respond.ts answerHeaders), here once per event.
    return write(res, formatSse({ event: ev.event, data: withModel(bind(ev.data, lineId), modelField, model) }));
  };
  // The terminator is about to go out: the ledger row first.
  const settleThenSend = async (ev: SseEvent): Promise<void> => {
    settled = await settleBeforeEnd(exchange, await outcomeOf(tapError()?.status ?? 200, tapError()));
    await sendEvent(ev);
  };
  /** One upstream event to the client; a promise only when it has to wait (the ledger row, a full socket). */
  const relayEvent = (ev: SseEvent): Promise<void> | undefined => {
    const failedBefore = tap.error();
    if (!tap.onEvent(ev)) return undefined;
    if (tap.error() !== failedBefore || mayCarryError(ev)) ev.data = maskDecoded(ev.data, upstream.secrets);
    return tap.complete() && !settled ? settleThenSend(ev) : sendEvent(ev);
  };
  // The upstream's chunks are read here and each chunk's events relayed in a plain loop: no async
  // generator between the socket and the client, whose turn per event every stream paid for each
  // of its events (docs/performance.md, "A stream's first byte under load").
  const reader = new SseReader();
  try {
    for await (const chunk of upstream.body as AsyncIterable<Uint8Array>) {
      for (const ev of reader.feed(chunk)) {
        const pending = relayEvent(ev);
        if (pending) await pending;
        if (res.destroyed) throw new ClientClosedError();
      }
    }
    for (const ev of reader.end()) {
      const pending = relayEvent(ev);
      if (pending) await pending;
      if (res.destroyed) throw new ClientClosedError();
    }
    if (!tap.complete() && !tapError()) {
      const tail = tap.repairTail();
      if (tail === undefined) {
        throw new GatewayError(
          'upstream_error',
          'Upstream error: the upstream closed the stream before it was complete.',
          { code: 'upstream_stream_incomplete' },
        );
      }
      // The stream is whole but for its terminator: the ledger row first, as for a terminator sent.
      settled = await settleBeforeEnd(exchange, await outcomeOf(200, null));
      if (!res.headersSent) startSse(res, answerHeaders(limits, exchange.requestId));
      await write(res, tail);
    }
  } catch (err) {
    failure =
      err instanceof SyntaxError
        ? upstreamMalformed('the upstream sent a stream event that is not valid JSON.')
        : upstreamFailure(err, spec.signal);
    upstream.body.destroy();
  }
  const clientGone = failure?.code === 'client_closed' || res.destroyed;
  if (settled) {
    if (!clientGone) res.end();
    return settled;
  }
  // Nothing reached the client yet: the caller may try another line, or answer with a status.
  if (failure && !clientGone && !res.headersSent) throw failure;
  if (!res.headersSent) startSse(res, answerHeaders(limits, exchange.requestId));
  const error = failure ?? tapError();
  // The in-band error ends the client's stream: the ledger row first, as for a terminator.
  const outcome = await settleBeforeEnd(exchange, await outcomeOf(clientGone ? 499 : (error?.status ?? 200), error));
  if (failure && !clientGone) await write(res, spec.encodeStreamError(failure));
  if (!clientGone) res.end();
  return outcome;
}

/**
 * An event that may be an error in any of the four formats: the tap's own verdict comes first, and
 * this catches what a format's tap does not name (an `error` event, or an `"error"` member in the
 * data). Masking such an event changes only credential-shaped text.
 */
function mayCarryError(ev: { event?: string | undefined; data: string }): boolean {
  return ev.event === 'error' || ev.data.includes('"error"');
}
