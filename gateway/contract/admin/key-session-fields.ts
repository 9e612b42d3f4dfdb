/**
 * A key's session fields (docs/sessions.md): its session cap, budget windows, loop limit and
 * project, as the key view shows them and key bodies set them. Apart from views.ts and
 * schemas.ts, which both use it, so that neither imports the other.
 */
import { Type, type Static, type TInteger, type TNull, type TOptional, type TUnion } from '@sinclair/typebox';
import { WINDOW_IDS, type BudgetWindow } from '../sessions.js';

/** $1,000,000,000, as for every amount the admin API takes. */
const MAX_MICRO = 1_000_000_000_000_000;
const Amount = Type.Integer({ minimum: 1, maximum: MAX_MICRO });
const OrNull = <T extends TInteger | ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

/** A key's budgets: micro-USD per window, for the windows it has (`5h`, `1d`, `7d`, `30d`). */
export const BudgetsView = Type.Object(
  Object.fromEntries(WINDOW_IDS.map((w) => [w, Type.Optional(Type.Integer())])) as Record<
    BudgetWindow,
    TOptional<TInteger>
  >,
);
export type BudgetsView = Static<typeof BudgetsView>;

/** What a key create or update may set about sessions; in an update, null clears a field (a budget window too). */
export const KeySessionFields = {
  sessionCapMicro: Type.Optional(OrNull(Amount)),
  budgets: Type.Optional(
    Type.Object(
      Object.fromEntries(WINDOW_IDS.map((w) => [w, Type.Optional(OrNull(Amount))])) as Record<
        BudgetWindow,
        TOptional<TUnion<[TInteger, TNull]>>
      >,
      { additionalProperties: false },
    ),
  ),
  /** The loop guard's K: the same tool round this many times in a row pauses the session; 0 turns it off. */
  loopLimit: Type.Optional(OrNull(Type.Integer({ minimum: 0, maximum: 1000 }))),
  project: Type.Optional(OrNull(Type.String({ minLength: 1, maxLength: 128 }))),
};
