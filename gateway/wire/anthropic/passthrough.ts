import { upstreamStreamError } from '../../core/errors.js';
import { assertJsonObjectShape } from '../../core/json.js';
import { BaseStreamTap, upstreamBody, type Passthrough } from '../../core/passthrough.js';
import type { SseEvent } from '../../core/sse.js';
import { emptyUsage, type Usage } from '../../core/usage.js';
import { isObject } from '../../core/json.js';
import { bind, otherLineNote } from '../../core/signatures.js';
import { droppedReasoningNote, loopWithoutThinking, THINKING_OFF_NOTE, withoutRefusedReasoning } from './history.js';
import { ANTHROPIC_VERSION } from './versions.js';
import { mergeAnthropicUsage } from './usage.js';

/**
 * Reads a Messages stream as it passes. Only message_start and message_delta (usage; the
 * latter's figures are cumulative, so each replaces the last) and error events are parsed;
 * content deltas are kept raw for counting in case no usage arrives.
 */
export class MessagesStreamTap extends BaseStreamTap {
  private readonly deltas: string[] = [];
  /** message_delta came: it carries the final output count (message_start's is a placeholder). */
  private finalCount = false;

  onEvent(ev: SseEvent): boolean {
    const data = ev.data;
    assertJsonObjectShape(data);
    switch (ev.event) {
      case 'message_start':
        this.found = mergeAnthropicUsage(
          emptyUsage(),
          (JSON.parse(data) as { message?: { usage?: unknown } }).message?.usage,
        );
        break;
      case 'message_delta': {
        const usage = (JSON.parse(data) as { usage?: unknown }).usage;
        this.found = mergeAnthropicUsage(this.found ?? emptyUsage(), usage);
        this.finalCount ||= usage !== undefined && usage !== null;
        break;
      }
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

  /**
   * Final only once message_delta brought the output count: message_start's `output_tokens` (1 or
   * so) is a placeholder, so a stream cut before message_delta is billed for what it produced.
   */
  override usage(): Usage | undefined {
    return this.finalCount ? this.found : undefined;
  }
  /** message_start's input side: the upstream's own count of the prompt, cache reads and writes included. */
  override promptUsage(): Usage | undefined {
    return this.found;
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
function forwardedHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const version = h['anthropic-version'];
  const out: Record<string, string> = {
    'anthropic-version': (Array.isArray(version) ? version[0] : version) ?? ANTHROPIC_VERSION,
  };
  const beta = h['anthropic-beta'];
  if (beta) out['anthropic-beta'] = Array.isArray(beta) ? beta.join(',') : beta;
  return out;
}

/**
 * What the history needs before line `lineId` sees it (history.ts): reasoning it would refuse
 * removed, its own signatures unbound, and thinking turned off when the tool loop in progress
 * began on another family or line. `unboundOnly`: the messages changed only by unbinding.
 */
function reasoningChanges(
  body: Record<string, unknown>,
  lineId: string | undefined,
): { changes: Record<string, unknown>; notes: string[]; unboundOnly: boolean } {
  const changes: Record<string, unknown> = {};
  const notes: string[] = [];
  if (!Array.isArray(body.messages)) return { changes, notes, unboundOnly: false };
  const cleaned = withoutRefusedReasoning(body.messages, lineId);
  if (cleaned) {
    changes.messages = cleaned.messages;
    if (cleaned.dropped > 0) notes.push(droppedReasoningNote(cleaned.dropped));
    if (cleaned.otherLine > 0) notes.push(otherLineNote('anthropic', `${cleaned.otherLine} thinking block(s)`));
  }
  const thinking = body.thinking as { type?: unknown } | undefined;
  if (
    (thinking?.type === 'enabled' || thinking?.type === 'adaptive') &&
    loopWithoutThinking(cleaned?.messages ?? body.messages)
  ) {
    changes.thinking = { type: 'disabled' };
    // Context-management edits that clear thinking need thinking on.
    const cm = body.context_management as { edits?: { type?: unknown }[] } | undefined;
    if (Array.isArray(cm?.edits))
      changes.context_management = {
        ...cm,
        edits: cm.edits.filter((e) => !String(e?.type).startsWith('clear_thinking')),
      };
    notes.push(THINKING_OFF_NOTE);
  }
  const unboundOnly = cleaned !== undefined && cleaned.dropped + cleaned.otherLine === 0 && !changes.thinking;
  return { changes, notes, unboundOnly };
}

/** Binds the proof of a thinking or redacted_thinking block to the line; true when it changed. */
function bindBlock(b: unknown, lineId: string): boolean {
  if (!isObject(b)) return false;
  const field = b.type === 'thinking' ? 'signature' : b.type === 'redacted_thinking' ? 'data' : undefined;
  const proof = field && b[field];
  if (typeof proof !== 'string' || proof === '') return false;
  b[field!] = bind(proof, lineId);
  return true;
}

/**
 * Binding a Messages answer's signatures (core/signatures.ts): thinking blocks' `signature` and
 * redacted thinking's `data` in a whole answer; in a stream, the `signature_delta` that ends a
 * thinking block and the `content_block_start` of redacted thinking, the only events parsed for it.
 */
export const messagesSignatures = {
  answer(parsed: unknown, lineId: string): boolean {
    const content = isObject(parsed) && Array.isArray(parsed.content) ? parsed.content : [];
    let changed = false;
    for (const b of content) changed = bindBlock(b, lineId) || changed;
    return changed;
  },
  event(data: string, lineId: string): string {
    // Signatures come in signature_delta events, and at a block's start for redacted thinking.
    if (!data.includes('"signature_delta"') && !data.includes('"content_block_start"')) return data;
    const ev = JSON.parse(data) as { type?: unknown; delta?: unknown; content_block?: unknown };
    let changed = false;
    if (ev.type === 'content_block_start') changed = bindBlock(ev.content_block, lineId);
    else if (ev.type === 'content_block_delta' && isObject(ev.delta) && ev.delta.type === 'signature_delta') {
      const signature = ev.delta.signature;
      if (typeof signature === 'string' && signature !== '') {
        ev.delta.signature = bind(signature, lineId);
        changed = true;
      }
    }
    return changed ? JSON.stringify(ev) : data;
  },
};

/**
 * Messages in, `anthropic` upstream out: `model` is rewritten, and the history loses the reasoning
 * Anthropic would refuse (reasoningChanges); the client's anthropic-version and anthropic-beta
 * headers go with it as they came.
 */
export function messagesPassthrough(
  body: Record<string, unknown>,
  rawBody: string,
  clientHeaders: Record<string, string | string[] | undefined>,
): Passthrough {
  return {
    request(upstreamModel, _quirks, outputLimit, line) {
      const reasoning = reasoningChanges(body, line?.id);
      const limit = outputLimit === undefined ? {} : { max_tokens: outputLimit };
      const unbound = reasoning.unboundOnly && line ? { field: 'messages', line: line.id } : undefined;
      const out = {
        path: '/v1/messages',
        headers: forwardedHeaders(clientHeaders),
        body: upstreamBody(rawBody, body, { model: upstreamModel, ...reasoning.changes, ...limit }, unbound),
      };
      return reasoning.notes.length > 0 ? { ...out, notes: reasoning.notes } : out;
    },
    tap: () => new MessagesStreamTap(),
    signatures: messagesSignatures,
    modelField: { answer: ['model'], event: ['message', 'model'] },
    readAnswer(parsed) {
      const p = parsed as { usage?: unknown; content?: { text?: string; thinking?: string; input?: unknown }[] };
      const produced = (p.content ?? [])
        .map((b) => b.text ?? b.thinking ?? (b.input ? JSON.stringify(b.input) : ''))
        .join('');
      return { usage: p.usage ? mergeAnthropicUsage(emptyUsage(), p.usage) : undefined, produced };
    },
  };
}
