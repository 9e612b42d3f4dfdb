/**
 * Gemini API (Generative Language): `:generateContent`, `:streamGenerateContent` (SSE with `alt=sse`, else one
 * JSON array), `:countTokens` and `GET models`, under `/v1beta` and `/v1`. Wire format: docs/protocols.md
 * §4, checked against the `@google/genai` SDK's types.
 */
import {
  isObject,
  randomId,
  sendJson,
  sendStream,
  writeWhole,
  type Exchange,
  type Json,
  type SseFrame,
} from './http.js';
import { accountOf, geminiSignature, geminiSignatureValid, thought } from './reasoning.js';
import { planReply, resolveUsage, stopList, type Usage } from './reply.js';

const ROUTE = /^\/(v1beta|v1)\/models(?:\/([^/:]+)(?::([A-Za-z]+))?)?\/?$/;

/** True for the paths this module serves, e.g. `/v1beta/models/gemini-x:generateContent`. */
export function isGeminiPath(path: string): boolean {
  return path.startsWith('/v1beta/') || /^\/v1\/models\/[^/:]+:[A-Za-z]+$/.test(path);
}

/** Routes one Gemini request; `path` is past the scenario prefix. */
export function gemini(
  ex: Exchange,
  method: string,
  path: string,
  body: unknown,
  models: readonly string[],
): void | Promise<void> {
  const route = ROUTE.exec(path);
  if (!route) return geminiError(ex, 404, `Method not found: ${method} ${path}`);
  const [, version = 'v1beta', rawModel, action] = route;
  // An empty key gets the same answer as a wrong one; only the mock's callers send none at all.
  const key = ex.req.headers['x-goog-api-key'] ?? ex.query.get('key');
  if (!key) {
    return geminiError(ex, 400, 'API key not valid. Please pass a valid API key.', {}, [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'API_KEY_INVALID',
        domain: 'googleapis.com',
        metadata: { service: 'generativelanguage.googleapis.com' },
      },
    ]);
  }
  const model = rawModel === undefined ? undefined : decodeURIComponent(rawModel);
  if (method === 'GET' && action === undefined) return listModels(ex, models, version, model);
  if (method === 'POST' && model !== undefined) {
    if (action === 'generateContent') return generate(ex, model, body, false);
    if (action === 'streamGenerateContent') return generate(ex, model, body, true);
    if (action === 'countTokens') return countTokens(ex, body);
  }
  return geminiError(ex, 404, `Method not found: ${method} ${path}`);
}

