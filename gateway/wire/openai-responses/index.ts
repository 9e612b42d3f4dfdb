/**
 * OpenAI Responses (`POST /v1/responses`): what Codex CLI and the openai SDK's `responses` speak as
 * clients, and OpenAI's newest interface as an upstream. Its errors take OpenAI's shape and its
 * model list is OpenAI's, so this folder takes both from openai-chat (the one sibling import the
 * architecture test allows).
 */
import type { WireFormat } from '../../core/format.js';
import { openaiModelList } from '../openai-chat/index.js';
import { encodeError } from '../openai-chat/errors.js';
import { fromResponse } from './from-response.js';
import { fromStream } from './from-stream.js';
import { routes } from './routes.js';
import { toRequest } from './to-request.js';
import { fromResponsesUsage } from './usage.js';

export const openaiResponses = {
  id: 'openai-responses',
  basePath: '/v1',
  routes,
  encodeError,
  upstream: {
    // `POST {base}/responses`, the base URL including /v1.
    codec: { family: 'openai', toRequest, fromResponse, fromStream, usage: fromResponsesUsage },
    auth: 'bearer',
    models: openaiModelList,
  },
} satisfies WireFormat;
