/**
 * The registry of wire formats: one entry per folder under gateway/wire/. The server mounts every
 * format's routes, and the relay finds a line's format here by the line's protocol id.
 */
import type { FormatId } from '../contract/formats.js';
import type { WireFormat } from '../core/format.js';
import { anthropic } from './anthropic/index.js';
import { gemini } from './gemini/index.js';
import { openaiChat } from './openai-chat/index.js';
import { openaiResponses } from './openai-responses/index.js';

/** Every format by its id. The type makes this table and the id list in core/formats.ts agree. */
export const WIRE = {
  'openai-chat': openaiChat,
  anthropic,
  'openai-responses': openaiResponses,
  gemini,
} satisfies { readonly [K in FormatId]: WireFormat & { id: K } };

/** Every format, in the order of core/formats.ts: where two share a path, the earlier answers clients that match neither. */
export const FORMAT_LIST: readonly WireFormat[] = Object.values(WIRE);

/** The format a line's protocol names, if this build has it (a hand-edited config may name anything). */
export function wireFormat(id: string): WireFormat | undefined {
  return Object.hasOwn(WIRE, id) ? WIRE[id as FormatId] : undefined;
}

/** The `anthropic-version` an anthropic line sends with translated requests when it sets none (the admin API shows it). */
export { ANTHROPIC_VERSION } from './anthropic/versions.js';
