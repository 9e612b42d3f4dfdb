/**
 * The mock upstream's reasoning: what it "thinks" when a scenario says `think`, how it signs that
 * reasoning in each vendor's form, and the checks each vendor makes on reasoning sent back to it
 * (docs/protocols.md §6.6). The signatures are HMACs under a key of this process, so the mock
 * recognises its own and refuses anything else, as the real vendors do:
 *
 * - Anthropic: every thinking block's signature must be one it made for that text, and with
 *   thinking `enabled` a tool loop's last assistant turn must start with thinking.
 * - OpenAI Responses: a reasoning item's `encrypted_content` must be one it made.
 * - Gemini: a thought signature must be one it made (or Gemini CLI's
 *   `skip_thought_signature_validator`), and as a Gemini 3 model (`think`) the first function
 *   call of every model turn must carry one.
 * - DeepSeek / Kimi (Chat Completions, `think`): every assistant turn with tool calls must carry
 *   `reasoning_content`, and the reasoning the mock gave with its own calls must come back as it was.
 */
import { createHmac, randomBytes } from 'node:crypto';

const KEY = randomBytes(32);

function mac(kind: string, content: string): string {
  return createHmac('sha256', KEY).update(`${kind}\n${content}`).digest('base64url');
}

/** What the mock thinks before answering: short, and different for each prompt so signatures differ. */
export function thought(userText: string, toolResults: string[]): string {
  return toolResults.length
    ? `The tool returned ${JSON.stringify(toolResults.join('; ').slice(0, 40))}; now I can answer.`
    : `The user asks ${JSON.stringify(userText.slice(0, 40))}; I should work it out step by step.`;
}

/** Anthropic-style signature of a thinking text (base64, as Anthropic's are). */
export function anthropicSignature(text: string): string {
  return `EqMock${mac('anthropic', text)}`;
}

export function anthropicSignatureValid(text: unknown, signature: unknown): boolean {
  return typeof text === 'string' && typeof signature === 'string' && signature === anthropicSignature(text);
}

/** Redacted thinking data: opaque, made by the mock. */
export function redactedData(): string {
  const nonce = randomBytes(9).toString('base64url');
  return `RdMock${nonce}.${mac('redacted', nonce)}`;
}

export function redactedDataValid(data: unknown): boolean {
  if (typeof data !== 'string' || !data.startsWith('RdMock')) return false;
  const [nonce, sig] = data.slice(6).split('.');
  return nonce !== undefined && sig === mac('redacted', nonce);
}

/** OpenAI-style encrypted reasoning: it carries its own summary, like the real one carries the reasoning. */
export function encryptedReasoning(summary: string): string {
  const body = Buffer.from(JSON.stringify({ summary })).toString('base64url');
  return `gAAAAMock${body}.${mac('openai', body)}`;
}

export function encryptedReasoningValid(value: unknown): boolean {
  if (typeof value !== 'string' || !value.startsWith('gAAAAMock')) return false;
  const [body, sig] = value.slice(9).split('.');
  return body !== undefined && sig === mac('openai', body);
}

/** Gemini CLI's placeholder, which Gemini accepts in place of a signature. */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator';

/** Gemini signatures the mock made: Gemini's are opaque and not bound to a part the mock can re-read. */
const issuedGemini = new Set<string>();

/** A new Gemini thought signature (base64, as Gemini's are), remembered as the mock's own. */
export function geminiSignature(): string {
  const s = `CiMock${randomBytes(12).toString('base64url')}`;
  issuedGemini.add(s);
  return s;
}

export function geminiSignatureValid(value: unknown): boolean {
  return value === SKIP_SIGNATURE || (typeof value === 'string' && issuedGemini.has(value));
}

/** Reasoning the chat mock gave with each tool call id it made (DeepSeek checks that it comes back). */
const chatReasoning = new Map<string, string>();

export function rememberChatReasoning(callIds: string[], reasoning: string): void {
  for (const id of callIds) chatReasoning.set(id, reasoning);
}

/** The reasoning the mock gave with this call, if it made the call. */
export function chatReasoningOf(callId: string): string | undefined {
  return chatReasoning.get(callId);
}
