import { upstreamStreamError } from '../../core/errors.js';
import { assertJsonObjectShape } from '../../core/json.js';
import { BaseStreamTap, upstreamBody, type Passthrough } from '../../core/passthrough.js';
import { isMarked } from '../../core/reasoning.js';
import type { SseEvent } from '../../core/sse.js';
import { fromResponsesUsage } from './usage.js';

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
      const response = (JSON.parse(data) as { response?: { usage?: unknown; error?: { message?: string } | null } })
        .response;
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

/**
 * The input without the reasoning items Tollgate gave the client for another family
 * (`encrypted_content` with its mark, core/reasoning.ts): OpenAI would refuse them as
 * encrypted content it cannot verify (docs/protocols.md §6.6). Undefined when there are none.
 */
function withoutForeignReasoning(input: unknown): { input: unknown[]; dropped: number } | undefined {
  if (!Array.isArray(input)) return undefined;
  const kept = input.filter(
    (i: unknown) =>
      !(
        typeof i === 'object' &&
        i !== null &&
        (i as { type?: unknown }).type === 'reasoning' &&
        isMarked((i as { encrypted_content?: unknown }).encrypted_content)
      ),
  );
  return kept.length < input.length ? { input: kept, dropped: input.length - kept.length } : undefined;
}

/** Responses in, `openai-responses` upstream out: `model` is rewritten, and other families' reasoning taken out of the input. */
export function responsesPassthrough(body: Record<string, unknown>, rawBody: string): Passthrough {
  const foreign = withoutForeignReasoning(body.input);
  const changes = foreign ? { input: foreign.input } : {};
  const notes = foreign
    ? [
        `openai-responses: dropped ${foreign.dropped} reasoning item(s) of another family: only the family that made them can verify them`,
      ]
    : undefined;
  return {
    request: (upstreamModel, _quirks, outputLimit) => ({
      path: '/responses',
      headers: {},
      // OpenAI refuses max_output_tokens below 16.
      body: upstreamBody(rawBody, body, {
        model: upstreamModel,
        ...changes,
        ...(outputLimit === undefined ? {} : { max_output_tokens: Math.max(16, outputLimit) }),
      }),
      ...(notes ? { notes } : {}),
    }),
    tap: () => new ResponsesStreamTap(),
    modelField: { answer: ['model'], event: ['response', 'model'] },
    readAnswer(parsed) {
      const p = parsed as { usage?: unknown; output?: { content?: { text?: string }[]; arguments?: string }[] };
      const produced = (p.output ?? [])
        .map((item) => (item.content ?? []).map((c) => c.text ?? '').join('') + (item.arguments ?? ''))
        .join('');
      return { usage: p.usage ? fromResponsesUsage(p.usage) : undefined, produced };
    },
  };
}
