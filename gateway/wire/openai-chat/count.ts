import { countTokens } from '../../core/estimate.js';
import type { Usage } from '../../core/usage.js';
import { emptyUsage } from '../../core/usage.js';

interface ChatMessageLike {
  content?: unknown;
  tool_calls?: { function?: { name?: string; arguments?: string } }[];
}

/** Per-message framing tokens of the chat format (role and separators). */
const TOKENS_PER_MESSAGE = 4;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p: { type?: string; text?: string }) => (p.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('\n');
}

/**
 * Counts usage ourselves when the upstream gave none: a stream the client hung up on, or an
 * upstream that ignores stream_options.include_usage. The prompt side counts message text and
 * tool definitions; the output side counts every content, reasoning, refusal and tool-call
 * fragment that was produced.
 */
export async function countChatUsage(request: { messages?: ChatMessageLike[]; tools?: unknown[] }, producedText: string): Promise<Usage> {
  const messages = request.messages ?? [];
  let prompt = messages.length * TOKENS_PER_MESSAGE;
  const parts: string[] = [];
  for (const m of messages) {
    parts.push(textOf(m.content));
    for (const c of m.tool_calls ?? []) parts.push(`${c.function?.name ?? ''} ${c.function?.arguments ?? ''}`);
  }
  if (request.tools?.length) parts.push(JSON.stringify(request.tools));
  prompt += await countTokens(parts.join('\n'));
  return { ...emptyUsage(), inputTokens: prompt, outputTokens: await countTokens(producedText) };
}

/** The text a chunk of a Chat Completions stream produced (all choices). */
export function producedByChunk(chunk: { choices?: { delta?: Record<string, unknown> }[] }): string {
  let out = '';
  for (const c of chunk.choices ?? []) {
    const d = c.delta;
    if (!d) continue;
    for (const k of ['content', 'reasoning_content', 'refusal'] as const) if (typeof d[k] === 'string') out += d[k];
    const calls = d.tool_calls as { function?: { name?: string; arguments?: string } }[] | undefined;
    for (const t of calls ?? []) out += (t.function?.name ?? '') + (t.function?.arguments ?? '');
  }
  return out;
}

/** The text a whole (non-streamed) completion produced. */
export function producedByCompletion(body: { choices?: { message?: ChatMessageLike & { refusal?: string | null } }[] }): string {
  let out = '';
  for (const c of body.choices ?? []) {
    const m = c.message;
    if (!m) continue;
    out += textOf(m.content) + (m.refusal ?? '');
    for (const t of m.tool_calls ?? []) out += (t.function?.name ?? '') + (t.function?.arguments ?? '');
  }
  return out;
}
