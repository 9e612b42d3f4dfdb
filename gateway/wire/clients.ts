import type { InboundProtocol } from '../core/inbound.js';
import { anthropicMessages } from './anthropic/routes.js';
import { gemini } from './gemini/routes.js';
import { openaiChat } from './openai-chat/routes.js';
import { openaiResponses } from './openai-responses/routes.js';

/** Every inbound protocol the server mounts. Adding one is a folder here and a line below. */
export const INBOUND: readonly InboundProtocol[] = [openaiChat, anthropicMessages, openaiResponses, gemini];
