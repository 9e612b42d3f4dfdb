import type { CanonicalRequest } from '../core/canonical.js';
import type { ClientEncoder } from '../core/codec.js';
import { countTokens } from '../core/estimate.js';
import { invalidRequest, upstreamMalformed, type GatewayError } from '../core/errors.js';
import type { UpstreamSide } from '../core/format.js';
import { readSse } from '../core/sse.js';
import type { Usage } from '../core/usage.js';
import { ClientClosedError, upstreamFailure } from '../upstream/errors.js';
import { CanonicalTap } from './canonical-tap.js';
import { markFirstByte, settleBeforeEnd, type Exchange, type Outcome } from './exchange.js';
import { sendJson, startSse, write, type ClientResponse } from './respond.js';
import { callUpstream, type UpstreamCallDeps } from './upstream-call.js';

export interface TranslateSpec {
  exchange: Exchange;
  res: ClientResponse;
  signal: AbortSignal;
  request: CanonicalRequest;
  /** The client's format, encoding canonical answers back. */
  encoder: ClientEncoder;
  /** The line's format. */
  side: UpstreamSide;
  /** Tollgate's count of the prompt: the `start` usage when the upstream reports usage only at the end. */
  promptUsage: Usage;
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
    throw invalidRequest(`${refused.param}: ${refused.what} cannot be produced for this model: its upstream speaks ${line.protocol}, and Tollgate cannot carry ${refused.what} back across formats. Remove ${refused.param}.`, refused.param, 'unsupported_value');
  }
  const notes: string[] = [...spec.request.notes];
  const up = provider.toRequest({ ...spec.request, model: admission.upstreamModel, notes }, line.quirks);
  exchange.notes.push(...notes, ...(up.notes ?? []));
  const upstream = await callUpstream(deps, line, spec.side, { path: up.path, headers: up.headers, body: JSON.stringify(up.body) }, spec.request.stream, spec.signal);
  const ctx = { requestedModel: exchange.model ?? spec.request.model, requestId: exchange.requestId };

  if (!spec.request.stream) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(await upstream.body.text());
    } catch (err) {
      if (err instanceof SyntaxError) throw upstreamMalformed('the upstream sent a response that is not valid JSON.');
      throw upstreamFailure(err, spec.signal);
    }
    const answer = provider.fromResponse(parsed);
    markFirstByte(exchange);
    const body = spec.encoder.encodeResponse(answer, ctx);
    let outcome: Outcome = { status: 200, usage: answer.usage, usageEstimated: false, error: null };
    if (answer.usageEstimated) {
      const produced = answer.content.map((b) => (b.type === 'text' || b.type === 'thinking' ? b.text : b.type === 'tool_call' ? b.name + JSON.stringify(b.input) : '')).join('');
      outcome = { status: 200, usage: { ...spec.promptUsage, outputTokens: await countTokens(produced) }, usageEstimated: true, error: null };
    }
    await settleBeforeEnd(exchange, outcome);
    sendJson(spec.res, 200, body, { 'x-request-id': exchange.requestId, ...up.clientHeaders });
    return outcome;
  }

  const tap = new CanonicalTap();
  const outcomeOf = async (status: number, error: GatewayError | null): Promise<Outcome> => {
    if (tap.usage && !tap.usageEstimated) return { status, usage: tap.usage, usageEstimated: false, error };
    // No usage from the upstream (or none for the output): bill the prompt as counted and what was produced.
    return { status, usage: { ...(tap.usage ?? spec.promptUsage), outputTokens: await countTokens(tap.produced) }, usageEstimated: true, error };
  };
  let settled: Outcome | undefined;
  let failed: Outcome | undefined;
  // The stop event carries the final usage and comes before the protocol's terminator: the ledger row first.
  tap.beforeStop = async () => {
    settled = await settleBeforeEnd(exchange, await outcomeOf(200, null));
  };
  // So does an error event, which ends the answer as well.
  tap.beforeFailure = async (error) => {
    failed = await settleBeforeEnd(exchange, await outcomeOf(error.status, error));
  };
  const events = tap.watch(provider.fromStream(readSse(upstream.body), spec.promptUsage), spec.signal);
  let clientGone = false;
  try {
    for await (const chunk of spec.encoder.encodeStream(events, ctx)) {
      // Headers go out with the first event, so a line that fails before it can be swapped.
      if (!spec.res.headersSent) startStream(spec, exchange.requestId, up.clientHeaders);
      markFirstByte(exchange);
      const pending = write(spec.res, chunk);
      if (pending) await pending;
      if (spec.res.destroyed) throw new ClientClosedError();
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
  if (!clientGone && !spec.res.headersSent) startStream(spec, exchange.requestId, up.clientHeaders);
  const done = tap.failure ? failed : settled;
  if (done) {
    if (!clientGone) spec.res.end();
    return done;
  }
  const error = clientGone ? upstreamFailure(new ClientClosedError()) : tap.failure;
  const outcome = await settleBeforeEnd(exchange, await outcomeOf(clientGone ? 499 : (error?.status ?? 200), error));
  if (!clientGone) spec.res.end();
  return outcome;
}

function startStream(spec: TranslateSpec, requestId: string, clientHeaders: Record<string, string> | undefined): void {
  const type = spec.encoder.streamContentType;
  startSse(spec.res, { 'x-request-id': requestId, ...clientHeaders, ...(type ? { 'content-type': type } : {}) });
}
