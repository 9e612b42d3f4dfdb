import type { AdmitInput } from '../billing/billing.js';
import type { CanonicalRequest } from '../core/canonical.js';
import { estimateBody } from '../core/estimate.js';
import { countTokens } from '../core/tokenizer.js';
import { GatewayError } from '../core/errors.js';
import type { ModelCall, WireFormat } from '../core/format.js';
import { echo } from '../core/input.js';
import { emptyUsage, type Usage } from '../core/usage.js';
import type { KeyRecord, LineRecord } from '../store/types.js';
import { wireFormat } from '../wire/index.js';
import type { Exchange } from './exchange.js';
import { forward } from './forward.js';
import { passthrough } from './passthrough.js';
import type { RelayServices } from './ports.js';
import type { ClientResponse } from './respond.js';
import { translate } from './translate.js';

/** One model request, as the route hands it over. */
export interface ModelRequest {
  /** The client's format. */
  format: WireFormat;
  exchange: Exchange;
  key: KeyRecord;
  /** The request as the format read it. */
  call: ModelCall;
  /** The body as parsed, for the loop guard (sessions/tool-turn.ts). */
  body?: unknown;
  /** The body as received, for the prompt estimate unless the call names another text. */
  rawBody: string;
  /** The same body as the bytes received, when kept: a pass-through that changes nothing sends them as they are. */
  rawBytes?: Uint8Array | null | undefined;
  res: ClientResponse;
}

/** Longer than any model id in any catalogue. */
const MAX_MODEL_ID = 256;

/**
 * The lines of the client's own format, for a request only that format has; a 400 naming the
 * endpoint when the model has none (nothing was sent, so the ledger row costs nothing).
 */
function sameFormatLines(lines: LineRecord[], format: WireFormat, call: ModelCall, model: string): LineRecord[] {
  const same = lines.filter((l) => l.protocol === format.id);
  if (same.length > 0) return same;
  const spoken = [...new Set(lines.map((l) => l.protocol))].join(', ');
  throw new GatewayError(
    'invalid_request',
    `${call.passthroughOnly!.endpoint} needs a line that speaks ${format.id}, and the lines serving "${model}" speak ${spoken}. Use a model served by a ${format.id} line.`,
    { code: 'unsupported_endpoint', param: 'model' },
  );
}

/**
 * The one model route, for every wire format: the format has read the request into a ModelCall;
 * here it is admitted (model, lines, key limits, money), forwarded line after line, passed
 * through when the line speaks the client's format or translated through the canonical model
 * when it does not, settled, and learnt from for the token calibration. A refusal before the
 * upstream leg (admission) is thrown, for the HTTP layer to answer and settle (gateway/http/).
 */
export async function runModelCall(services: RelayServices, r: ModelRequest): Promise<void> {
  const { format, exchange, key, call, res } = r;
  // A model id is short; a huge one is not stored or repeated whole (it cannot exist anyway).
  exchange.model = call.model.length > MAX_MODEL_ID ? echo(call.model) : call.model;
  exchange.stream = call.stream;
  let decoded: CanonicalRequest | undefined;
  const decode = (): CanonicalRequest => (decoded ??= call.decode());
  if (call.decodeFirst) decode();
  const who = exchange.attribution;
  const guards = who ? services.sessions : undefined;
  // Paused sessions and loops are refused before anything is held or sent.
  if (who && guards) guards.check(who, key, format.id, r.body, r.rawBody);
  // Both estimates from one look at the body: the text estimate is read only if its bound passes the context check.
  const estimate =
    call.estimateFrom === undefined ? estimateBody(r.rawBody, r.rawBytes?.byteLength) : estimateBody(call.estimateFrom);
  const ask: AdmitInput = {
    maxOutputTokens: call.maxOutputTokens,
    estimatedInputTokens: estimate.promptTokens,
    trace: {
      requestId: exchange.requestId,
      ts: exchange.ts,
      inboundProtocol: exchange.format,
      stream: call.stream,
      model: call.model,
    },
    text: { atMost: estimate.textTokensAtMost, tokens: estimate.textTokens },
  };
  // Set, not spread in: a spread in an object literal is V8's slow path in Node 20.
  if (who && guards) ask.limit = guards.limit(who, key);
  const admission = services.billing.admit(key, call.model, ask);
  exchange.admission = admission;
  if (who && guards) guards.hold(who, key, exchange.requestId, admission.reservation.amountMicro);
  const model = admission.model.id;
  if (call.passthroughOnly) admission.candidates = sameFormatLines(admission.candidates, format, call, model);
  const countPrompt = async (): Promise<Usage> => {
    const usage = emptyUsage();
    usage.inputTokens = await services.calibration.countPrompt(model, decode());
    return usage;
  };
  const output = (text: string): Promise<number> => countTokens(text);
  const outcome = await forward(
    services,
    exchange,
    res,
    (signal) => {
      const line = admission.line;
      const side = wireFormat(line.protocol)?.upstream;
      if (!side)
        throw new GatewayError(
          'upstream_unavailable',
          `The line "${line.name}" speaks "${line.protocol}", which this build has no wire format for.`,
          { code: 'unsupported_protocol' },
        );
      if (call.passthrough && line.protocol === format.id) {
        const counter = { prompt: countPrompt, output };
        return passthrough(services, {
          exchange,
          res,
          signal,
          stream: call.stream,
          passthrough: call.passthrough,
          side,
          counter,
          encodeStreamError: call.encodeStreamError,
          raw: r.rawBytes ? { text: r.rawBody, bytes: r.rawBytes } : undefined,
        });
      }
      const promptUsage = emptyUsage();
      promptUsage.inputTokens = services.calibration.promptFromEstimate(model, admission.estimatedInputTokens);
      const counter = { prompt: () => Promise.resolve(promptUsage), output };
      return translate(services, {
        exchange,
        res,
        signal,
        request: decode(),
        encoder: call.encoder,
        side,
        promptUsage,
        counter,
      });
    },
    countPrompt,
  );
  if (outcome.usage && !outcome.usageEstimated)
    services.calibration.learn(model, admission.estimatedInputTokens, outcome.usage, decode);
}
