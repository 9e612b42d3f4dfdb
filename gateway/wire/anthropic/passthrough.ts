import type { Outcome } from '../../core/exchange.js';
import { assertJsonObjectShape } from '../../core/json.js';
import { BaseStreamTap, baseHeaders, passthrough, upstreamBody, upstreamStreamError, type PassthroughInput } from '../../core/passthrough.js';
import type { SseEvent } from '../../core/sse.js';
import { emptyUsage, type Usage } from '../../core/usage.js';
import { ANTHROPIC_VERSION } from './to-request.js';
import { mergeAnthropicUsage } from './usage.js';

export interface MessagesPassthroughInput extends PassthroughInput {
  body: Record<string, unknown> & { stream?: unknown };
  /** The client's anthropic-version and anthropic-beta headers, passed on as they came. */
  clientHeaders: Record<string, string | string[] | undefined>;
}

/**
 * Reads a Messages stream as it passes. Only message_start and message_delta (usage; the
 * latter's figures are cumulative, so each replaces the last) and error events are parsed;
 * content deltas are kept raw for counting in case no usage arrives.
 */
export class MessagesStreamTap extends BaseStreamTap {
  private readonly deltas: string[] = [];

  onEvent(ev: SseEvent): boolean {
    const data = ev.data;
    assertJsonObjectShape(data);
    switch (ev.event) {
      case 'message_start':
        this.found = mergeAnthropicUsage(emptyUsage(), (JSON.parse(data) as { message?: { usage?: unknown } }).message?.usage);
        break;
      case 'message_delta':
        this.found = mergeAnthropicUsage(this.found ?? emptyUsage(), (JSON.parse(data) as { usage?: unknown }).usage);
        break;
      case 'content_block_delta':
        this.deltas.push(data);
        break;
      case 'message_stop':
        this.done = true;
        break;
      case 'error': {
        const e = (JSON.parse(data) as { error?: { type?: string; message?: string } }).error;
        this.failure = upstreamStreamError(e?.message, e?.type === 'overloaded_error');
        break;
      }
      default:
        break;
    }
    return true;
  }

  override usage(): Usage | undefined {
    // message_start alone (output 1 or so) is not the final figure; without message_delta, count.
    return this.done || this.found?.outputTokens ? this.found : undefined;
  }
  produced(): string {
    let out = '';
    for (const data of this.deltas) {
      try {
        const d = (JSON.parse(data) as { delta?: { text?: string; partial_json?: string; thinking?: string } }).delta;
        out += d?.text ?? d?.partial_json ?? d?.thinking ?? '';
      } catch {
        // A malformed fragment produced nothing countable.
      }
    }
    return out;
  }
}

/** Headers of the client that an Anthropic upstream should see too. */
function forwardedHeaders(h: MessagesPassthroughInput['clientHeaders']): Record<string, string> {
  const version = h['anthropic-version'];
  const out: Record<string, string> = { 'anthropic-version': (Array.isArray(version) ? version[0] : version) ?? ANTHROPIC_VERSION };
  const beta = h['anthropic-beta'];
  if (beta) out['anthropic-beta'] = Array.isArray(beta) ? beta.join(',') : beta;
  return out;
}

/** Messages in, `anthropic` upstream out: only `model` is rewritten. */
export async function passthroughMessages(input: MessagesPassthroughInput): Promise<Outcome> {
  const { gateway, exchange, body } = input;
  const admission = exchange.admission!;
  const stream = body.stream === true;
  const credential = await gateway.credentialFor(admission.line);
  const headers = { ...baseHeaders(stream), ...forwardedHeaders(input.clientHeaders) };
  if (credential !== undefined) headers['x-api-key'] = credential;
  return passthrough({
    gateway,
    exchange,
    res: input.res,
    signal: input.signal,
    path: '/v1/messages',
    headers,
    body: upstreamBody(input.rawBody, body, { model: admission.upstreamModel }),
    stream,
    tap: () => new MessagesStreamTap(),
    fromJson: (parsed) => {
      const p = parsed as { usage?: unknown; content?: { text?: string; thinking?: string; input?: unknown }[] };
      const produced = (p.content ?? []).map((b) => b.text ?? b.thinking ?? (b.input ? JSON.stringify(b.input) : '')).join('');
      return { usage: p.usage ? mergeAnthropicUsage(emptyUsage(), p.usage) : undefined, produced };
    },
    count: input.count,
    encodeStreamError: input.encodeStreamError,
  });
}
