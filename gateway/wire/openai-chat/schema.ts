import { Type, type Static } from '@sinclair/typebox';

/**
 * The parts of a Chat Completions request that Tollgate reads. Everything else is allowed and
 * passed on untouched (additionalProperties), so new OpenAI fields keep working.
 */
const Message = Type.Object(
  {
    role: Type.Union([
      Type.Literal('system'),
      Type.Literal('developer'),
      Type.Literal('user'),
      Type.Literal('assistant'),
      Type.Literal('tool'),
      Type.Literal('function'),
    ]),
    content: Type.Optional(Type.Union([Type.String(), Type.Null(), Type.Array(Type.Object({ type: Type.String() }))])),
  },
  { additionalProperties: true },
);

export const ChatRequest = Type.Object(
  {
    model: Type.String({ minLength: 1 }),
    messages: Type.Array(Message, { minItems: 1 }),
    stream: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    stream_options: Type.Optional(
      Type.Union([Type.Null(), Type.Object({ include_usage: Type.Optional(Type.Boolean()) })]),
    ),
    max_tokens: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
    max_completion_tokens: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
    tools: Type.Optional(Type.Array(Type.Object({ type: Type.String() }))),
  },
  { additionalProperties: true },
);
export type ChatRequest = Static<typeof ChatRequest>;
