/**
 * The mock upstream's reasoning: what it "thinks" when a scenario says `think`, how it signs that
 * reasoning in each vendor's form, and the checks each vendor makes on reasoning sent back to it
 * (docs/protocols.md §6.6). The signatures are HMACs under a key of this process, so the mock
 * recognises its own and refuses anything else, as the real vendors do. Each signature is bound
 * to the account (the credential) it was made for, and another account's is refused, as the
 * vendors refuse another account's (docs/protocols.md §6.6):
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

/** Anthropic-style signature of a thinking text for an account (base64, as Anthropic's are). */
export function anthropicSignature(text: string, account: string): string {
  return `EqMock${mac(`anthropic\n${account}`, text)}`;
}

export function anthropicSignatureValid(text: unknown, signature: unknown, account: string): boolean {
  return typeof text === 'string' && typeof signature === 'string' && signature === anthropicSignature(text, account);
}

/** Redacted thinking data: opaque, made by the mock for an account. */
export function redactedData(account: string): string {
  const nonce = randomBytes(9).toString('base64url');
  return `RdMock${nonce}.${mac(`redacted\n${account}`, nonce)}`;
}

export function redactedDataValid(data: unknown, account: string): boolean {
  if (typeof data !== 'string' || !data.startsWith('RdMock')) return false;
  const [nonce, sig] = data.slice(6).split('.');
  return nonce !== undefined && sig === mac(`redacted\n${account}`, nonce);
}

/** OpenAI-style encrypted content: it carries its own text, like the real one carries the reasoning or the compacted history. */
export function encryptedReasoning(summary: string, account: string): string {
  const body = Buffer.from(JSON.stringify({ summary })).toString('base64url');
  return `gAAAAMock${body}.${mac(`openai\n${account}`, body)}`;
}

export function encryptedReasoningValid(value: unknown, account: string): boolean {
  return encryptedText(value, account) !== undefined;
}

/** The text inside encrypted content the mock made for this account; undefined for anything else. */
export function encryptedText(value: unknown, account: string): string | undefined {
  if (typeof value !== 'string' || !value.startsWith('gAAAAMock')) return undefined;
  const [body, sig] = value.slice(9).split('.');
  if (body === undefined || sig !== mac(`openai\n${account}`, body)) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { summary?: unknown };
    return typeof parsed.summary === 'string' ? parsed.summary : '';
  } catch {
    return undefined;
  }
}

/** Gemini CLI's placeholder, which Gemini accepts in place of a signature. */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator';

/** Gemini signatures the mock made, with the account each was made for (Gemini's are opaque). */
const issuedGemini = new Map<string, string>();

/** A new Gemini thought signature (base64, as Gemini's are), remembered as the mock's own for this account. */
export function geminiSignature(account: string): string {
  const s = `CiMock${randomBytes(12).toString('base64url')}`;
  issuedGemini.set(s, account);
  return s;
}

export function geminiSignatureValid(value: unknown, account: string): boolean {
  return value === SKIP_SIGNATURE || (typeof value === 'string' && issuedGemini.get(value) === account);
}

/** The account a request is made for: its credential, in whichever header or parameter it came. */
export function accountOf(headers: Record<string, string | string[] | undefined>, query?: URLSearchParams): string {
  const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);
  const bearer = /^Bearer\s+(.+)$/i.exec(one(headers.authorization) ?? '')?.[1];
  return one(headers['x-api-key']) ?? one(headers['x-goog-api-key']) ?? query?.get('key') ?? bearer ?? '';
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
