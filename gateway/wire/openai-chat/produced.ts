/**
 * What a Chat Completions answer produced, as text to count when the upstream reports no usage:
 * every content, reasoning, refusal and tool-call fragment.
 */
interface ChatMessageLike {
  content?: unknown;
  tool_calls?: { function?: { name?: string; arguments?: string } }[];
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p: { type?: string; text?: string }) => (p.type === 'text' && typeof p.text === 'string' ? p.text : ''))
    .join('\n');
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
export function producedByCompletion(body: {
  choices?: { message?: ChatMessageLike & { refusal?: string | null } }[];
}): string {
  let out = '';
  for (const c of body.choices ?? []) {
    const m = c.message;
    if (!m) continue;
    out += textOf(m.content) + (m.refusal ?? '');
    for (const t of m.tool_calls ?? []) out += (t.function?.name ?? '') + (t.function?.arguments ?? '');
  }
  return out;
}
