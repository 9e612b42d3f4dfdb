import { Type, type Static } from '@sinclair/typebox';

/**
 * The parts of a Messages request that Fastify checks before decode.ts reads the body. Every
 * object allows other properties, so new Anthropic fields and beta-only fields
 * (`context_management`, `output_config`, …) keep working.
 */
const open = { additionalProperties: true } as const;

const Block = Type.Object({ type: Type.String() }, open);
const Content = Type.Union([Type.String(), Type.Array(Block)]);

/** Claude Code sends `role:"system"` inside `messages` (its mid-conversation-system beta; docs/protocols.md §2). */
const Message = Type.Object(
  { role: Type.Union([Type.Literal('user'), Type.Literal('assistant'), Type.Literal('system')]), content: Content },
  open,
);

const System = Type.Union([
  Type.String(),
  Type.Array(Type.Object({ type: Type.Literal('text'), text: Type.String() }, open)),
]);

/** Custom tools carry `input_schema`; server tools (`web_search_20250305`, `bash_20250124`, …) carry a `type` instead. */
const Tool = Type.Object(
  {
    name: Type.String(),
    type: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    input_schema: Type.Optional(Type.Object({}, open)),
  },
  open,
);

const ToolChoice = Type.Object(
  {
    type: Type.Union([Type.Literal('auto'), Type.Literal('any'), Type.Literal('none'), Type.Literal('tool')]),
    name: Type.Optional(Type.String()),
    disable_parallel_tool_use: Type.Optional(Type.Boolean()),
  },
  open,
);

const Thinking = Type.Object({ type: Type.String(), budget_tokens: Type.Optional(Type.Integer({ minimum: 0 })) }, open);

const common = {
  model: Type.String({ minLength: 1 }),
  messages: Type.Array(Message, { minItems: 1 }),
  system: Type.Optional(System),
  tools: Type.Optional(Type.Array(Tool)),
  tool_choice: Type.Optional(ToolChoice),
  thinking: Type.Optional(Thinking),
  output_config: Type.Optional(Type.Object({ effort: Type.Optional(Type.Union([Type.String(), Type.Null()])) }, open)),
  metadata: Type.Optional(Type.Object({ user_id: Type.Optional(Type.Union([Type.String(), Type.Null()])) }, open)),
  stop_sequences: Type.Optional(Type.Array(Type.String())),
  temperature: Type.Optional(Type.Number({ minimum: 0 })),
  top_p: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  top_k: Type.Optional(Type.Integer({ minimum: 0 })),
};

export const MessagesRequest = Type.Object(
  {
    ...common,
    max_tokens: Type.Integer({ minimum: 1 }),
    stream: Type.Optional(Type.Boolean()),
  },
  open,
);
export type MessagesRequest = Static<typeof MessagesRequest>;

/** `POST /v1/messages/count_tokens`: the same body without `max_tokens` and `stream`. */
export const CountTokensRequest = Type.Object(common, open);
export type CountTokensRequest = Static<typeof CountTokensRequest>;
