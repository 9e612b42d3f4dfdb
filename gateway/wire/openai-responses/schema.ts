import { Type, type Static, type TSchema } from '@sinclair/typebox';

/**
 * The parts of a Responses request that Fastify checks before decode.ts reads the body. Every
 * object allows other properties: Codex sends fields the public API does not document
 * (`client_metadata`, `external_web_access` on web_search), and new OpenAI fields keep working.
 */
const open = { additionalProperties: true } as const;
const nullable = <T extends TSchema>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));

/** An input item: `type` is optional because the SDK's EasyInputMessage (`{role, content}`) has none. */
const Item = Type.Object({ type: Type.Optional(Type.String()) }, open);

export const ResponsesRequest = Type.Object(
  {
    model: Type.String({ minLength: 1 }),
    input: Type.Optional(Type.Union([Type.String(), Type.Array(Item)])),
    instructions: nullable(Type.String()),
    tools: nullable(Type.Array(Type.Object({ type: Type.String() }, open))),
    tool_choice: nullable(Type.Union([Type.String(), Type.Object({ type: Type.String() }, open)])),
    stream: nullable(Type.Boolean()),
    max_output_tokens: nullable(Type.Integer({ minimum: 1 })),
    reasoning: nullable(Type.Object({ effort: nullable(Type.String()), summary: nullable(Type.String()) }, open)),
    store: nullable(Type.Boolean()),
    previous_response_id: nullable(Type.String()),
    text: nullable(Type.Object({ format: Type.Optional(Type.Object({ type: Type.String() }, open)) }, open)),
    temperature: nullable(Type.Number({ minimum: 0 })),
    top_p: nullable(Type.Number({ minimum: 0, maximum: 1 })),
    parallel_tool_calls: nullable(Type.Boolean()),
    metadata: nullable(Type.Object({}, open)),
    user: Type.Optional(Type.String()),
    include: nullable(Type.Array(Type.String())),
  },
  open,
);
export type ResponsesRequest = Static<typeof ResponsesRequest>;

/** `POST /v1/responses/compact` (docs/protocols.md §3.1): the history to compact, and how it is to be read. */
export const ResponsesCompactRequest = Type.Object(
  {
    model: Type.String({ minLength: 1 }),
    input: Type.Optional(Type.Union([Type.String(), Type.Array(Item), Type.Null()])),
    instructions: nullable(Type.String()),
    previous_response_id: nullable(Type.String()),
  },
  open,
);
export type ResponsesCompactRequest = Static<typeof ResponsesCompactRequest>;
