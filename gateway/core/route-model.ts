import type { CanonicalRequest } from './canonical.js';
import type { InboundCodec } from './codec.js';
import { GatewayError } from './errors.js';
import type { Outcome } from './exchange.js';
import type { RouteContext } from './inbound.js';
import type { FormatId } from './formats.js';
import { translate } from './translate.js';
import { emptyUsage } from './usage.js';
import { PROVIDERS } from '../wire/upstreams.js';

/**
 * After admission: the same protocol upstream takes the pass-through path; any other goes through
 * the canonical model. `passthroughFor` is the inbound protocol's own pass-through, keyed by the
 * upstream protocol it speaks natively.
 */
export function runModelRequest(
  ctx: RouteContext,
  signal: AbortSignal,
  /** The upstream protocol that takes the pass-through path ('none' forces translation). */
  native: FormatId | 'none',
  passthrough: () => Promise<Outcome>,
  inbound: InboundCodec,
  decoded: () => CanonicalRequest,
): Promise<Outcome> {
  const admission = ctx.exchange.admission!;
  const upstreamProtocol = admission.line.protocol;
  if (upstreamProtocol === native) return passthrough();
  const provider = PROVIDERS[upstreamProtocol];
  if (!provider) throw new GatewayError('upstream_unavailable', `The upstream protocol "${upstreamProtocol}" has no adapter in this build.`, { code: 'unsupported_protocol' });
  const request = decoded();
  const promptUsage = { ...emptyUsage(), inputTokens: ctx.gateway.promptCalibration.apply(admission.model.id, admission.estimatedInputTokens) };
  return translate({
    gateway: ctx.gateway,
    exchange: ctx.exchange,
    res: ctx.res,
    signal,
    request,
    inbound,
    provider: provider.codec,
    authHeaders: provider.authHeaders,
    promptUsage,
  });
}
