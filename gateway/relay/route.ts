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
  if ('local' in route) return answer(res, await route.local(req, localContext(services, key)));
  // Before the body is parsed, so a request refused as malformed keeps its body too.
  services.bodies.record(r.exchange.requestId, req.rawBody);
  const call = route.model(req, modelEnv(services, key));
  if ('local' in call) {
    r.exchange.billable = false;
    return answer(res, await call.local(localContext(services, key)));
  }
  return runModelCall(services, { format: r.format, exchange: r.exchange, key, call, rawBody: req.rawBody, res });
}

function answer(res: ClientResponse, body: unknown): void {
  sendJson(res, 200, body);
}

function localContext(services: RelayServices, key: KeyRecord): LocalContext {
  return {
    models: () => services.models.forKey(key),
    model: (id) => services.models.resolve(id, key).model,
    countPrompt: (modelId, req) => services.calibration.countPrompt(modelId, req),
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
