/**
 * OpenAI Responses compaction (docs/protocols.md §3.1): `POST /v1/responses/compact` answers the
 * user's messages followed by one `compaction` item whose `encrypted_content` holds the rest of
 * the history, readable only by the account it was made for (mock/reasoning.ts); `/v1/responses`
 * refuses another account's, or a forged one, as OpenAI does.
 */
import { isObject, randomId, sendJson, type Exchange, type Json } from './http.js';
import { openAIError } from './openai-chat.js';
import { accountOf, encryptedReasoning, encryptedText } from './reasoning.js';
import { resolveUsage } from './reply.js';

/** A compaction item for this account, standing for `items`. */
export function compactionItem(ex: Exchange, items: Json[]): Json {
  return {
    id: `cmp_${randomId(40)}`,
    type: 'compaction',
    encrypted_content: encryptedReasoning(`compacted ${items.length} item(s)`, accountOf(ex.req.headers)),
  };
}

const COMPACTION = new Set(['compaction', 'compaction_summary']);

/** Sends OpenAI's 400 and returns true when a compaction item in the input is not the mock's own for this account. */
export function compactionRefusal(ex: Exchange, items: Json[]): true | undefined {
  for (const [i, it] of items.entries()) {
    if (!COMPACTION.has(String(it.type))) continue;
    if (encryptedText(it.encrypted_content, accountOf(ex.req.headers)) !== undefined) continue;
    const id = typeof it.id === 'string' ? it.id : `input[${i}]`;
    openAIError(
      ex,
      400,
      `The encrypted content for item ${id} could not be verified.`,
      {},
      null,
      'invalid_encrypted_content',
    );
    return true;
  }
  return undefined;
}

/** `POST /v1/responses/compact`: the user's messages, then one compaction item; usage as for a model call. */
export function openAIResponsesCompact(ex: Exchange, body: unknown): void {
  if (!isObject(body)) return openAIError(ex, 400, 'We could not parse the JSON body of your request.');
  if (typeof body.model !== 'string') return openAIError(ex, 400, "Missing required parameter: 'model'.", {}, 'model');
  for (const field of ['max_output_tokens', 'stream', 'tools'])
    if (body[field] !== undefined) return openAIError(ex, 400, `Unknown parameter: '${field}'.`, {}, field);
  const items: Json[] =
    typeof body.input === 'string'
      ? [{ type: 'message', role: 'user', content: body.input }]
      : Array.isArray(body.input)
        ? body.input.filter(isObject)
        : [];
  if (compactionRefusal(ex, items)) return;
  const users = items.filter((it) => (it.type ?? 'message') === 'message' && it.role === 'user');
  const u = resolveUsage(ex.scenario, JSON.stringify(items).length, 40);
  return sendJson(ex, 200, {
    id: `resp_${randomId(40)}`,
    object: 'response.compaction',
    created_at: Math.floor(Date.now() / 1000),
    output: [...users.map((m) => ({ ...m, type: 'message' })), compactionItem(ex, items)],
    ...(ex.scenario.noUsage
      ? {}
      : {
          usage: {
            input_tokens: u.prompt,
            input_tokens_details: { cached_tokens: u.cached },
            output_tokens: u.output,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: u.prompt + u.output,
          },
        }),
  });
}
