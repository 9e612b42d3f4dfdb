/**
 * The Gemini API (`POST /v1beta/models/{model}:generateContent` and friends): what Gemini CLI and
 * @google/genai speak as clients, and Google's Generative Language API as an upstream (the line's
 * base URL is the origin).
 */
import type { WireFormat } from '../../core/format.js';
import { encodeError } from './errors.js';
import { fromError } from './from-error.js';
import { fromResponse } from './from-response.js';
import { fromStream } from './from-stream.js';
import { routes } from './routes.js';
import { toRequest } from './to-request.js';
import { fromGeminiUsage } from './usage.js';

export const gemini = {
  id: 'gemini',
  basePath: '',
  routes,
  encodeError,
  upstream: {
    codec: { family: 'gemini', toRequest, fromResponse, fromStream, usage: fromGeminiUsage, fromError },
    auth: 'x-goog-api-key',
    models: {
      path: '/v1beta/models?pageSize=1000',
      list: (b) =>
        (
          (
            b as {
              models?: {
                name?: unknown;
                displayName?: unknown;
                inputTokenLimit?: unknown;
                outputTokenLimit?: unknown;
              }[];
            }
          ).models ?? []
        ).map((m) => ({
          id: String(m.name).replace(/^models\//, ''),
          ...(typeof m.displayName === 'string' ? { displayName: m.displayName } : {}),
          ...(Number.isSafeInteger(m.inputTokenLimit) && (m.inputTokenLimit as number) > 0
            ? { contextWindow: m.inputTokenLimit as number }
            : {}),
          ...(Number.isSafeInteger(m.outputTokenLimit) && (m.outputTokenLimit as number) > 0
            ? { maxOutputTokens: m.outputTokenLimit as number }
            : {}),
        })),
    },
  },
} satisfies WireFormat;
