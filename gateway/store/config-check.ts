import { Type, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/*
 * The shape config.json must have for the gateway to run on it: the fields the code relies on,
 * with their types. Fields added later (and unknown ones) are allowed, so an older or newer build's
 * file passes as long as what is read is there. A record without its hash, or `keys` that is not a
 * list, would otherwise surface as a crash in the middle of a request, or as a key that no secret
 * matches any more.
 */
const Str = Type.String();
const Strings = Type.Array(Type.String());
const OptAmount = Type.Optional(Type.Integer({ minimum: 1 }));
const Key = Type.Object({
  id: Str,
  name: Str,
  hash: Str,
  last4: Str,
  group: Str,
  state: Type.Union([Type.Literal('enabled'), Type.Literal('disabled'), Type.Literal('deleted')]),
  quotaMicro: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
  // The session guards read these on every request (sessions/sessions.ts).
  sessionCapMicro: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
  budgets: Type.Optional(
    Type.Object(
      { '5h': OptAmount, '1d': OptAmount, '7d': OptAmount, '30d': OptAmount },
      { additionalProperties: false },
    ),
  ),
  loopLimit: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
  project: Type.Optional(Type.Union([Str, Type.Null()])),
  madeBy: Type.Optional(Type.Union([Str, Type.Null()])),
  spentWhenQuotaSetMicro: Type.Optional(Type.Integer({ minimum: 0 })),
});
const Line = Type.Object({ id: Str, name: Str, protocol: Str, baseUrl: Str, models: Strings });
const Group = Type.Object({ name: Str, multiplier: Str, models: Strings });
const Alias = Type.Object({ pattern: Str, model: Str });
// The user's catalogue entries: an entry whose figures cannot apply is left out of the catalogue and named by doctor (catalogue/user-models.ts).
const Prices = Type.Record(Str, Type.Number());
const CustomModel = Type.Object({ id: Str, prices: Prices });
const PriceOverride = Type.Object({ id: Str, prices: Prices });
const Config: TSchema = Type.Object({
  version: Type.Literal(1),
  keys: Type.Optional(Type.Array(Key)),
  lines: Type.Optional(Type.Array(Line)),
  groups: Type.Optional(Type.Array(Group)),
  aliases: Type.Optional(Type.Array(Alias)),
  models: Type.Optional(Type.Array(CustomModel)),
  priceOverrides: Type.Optional(Type.Array(PriceOverride)),
});

/** What is wrong with a parsed config.json (the first problem, with where it is), or undefined. */
export function configProblem(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    return 'not a Tollgate config: not a JSON object';
  if ((data as { version?: unknown }).version !== 1) return 'not a Tollgate config (version 1)';
  const first = Value.Errors(Config, data).First();
  if (!first) return undefined;
  const where = first.path
    .replace(/^\//, '')
    .replace(/\/(\d+)/g, '[$1]')
    .replace(/\//g, '.');
  return `${where || 'the file'}: ${first.message.toLowerCase()}`;
}
