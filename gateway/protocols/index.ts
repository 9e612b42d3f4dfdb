import type { InboundProtocol } from '../core/inbound.js';
import { anthropicMessages } from './anthropic-messages/index.js';
import { gemini } from './gemini/index.js';
import { openaiChat } from './openai-chat/index.js';
import { openaiResponses } from './openai-responses/index.js';

/** Every inbound protocol the server mounts. Adding one is a folder here and a line below. */
export const INBOUND: readonly InboundProtocol[] = [openaiChat, anthropicMessages, openaiResponses, gemini];
