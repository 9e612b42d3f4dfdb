import { GatewayError } from './core/errors.js';
import type { InboundProtocol } from './core/inbound.js';
import { INBOUND } from './wire/clients.js';

/**
 * A 404 for a path Tollgate does not serve, with the fix when the path is a known one under the
 * wrong base URL: `/chat/completions` (the base URL lacks /v1) or `/v1/v1/…` (it has /v1 twice).
 */
export function notFoundHint(method: string, url: string, host: string): { protocol: InboundProtocol; error: GatewayError } {
  const path = url.split('?')[0]!.replace(/\/+$/, '') || '/';
  const origin = `http://${host}`;
  for (const protocol of INBOUND) {
    for (const route of protocol.routes) {
      const known = route.url.replace(/:[^/]+/g, '[^/]+');
      const tail = known.replace(/^\/v1/, '');
      const base = origin + protocol.basePath;
      const hint = (what: string): { protocol: InboundProtocol; error: GatewayError } => ({
        protocol,
        error: new GatewayError('not_found', `${what} Set the base URL to ${base}; requests then go to ${route.url.replace(/:[^/]+/, '{id}')}.`, {
          code: 'wrong_base_url',
        }),
      });
      if (new RegExp(`^(/v1)+/v1${tail}$`).test(path)) return hint(`Not found: ${method} ${path}. The base URL has /v1 twice.`);
      if (route.url.startsWith('/v1/') && new RegExp(`^${tail}$`).test(path)) {
        return hint(`Not found: ${method} ${path}. The ${protocol.basePath ? 'base URL' : 'path'} is missing /v1.`);
      }
    }
  }
  return {
    protocol: INBOUND[0]!,
    error: new GatewayError('not_found', `Not found: ${method} ${path}. OpenAI-compatible clients use the base URL ${origin}/v1.`, { code: 'unknown_path' }),
  };
}
