import type { CanonicalRequest } from '../core/canonical.js';
import type { ClientEncoder } from '../core/codec.js';
import { invalidRequest, upstreamMalformed, type GatewayError } from '../core/errors.js';
import type { UpstreamSide } from '../core/format.js';
import { uncarriedStateNotes } from '../core/shaping.js';
import { bindResponse, bindStream, messagesForLine } from '../core/signatures.js';
import { readSse } from '../core/sse.js';
import { readDecoded } from '../core/stream-decoder.js';
import type { Usage } from '../core/usage.js';
import type { CallSignal } from '../upstream/client.js';
import { ClientClosedError, upstreamFailure } from '../upstream/errors.js';
import { CanonicalTap } from './canonical-tap.js';
import { markFirstByte, settleBeforeEnd, type Exchange, type Outcome } from './exchange.js';
import { answerHeaders, sendJson, startSse, write, type ClientResponse } from './respond.js';
import { withQuirkRetry } from './quirk-retry.js';
import { callUpstream, type UpstreamCallDeps } from './upstream-call.js';
import { acceptedUsage, billableUsage, type UsageCounter } from './usage.js';

export interface TranslateSpec {
  exchange: Exchange;
  res: ClientResponse;
  signal: CallSignal;
  request: CanonicalRequest;
  /** The client's format, encoding canonical answers back. */
  encoder: ClientEncoder;
  /** The line's format. */
  side: UpstreamSide;
  /** Tollgate's count of the prompt: the `start` usage when the upstream reports usage only at the end. */
  promptUsage: Usage;
  /** Tollgate's own counts, when the upstream's usage is missing or unusable. */
  counter: UsageCounter;
}

/**
 * Different formats on the two sides: client wire → canonical (already done by the caller) →
 * upstream wire, and back, event by event when streaming. Throws a GatewayError if nothing has
 * been written to the client yet; once a stream has started, the client's encoder ends it with
 * its format's in-band error.
 */
