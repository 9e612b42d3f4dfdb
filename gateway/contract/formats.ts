/**
 * The wire formats Tollgate speaks, one id each, used unchanged everywhere: the folder under
 * gateway/wire/, the protocol a line or preset names, the value in the ledger and the logs. A
 * format has a client side (what clients call) and an upstream side (what lines speak); one id
 * names both. gateway/wire/index.ts maps each id to its folder's object.
 */
export const FORMATS = ['openai-chat', 'anthropic', 'openai-responses', 'gemini'] as const;
export type FormatId = (typeof FORMATS)[number];
