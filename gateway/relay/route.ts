import { GatewayError } from '../core/errors.js';
import type { ClientRequest, FormatRoute, LocalContext, ModelEnv, WireFormat } from '../core/format.js';
import type { KeyRecord } from '../store/types.js';
import type { Exchange } from './exchange.js';
import { runModelCall } from './model-route.js';
import type { RelayServices } from './ports.js';
import { sendJson, type ClientResponse } from './respond.js';

/** One authenticated request on one of a format's routes. */
export interface RouteRequest {
  format: WireFormat;
  route: FormatRoute;
  exchange: Exchange;
  key: KeyRecord;
  req: ClientRequest;
  res: ClientResponse;
}

/**
 * Answers one authenticated request on a format's route: a local answer (model list, token
 * count) is written here; a model call goes to the model route. Writes the whole response, or
 * throws a GatewayError before writing anything (the caller answers it in the format's shape).
 */
export async function handleRoute(services: RelayServices, r: RouteRequest): Promise<void> {
  const { route, key, req, res } = r;
  if ('local' in route) return answerLocal(res, (signal) => route.local(req, localContext(services, key, signal)));
  // Before the body is parsed, so a request refused as malformed keeps its body too.
  services.bodies.record(r.exchange.requestId, req.rawBody);
  const call = route.model(req, modelEnv(services, key));
  if ('local' in call) {
    r.exchange.billable = false;
    return answerLocal(res, (signal) => call.local(localContext(services, key, signal)));
  }
  // Awaited rather than returned: one microtask turn fewer a request (relay/passthrough.ts says why).
  await runModelCall(services, {
    format: r.format,
    exchange: r.exchange,
    key,
    call,
    body: req.body,
    rawBody: req.rawBody,
    rawBytes: req.rawBytes,
    res,
  });
}

function answer(res: ClientResponse, body: unknown): void {
  sendJson(res, 200, body);
}

/**
 * Answers a local request (a model list, a token count). A client that hangs up before the answer
 * aborts `signal`, so a long token count stops instead of working for nobody.
 */
async function answerLocal(res: ClientResponse, work: (signal: AbortSignal) => Promise<unknown>): Promise<void> {
  const gone = new AbortController();
  const onClose = (): void => {
    if (!res.writableFinished)
      gone.abort(
        new GatewayError('invalid_request', 'The client closed the connection before the answer.', {
          status: 499,
          code: 'client_closed',
        }),
      );
  };
  res.on('close', onClose);
  try {
    answer(res, await work(gone.signal));
  } finally {
    res.off('close', onClose);
  }
}

function localContext(services: RelayServices, key: KeyRecord, signal: AbortSignal): LocalContext {
  return {
    models: () => services.models.forKey(key),
    model: (id) => services.models.resolve(id, key).model,
    // A client's count: through the key's limits, in the clients' tokenizer thread (token-counts.ts).
    countPrompt: (modelId, req) =>
      services.tokenCounts.run(key, (count) => services.calibration.countPrompt(modelId, req, signal, count)),
  };
}

function modelEnv(services: RelayServices, key: KeyRecord): ModelEnv {
  return {
    conversations: {
      get: (id) => services.conversations.get(id, key.id),
      put: (id, items) => services.conversations.put(id, key.id, items),
    },
  };
}
