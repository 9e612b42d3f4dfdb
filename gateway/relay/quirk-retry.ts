/**
 * The quirks one attempt goes with, and the safety net behind them. A model's vendor data says
 * what its upstream needs (core/quirks.ts), but a model the catalogue knows only as a custom entry,
 * or a vendor that starts to require a field, can still answer 400 for the lack of it: DeepSeek's
 * "The `reasoning_content` in the thinking mode must be passed back to the API", Kimi's
 * "reasoning_content is missing in assistant tool call message" (docs/protocols.md §6.6). Such a
 * refusal is retried once, on the same line, with the field, and the line keeps the quirk so that
 * the next request needs no retry; the log row says so.
 */
import { GatewayError } from '../core/errors.js';
import { effectiveQuirks, type Quirks } from '../core/quirks.js';
import type { Admission } from '../billing/billing.js';
import type { LinePool } from './ports.js';

/** An upstream's words for a missing reasoning_content (DeepSeek's, Kimi's and vLLM's). */
const MISSING_REASONING =
  /reasoning_content[\s\S]*(passed back|missing|required)|(missing|required)[\s\S]*reasoning_content/i;

/** The quirks an attempt on the admission's current line goes with: the model's vendor data, then the line's own word. */
export function quirksFor(admission: Admission): Quirks {
  return effectiveQuirks(admission.model.quirks, admission.line.quirks);
}

/** The quirks to retry with, when `err` is an upstream refusing the request for want of its reasoning field; else undefined. */
export function retryQuirks(err: unknown, admission: Admission, quirks: Quirks): Quirks | undefined {
  if (!(err instanceof GatewayError) || err.status !== 400 || !MISSING_REASONING.test(err.message)) return undefined;
  const line = admission.line;
  if (line.protocol !== 'openai-chat' || quirks.reasoningField !== undefined) return undefined;
  // The user turned the quirk off for this line on purpose: their word stands.
  if (line.quirks?.reasoningField === null) return undefined;
  return { ...quirks, reasoningField: 'reasoning_content' };
}

/**
 * Runs `attempt` with the admission's quirks; on a refusal that names a missing reasoning field,
 * once more with it, and the line learns the quirk (with a note in `notes`).
 */
export async function withQuirkRetry<T>(
  lines: Pick<LinePool, 'learnQuirks'>,
  admission: Admission,
  notes: string[],
  attempt: (quirks: Quirks) => Promise<T>,
): Promise<T> {
  const quirks = quirksFor(admission);
  try {
    return await attempt(quirks);
  } catch (err) {
    const retry = retryQuirks(err, admission, quirks);
    if (!retry) throw err;
    const line = admission.line;
    notes.push(
      `line "${line.name}": the upstream refused the request for want of reasoning_content; sent again with it, and the line now sends it (quirk reasoningField)`,
    );
    const result = await attempt(retry);
    await lines.learnQuirks(line, { reasoningField: 'reasoning_content' });
    return result;
  }
}
