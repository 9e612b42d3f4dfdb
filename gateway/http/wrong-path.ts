import { GatewayError } from '../core/errors.js';
import { echo } from '../core/input.js';
import type { WireFormat } from '../core/format.js';
import { FORMAT_LIST } from '../wire/index.js';

/**
 * A 404 for a path Tollgate does not serve, with the fix when the path is a known one under the
 * wrong base URL: `/chat/completions` (the base URL lacks /v1) or `/v1/v1/…` (it has /v1 twice).
 */
export function notFoundHint(method: string, url: string, host: string): { format: WireFormat; error: GatewayError } {
  const path = url.split('?')[0]!.replace(/\/+$/, '') || '/';
  const shown = echo(path);
  const origin = `http://${echo(host)}`;
  for (const format of FORMAT_LIST) {
    for (const route of format.routes) {
      const known = route.url.replace(/:[^/]+/g, '[^/]+');
      const tail = known.replace(/^\/v1/, '');
      const base = origin + format.basePath;
      const hint = (what: string): { format: WireFormat; error: GatewayError } => ({
        format,
        error: new GatewayError(
          'not_found',
          `${what} Set the base URL to ${base}; requests then go to ${route.url.replace(/:[^/]+/, '{id}')}.`,
          {
            code: 'wrong_base_url',
          },
        ),
      });
      if (new RegExp(`^(/v1)+/v1${tail}$`).test(path))
        return hint(`Not found: ${method} ${shown}. The base URL has /v1 twice.`);
      if (route.url.startsWith('/v1/') && new RegExp(`^${tail}$`).test(path)) {
        return hint(`Not found: ${method} ${shown}. The ${format.basePath ? 'base URL' : 'path'} is missing /v1.`);
      }
    }
  }
  return {
    format: FORMAT_LIST[0]!,
    error: new GatewayError(
      'not_found',
      `Not found: ${method} ${shown}. OpenAI-compatible clients use the base URL ${origin}/v1.`,
      { code: 'unknown_path' },
    ),
  };
}
