import type { Outcome } from '../../core/exchange.js';
import { assertJsonObjectShape } from '../../core/json.js';
import { BaseStreamTap, baseHeaders, passthrough, upstreamBody, upstreamStreamError, type PassthroughInput } from '../../core/passthrough.js';
import type { SseEvent } from '../../core/sse.js';
import { fromResponsesUsage } from './usage.js';

export interface ResponsesPassthroughInput extends PassthroughInput {
  body: Record<string, unknown>;
}

const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/**
 * Reads a Responses stream as it passes: only the terminal event (which carries the usage) and
 * errors are parsed; text and argument deltas are kept raw for counting if no usage comes.
 */
export class ResponsesStreamTap extends BaseStreamTap {
  private readonly deltas: string[] = [];

  onEvent(ev: SseEvent): boolean {
    const data = ev.data;
    if (data === '[DONE]') return false; // some compatible servers add it; Responses clients do not expect it
    assertJsonObjectShape(data);
    const type = ev.event ?? /"type":"([^"]+)"/.exec(data)?.[1];
    if (type !== undefined && TERMINAL.has(type)) {
      const response = (JSON.parse(data) as { response?: { usage?: unknown; error?: { message?: string } | null } }).response;
      if (response?.usage) this.found = fromResponsesUsage(response.usage);
      if (type === 'response.failed') this.failure = upstreamStreamError(response?.error?.message);
      this.done = true;
    } else if (type === 'error') {
      this.failure = upstreamStreamError((JSON.parse(data) as { message?: string }).message);
    } else if (type !== undefined && type.endsWith('.delta')) {
      this.deltas.push(data);
    }
    return true;
  }

  produced(): string {
    let out = '';
    for (const data of this.deltas) {
      try {
        const d = (JSON.parse(data) as { delta?: unknown }).delta;
        if (typeof d === 'string') out += d;
      } catch {
        // A malformed fragment produced nothing countable.
      }
    }
    return out;
  }
}

/** Responses in, `openai-responses` upstream out: only `model` is rewritten. */
export async function passthroughResponses(input: ResponsesPassthroughInput): Promise<Outcome> {
  const { gateway, exchange, body } = input;
  const admission = exchange.admission!;
  const stream = body.stream === true;
  const credential = await gateway.credentialFor(admission.line);
  const headers = baseHeaders(stream);
  if (credential !== undefined) headers.authorization = `Bearer ${credential}`;
  return passthrough({
    gateway,
    exchange,
    res: input.res,
    signal: input.signal,
    path: '/responses',
    headers,
    body: upstreamBody(input.rawBody, body, { model: admission.upstreamModel }),
    stream,
    tap: () => new ResponsesStreamTap(),
    fromJson: (parsed) => {
      const p = parsed as { usage?: unknown; output?: { content?: { text?: string }[]; arguments?: string }[] };
      const produced = (p.output ?? []).map((item) => (item.content ?? []).map((c) => c.text ?? '').join('') + (item.arguments ?? '')).join('');
      return { usage: p.usage ? fromResponsesUsage(p.usage) : undefined, produced };
    },
    count: input.count,
    encodeStreamError: input.encodeStreamError,
  });
}