function generate(ex: Exchange, model: string, body: unknown, stream: boolean): void | Promise<void> {
  if (!isObject(body)) return geminiError(ex, 400, 'Invalid JSON payload received.');
  const contents = Array.isArray(body.contents) ? body.contents.filter(isObject) : [];
  if (contents.length === 0)
    return geminiError(ex, 400, '* GenerateContentRequest.contents: contents is not specified\n');
  const account = accountOf(ex.req.headers, ex.query);
  const refused = signatureRefusal(contents, ex.scenario.think !== undefined, account);
  if (refused) return geminiError(ex, 400, refused);
  const last = contents.at(-1);
  const results = parts(last).filter((p) => isObject(p.functionResponse));
  const isUser = (c: Json) => (c.role ?? 'user') === 'user';
  const lastUser = [...contents].reverse().find((c) => isUser(c) && parts(c).some((p) => typeof p.text === 'string'));
  const tools = (Array.isArray(body.tools) ? body.tools : [])
    .flatMap((t: any) => (Array.isArray(t?.functionDeclarations) ? t.functionDeclarations : []))
    .filter((f: any) => typeof f?.name === 'string')
    .map((f: any) => ({ name: f.name, schema: f.parametersJsonSchema ?? f.parameters }));
  const calling: Json = isObject(body.toolConfig?.functionCallingConfig) ? body.toolConfig.functionCallingConfig : {};
  const mode = String(calling.mode ?? 'AUTO').toUpperCase();
  const allowed: unknown = calling.allowedFunctionNames;
  const config: Json = isObject(body.generationConfig) ? body.generationConfig : {};

  const {
    calls,
    text: reply,
    usage: u,
  } = planReply(
    ex.scenario,
    {
      userText: lastUser ? text(lastUser) : '',
      toolResults: results.map((p) => resultText(p.functionResponse.response)),
      endsWithUserText:
        last !== undefined &&
        isUser(last) &&
        results.length === 0 &&
        parts(last).some((p) => typeof p.text === 'string'),
      tools,
      // Gemini has no parallel flag; ANY with exactly one allowed name is how a client forces one function.
      toolChoice:
        mode === 'NONE'
          ? 'none'
          : mode === 'ANY' && Array.isArray(allowed) && allowed.length === 1 && typeof allowed[0] === 'string'
            ? { name: allowed[0] }
            : 'auto',
      parallel: true,
      maxTokens: config.maxOutputTokens,
      stops: stopList(config.stopSequences),
      promptChars: promptChars(body),
      ...(config.responseMimeType === 'application/json'
        ? { json: { schema: config.responseJsonSchema ?? config.responseSchema } }
        : {}),
    },
    '',
  );
  // A thinking model (Gemini 3) signs the first function call of its turn, or its answer text; its
  // thoughts are shown only when includeThoughts asks for them.
  const thinks = ex.scenario.think !== undefined;
  const shown = thinks && config.thinkingConfig?.includeThoughts === true;
  const thoughtPart: Json[] = shown
    ? [
        {
          text: thought(
            lastUser ? text(lastUser) : '',
            results.map((p) => resultText(p.functionResponse.response)),
          ),
          thought: true,
          thoughtSignature: geminiSignature(account),
        },
      ]
    : [];

  const responseId = randomId(22);
  // A function call ends with STOP too: there is no separate tool-call reason (protocols.md §4, §6.5).
  const finishReason = calls.length === 0 && reply.end === 'length' ? 'MAX_TOKENS' : 'STOP';
  const response = (partList: Json[], finish: string | undefined, final: boolean): Json => ({
    candidates: [
      { content: { parts: partList, role: 'model' }, ...(finish ? { finishReason: finish } : {}), index: 0 },
    ],
    ...(ex.scenario.noUsage ? {} : { usageMetadata: usageMetadata(u, final) }),
    modelVersion: model,
    responseId,
  });
  // Function calls are whole parts, never split; older models send no `id`, and neither does the mock.
  const callParts = calls.map((c, i) => ({
    functionCall: { name: c.name, args: JSON.parse(c.args) },
    ...(thinks && i === 0 ? { thoughtSignature: geminiSignature(account) } : {}),
  }));
  const signed = (part: Json, sign: boolean): Json =>
    sign ? { ...part, thoughtSignature: geminiSignature(account) } : part;

  if (!stream)
    return sendJson(
      ex,
      200,
      response(
        [...thoughtPart, ...(calls.length ? callParts : [signed({ text: reply.text }, thinks)])],
        finishReason,
        true,
      ),
    );

  // Each chunk holds the next parts only; the last one carries finishReason and the final usage.
  const chunks: Json[] = calls.length
    ? [
        ...(thoughtPart.length ? [response(thoughtPart, undefined, false)] : []),
        response(callParts, finishReason, true),
      ]
    : [
        ...(thoughtPart.length ? [response(thoughtPart, undefined, false)] : []),
        ...(reply.fragments.length ? reply.fragments : ['']).map((fragment, i, all) => {
          const final = i === all.length - 1;
          return response([signed({ text: fragment }, thinks && i === 0)], final ? finishReason : undefined, final);
        }),
      ];
  const frames: SseFrame[] = chunks.map((chunk) => ({ data: JSON.stringify(chunk) }));
  return sendStream(ex, frames, {}, ex.query.get('alt') === 'sse' ? 'sse' : 'json-array');
}

/**
 * Gemini's checks on thought signatures sent back (protocols.md §4, §6.6): a signature must be one
 * Gemini made for this key, or Gemini CLI's placeholder; a Gemini 3 model (`thinking`) also wants one on the
 * first function call of every model turn. Returns the error message, or undefined.
 */
function signatureRefusal(contents: Json[], thinking: boolean, account: string): string | undefined {
  for (const c of contents) {
    for (const p of parts(c)) {
      if (p.thoughtSignature !== undefined && !geminiSignatureValid(p.thoughtSignature, account))
        return 'Corrupted thought signature.';
    }
  }
  if (!thinking) return undefined;
  let position = 0;
  for (const c of contents) {
    const calls = parts(c).filter((p) => isObject(p.functionCall));
    if ((c.role ?? 'user') === 'model' && calls[0] && calls[0].thoughtSignature === undefined) {
      return `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${String(calls[0].functionCall.name)}\` , position ${position + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`;
    }
    position += parts(c).length;
  }
  return undefined;
}

/**
 * promptTokenCount includes the cached part and candidatesTokenCount excludes thoughts (protocols.md §6.11).
 * Chunks before the last carry only the prompt count, as Gemini's do, so a client that adds interim usage up
 * instead of taking the last one gets it wrong.
 */
