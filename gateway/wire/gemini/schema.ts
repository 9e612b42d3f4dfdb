import { Type, type Static } from '@sinclair/typebox';

/**
 * The parts of a Gemini generateContent body that Fastify checks before decode.ts reads it. The
 * model is in the URL path (`/v1beta/models/{model}:generateContent`); the body may repeat it as
 * `models/…`. Every object allows other properties, so new Gemini fields keep working.
 */
const open = { additionalProperties: true } as const;

/** Parts vary too much (text, inlineData, functionCall, …) to check more than their being objects here. */
const Part = Type.Object({}, open);
const Content = Type.Object({ role: Type.Optional(Type.String()), parts: Type.Array(Part) }, open);

const FunctionCallingConfig = Type.Object(
  {
    mode: Type.Optional(Type.String()),
    allowedFunctionNames: Type.Optional(Type.Array(Type.String())),
  },
  open,
);

const GenerationConfig = Type.Object(
  {
    maxOutputTokens: Type.Optional(Type.Integer({ minimum: 1 })),
    temperature: Type.Optional(Type.Number({ minimum: 0 })),
    topP: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    topK: Type.Optional(Type.Number({ minimum: 0 })),
    candidateCount: Type.Optional(Type.Integer({ minimum: 1 })),
    stopSequences: Type.Optional(Type.Array(Type.String())),
    seed: Type.Optional(Type.Integer()),
    responseMimeType: Type.Optional(Type.String()),
    thinkingConfig: Type.Optional(
      Type.Object({ thinkingBudget: Type.Optional(Type.Integer({ minimum: -1 })), thinkingLevel: Type.Optional(Type.String()), includeThoughts: Type.Optional(Type.Boolean()) }, open),
    ),
  },
  open,
);

const fields = {
  contents: Type.Array(Content, { minItems: 1 }),
  /** `{parts:[{text}]}` (role optional); a bare string is accepted too, as the SDKs' helpers allow. */
  systemInstruction: Type.Optional(Type.Union([Type.String(), Type.Object({ parts: Type.Array(Part) }, open)])),
  tools: Type.Optional(Type.Array(Type.Object({}, open))),
  toolConfig: Type.Optional(Type.Object({ functionCallingConfig: Type.Optional(FunctionCallingConfig) }, open)),
  generationConfig: Type.Optional(GenerationConfig),
  safetySettings: Type.Optional(Type.Array(Type.Object({}, open))),
  cachedContent: Type.Optional(Type.String()),
  model: Type.Optional(Type.String()),
};

export const GenerateContentRequest = Type.Object(fields, open);
export type GenerateContentRequest = Static<typeof GenerateContentRequest>;

/** `POST /v1beta/models/{model}:countTokens`: `{contents}` or `{generateContentRequest:{model, contents, …}}`. */
export const CountTokensRequest = Type.Union([
  Type.Object({ contents: fields.contents }, open),
  Type.Object({ generateContentRequest: GenerateContentRequest }, open),
]);
export type CountTokensRequest = Static<typeof CountTokensRequest>;