export async function translate(deps: UpstreamCallDeps, spec: TranslateSpec): Promise<Outcome> {
  const { exchange } = spec;
  const provider = spec.side.codec;
  const admission = exchange.admission!;
  const line = admission.line;
  // Output the client asked for and the canonical model cannot bring back: a 400 rather than a 200 without it.
  const refused = spec.request.uncarriedOutputs?.[0];
  if (refused) {
    throw invalidRequest(
      `${refused.param}: ${refused.what} cannot be produced for this model: its upstream speaks ${line.protocol}, and Tollgate cannot carry ${refused.what} back across formats. Remove ${refused.param}.`,
      refused.param,
      'unsupported_value',
    );
  }
  const notes: string[] = [...spec.request.notes, ...uncarriedStateNotes(spec.request, provider.family, line.protocol)];
  // Signatures go back only to the line that made them (core/signatures.ts).
  const messages = messagesForLine(spec.request.messages, line.id, provider.family, line.protocol, notes);
  // Each try has its own notes (an upstream side adds to them): only the one that went through is logged.
  // Only what is read after the answer is kept of a try: not the request in the line's format, which would
  // otherwise be held for as long as the upstream takes to answer.
  let sent: { notes: string[]; up: Pick<ReturnType<typeof provider.toRequest>, 'notes' | 'clientHeaders'> } | undefined;
  const retryNotes: string[] = [];
  const upstream = await withQuirkRetry(deps.lines, admission, retryNotes, (quirks) => {
    const tried = [...notes];
    // A copy, then the changes set on it: a spread followed by properties is V8's slow path (respond.ts answerHeaders).
    const request = { ...spec.request };
    // An output limit Tollgate sets for a client that set none (billing/billing.ts) goes upstream like the client's own.
    if (admission.outputLimit !== undefined) request.maxOutputTokens = admission.outputLimit;
    request.messages = messages;
    request.model = admission.upstreamModel;
    request.notes = tried;
    const up = provider.toRequest(request, quirks, line);
    sent = { notes: tried, up: { notes: up.notes, clientHeaders: up.clientHeaders } };
    return callUpstream(
      deps,
      line,
      spec.side,
      { path: up.path, headers: up.headers, body: JSON.stringify(up.body) },
      spec.request.stream,
      spec.signal,
    );
  });
  const up = sent!.up;
  exchange.notes.push(...sent!.notes, ...retryNotes, ...(up.notes ?? []));
  const ctx = { requestedModel: exchange.model ?? spec.request.model, requestId: exchange.requestId };

  if (!spec.request.stream) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(await upstream.body.text());
    } catch (err) {
      if (err instanceof SyntaxError) throw upstreamMalformed('the upstream sent a response that is not valid JSON.');
      throw upstreamFailure(err, spec.signal);
    }
    const answer = bindResponse(provider.fromResponse(parsed), line.id);
    markFirstByte(exchange);
    const body = spec.encoder.encodeResponse(answer, ctx);
    const produced = (): string =>
      answer.content
        .map((b) =>
          b.type === 'text' || b.type === 'thinking'
            ? b.text
            : b.type === 'tool_call'
              ? b.name + JSON.stringify(b.input)
              : '',
        )
        .join('');
    const final = answer.usageEstimated ? undefined : answer.usage;
    // Figures that pass the usage check are billed as they are, without billableUsage's promise and its turn.
    const billed = acceptedUsage(exchange, final) ?? (await billableUsage(exchange, { final, produced }, spec.counter));
    const outcome: Outcome = { status: 200, usage: billed.usage, usageEstimated: billed.usageEstimated, error: null };
    await settleBeforeEnd(exchange, outcome);
    sendJson(spec.res, 200, body, answerHeaders(upstream.rateLimits, exchange.requestId, up.clientHeaders));
    return outcome;
  }

  const tap = new CanonicalTap(upstream.secrets);
  const outcomeOf = async (status: number, error: GatewayError | null): Promise<Outcome> => {
    // No final usage from the upstream (none reported, or the stream was cut short): the prompt as
    // the stream announced it, and what was produced, counted.
    const final = tap.usageEstimated ? undefined : tap.usage;
    const report = { final, prompt: tap.usage ?? tap.startUsage, produced: () => tap.produced };
    const billed = acceptedUsage(exchange, final) ?? (await billableUsage(exchange, report, spec.counter));
    return { status, usage: billed.usage, usageEstimated: billed.usageEstimated, error };
  };
  // The stop event carries the final usage and comes before the protocol's terminator, and an
  // in-band error ends the client's stream as well: the ledger row first, once.
  let settled: Promise<Outcome> | undefined;
  const settleOnce = (status: number, error: GatewayError | null): Promise<Outcome> =>
    (settled ??= outcomeOf(status, error).then((o) => settleBeforeEnd(exchange, o)));
  tap.beforeStop = async () => {
    await settleOnce(200, null);
  };
  tap.beforeFailure = async (error) => {
    await settleOnce(error.status, error);
  };
  // A line format with a decoder that can be pushed to is read in one loop with the SSE parsing and the binding.
  const decoder = provider.streamDecoder?.(spec.promptUsage);
  const decoded = decoder
    ? readDecoded(upstream.body, decoder, line.id)
    : bindStream(provider.fromStream(readSse(upstream.body), spec.promptUsage), line.id);
  const events = tap.watch(decoded, spec.signal);
  let clientGone = false;
  const stillOpen = (): void => {
    if (spec.res.destroyed) throw new ClientClosedError();
  };
  /** Writes one chunk; a promise only when the socket is full (the caller waits for it to drain). */
  const send = (chunk: string): Promise<void> | undefined => {
    // Headers go out with the first event, so a line that fails before it can be swapped.
    if (!spec.res.headersSent)
      startStream(spec, answerHeaders(upstream.rateLimits, exchange.requestId, up.clientHeaders));
    markFirstByte(exchange);
    const pending = write(spec.res, chunk);
    if (pending) return pending.then(stillOpen);
    stillOpen();
    return undefined;
  };
  // The client's encoder is fed here, one event at a time, with no async generator between the events and the
  // socket: the same chunks as its encodeStream (core/codec.ts writtenStream).
  const writer = spec.encoder.streamWriter(ctx);
  try {
    for await (const ev of events) {
      const chunk = writer.push(ev);
      if (chunk !== undefined) {
        const pending = send(chunk);
        if (pending) await pending;
      }
      if (writer.done) break;
    }
    const last = writer.done ? undefined : writer.end();
    if (last !== undefined) {
      const pending = send(last);
      if (pending) await pending;
    }
  } catch (err) {
    if (!(err instanceof ClientClosedError)) {
      upstream.body.destroy();
      throw err;
    }
    clientGone = true;
  }
  clientGone ||= spec.res.destroyed;
  upstream.body.destroy();
  if (!clientGone && !spec.res.headersSent)
    startStream(spec, answerHeaders(upstream.rateLimits, exchange.requestId, up.clientHeaders));
  const error = clientGone ? upstreamFailure(new ClientClosedError()) : tap.failure;
  const outcome = await settleOnce(clientGone ? 499 : (error?.status ?? 200), error);
  if (!clientGone) spec.res.end();
  return outcome;
}

/** Starts the client's stream with `headers` (answerHeaders), in the encoder's content type when it names one. */
function startStream(spec: TranslateSpec, headers: Record<string, string>): void {
  const type = spec.encoder.streamContentType;
  if (type) headers['content-type'] = type;
  startSse(spec.res, headers);
}