function usageMetadata(u: Usage, final: boolean): Json {
  const prompt = { promptTokenCount: u.prompt, promptTokensDetails: [{ modality: 'TEXT', tokenCount: u.prompt }] };
  if (!final) return { ...prompt, totalTokenCount: u.prompt };
  return {
    promptTokenCount: u.prompt,
    candidatesTokenCount: u.output - u.reasoning,
    totalTokenCount: u.prompt + u.output,
    ...(u.cached > 0 ? { cachedContentTokenCount: u.cached } : {}),
    ...(u.reasoning > 0 ? { thoughtsTokenCount: u.reasoning } : {}),
    promptTokensDetails: prompt.promptTokensDetails,
    ...(u.cached > 0 ? { cacheTokensDetails: [{ modality: 'TEXT', tokenCount: u.cached }] } : {}),
  };
}

/** Body `{contents}` or `{generateContentRequest:{model, contents, …}}`. */
function countTokens(ex: Exchange, body: unknown): void {
  const request: unknown = isObject(body) && isObject(body.generateContentRequest) ? body.generateContentRequest : body;
  if (!isObject(request) || !Array.isArray(request.contents))
    return geminiError(ex, 400, '* CountTokensRequest.contents: contents is not specified\n');
  const u = resolveUsage(ex.scenario, promptChars(request), 0);
  return sendJson(ex, 200, {
    totalTokens: u.prompt,
    ...(u.cached > 0 ? { cachedContentTokenCount: u.cached } : {}),
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: u.prompt }],
  });
}

function listModels(ex: Exchange, models: readonly string[], version: string, id: string | undefined): void {
  const shape = (name: string) => ({
    name: `models/${name}`,
    version: '001',
    displayName: name,
    description: `Mock model ${name}`,
    inputTokenLimit: 1_048_576,
    outputTokenLimit: 65_536,
    supportedGenerationMethods: ['generateContent', 'countTokens'],
    temperature: 1,
    topP: 0.95,
    topK: 64,
    maxTemperature: 2,
    thinking: true,
  });
  if (id === undefined) return sendJson(ex, 200, { models: models.map(shape) });
  if (models.includes(id)) return sendJson(ex, 200, shape(id));
  return geminiError(
    ex,
    404,
    `models/${id} is not found for API version ${version}, or is not supported for generateContent.`,
  );
}

/** `{error:{code,message,status}}`; a 429 with a numeric retry-after also carries Google's RetryInfo detail. */
export function geminiError(
  ex: Exchange,
  status: number,
  message: string,
  headers: Record<string, string> = {},
  details: Json[] = [],
): void {
  const retry = headers['retry-after'];
  if (status === 429 && retry !== undefined && /^\d+$/.test(retry)) {
    details = [...details, { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retry}s` }];
  }
  const body = { error: { code: status, message, status: grpcStatus(status), ...(details.length ? { details } : {}) } };
  writeWhole(ex, status, JSON.stringify(body), headers);
}

function grpcStatus(status: number): string {
  const known: Record<number, string> = {
    400: 'INVALID_ARGUMENT',
    401: 'UNAUTHENTICATED',
    402: 'RESOURCE_EXHAUSTED',
    403: 'PERMISSION_DENIED',
    404: 'NOT_FOUND',
    409: 'ABORTED',
    429: 'RESOURCE_EXHAUSTED',
    499: 'CANCELLED',
    500: 'INTERNAL',
    501: 'UNIMPLEMENTED',
    503: 'UNAVAILABLE',
    504: 'DEADLINE_EXCEEDED',
  };
  return known[status] ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION');
}

function parts(content: unknown): Json[] {
  return isObject(content) && Array.isArray(content.parts) ? content.parts.filter(isObject) : [];
}

function text(content: unknown): string {
  return parts(content)
    .map((p) => (typeof p.text === 'string' && p.thought !== true ? p.text : ''))
    .join('');
}

/** A functionResponse's `response` is an object; clients wrap a string result as `{output}` or `{result}`. */
function resultText(response: unknown): string {
  if (isObject(response)) {
    if (typeof response.output === 'string') return response.output;
    if (typeof response.result === 'string') return response.result;
  }
  return JSON.stringify(response ?? {});
}

/** Characters of all text in the prompt: system instruction, text parts, call arguments and results. */
function promptChars(request: Json): number {
  const partChars = (p: Json): number => {
    if (typeof p.text === 'string') return p.text.length;
    if (isObject(p.functionCall)) return JSON.stringify(p.functionCall.args ?? {}).length;
    if (isObject(p.functionResponse)) return resultText(p.functionResponse.response).length;
    return 0;
  };
  const contents: unknown[] = Array.isArray(request.contents) ? request.contents : [];
  return [request.systemInstruction, ...contents].reduce(
    (n: number, c) => n + parts(c).reduce((m, p) => m + partChars(p), 0),
    0,
  );
}
