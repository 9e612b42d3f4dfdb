/**
 * The wire formats Tollgate speaks, one id each, used unchanged everywhere: the folder under
 * gateway/wire/, the protocol a line or preset names, the value in the ledger and the logs. A
 * format has a client side (what clients call) and an upstream side (what lines speak); one id
 * names both. gateway/wire/index.ts maps each id to its folder's object.
 */
export const FORMATS = ['openai-chat', 'anthropic', 'openai-responses', 'gemini'] as const;
export type FormatId = (typeof FORMATS)[number];

/** How a format is named to people: in full, and in two to four letters where a table is narrow. */
export interface FormatName {
  name: string;
  short: string;
}

/**
 * Each format's name for people, in the order lists show them (OpenAI's two first). A Record over
 * FormatId: a new format does not compile until it has its names.
 */
export const FORMAT_NAMES = {
  'openai-chat': { name: 'OpenAI Chat Completions', short: 'Chat' },
  'openai-responses': { name: 'OpenAI Responses', short: 'Resp' },
  anthropic: { name: 'Anthropic Messages', short: 'Msgs' },
  gemini: { name: 'Gemini', short: 'Gem' },
} as const satisfies Record<FormatId, FormatName>;

/** Every format, in the order people see them listed. */
export const LISTED_FORMATS = Object.keys(FORMAT_NAMES) as FormatId[];
