/**
 * A form's body checked against the admin contract's own TypeBox schema before it is sent, each
 * problem put at its field in words for a person: the schema is the rule the gateway applies, so
 * what the console refuses and what the gateway refuses cannot drift apart. TypeBox says *what*
 * failed (a pattern, a minimum, a missing property); the words for each field say how a person
 * fixes it, since "must match ^\d+(\.\d{1,6})?$" helps nobody.
 *
 * A property whose schema TypeBox cannot check on its own (an `Unsafe` kind the server registers)
 * is left to the gateway, whose refusal the form still shows at its field.
 */
import { Errors, ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import type { TSchema } from '@sinclair/typebox';

/** Field key (a property, or `outer.inner` for a nested one; array items count as their array) → message. */
export type FieldErrors = Partial<Record<string, string>>;

export interface FieldWords {
  /** The field as its label names it, lower case: "note", "price multiplier". */
  label: string;
  /** What to say when it is missing or empty. */
  required?: string;
  /** What a valid value looks like, said when the pattern or format does not match. */
  pattern?: string;
  /** How a bound is shown (an amount in micro-USD shown in dollars, say). */
  bound?: (n: number) => string;
}

const capital = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** "/timeouts/connectMs" → "timeouts.connectMs"; "/models/2" → "models". */
function fieldOf(path: string): string {
  return path
    .split('/')
    .filter((seg) => seg !== '' && !/^\d+$/.test(seg))
    .join('.');
}

/** For a union (a nullable number, say), the error of its first branch that is not `null`. */
function unionBranch(e: ValueError): ValueError | undefined {
  for (const branch of e.errors) {
    const first = branch.First();
    if (first && first.type !== ValueErrorType.Null) return first;
  }
  return undefined;
}

export function describe(e: ValueError, w: FieldWords): string {
  const label = w.label;
  const s = e.schema as Record<string, unknown>;
  const bound = (n: unknown): string => (w.bound ? w.bound(Number(n)) : String(n));
  switch (e.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return w.required ?? `${capital(label)} is required.`;
    case ValueErrorType.StringMinLength:
      return s.minLength === 1
        ? (w.required ?? `${capital(label)} is required.`)
        : `${capital(label)} needs at least ${String(s.minLength)} characters.`;
    case ValueErrorType.StringMaxLength:
      return `${capital(label)} is too long: at most ${String(s.maxLength)} characters.`;
    case ValueErrorType.StringPattern:
    case ValueErrorType.StringFormat:
      return w.pattern ?? `${capital(label)} is not in a form the gateway accepts.`;
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum:
      return `${capital(label)} must be at least ${bound(s.minimum)}.`;
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMaximum:
      return `${capital(label)} must be at most ${bound(s.maximum)}.`;
    case ValueErrorType.Integer:
      return `${capital(label)} must be a whole number.`;
    case ValueErrorType.Number:
      return `${capital(label)} must be a number.`;
    case ValueErrorType.ArrayMinItems:
      return w.required ?? `Choose at least ${String(s.minItems)} for ${label}.`;
    case ValueErrorType.ArrayMaxItems:
      return `${capital(label)} takes at most ${String(s.maxItems)}.`;
    case ValueErrorType.Union: {
      const inner = unionBranch(e);
      return inner ? describe(inner, w) : `${capital(label)} is not valid.`;
    }
    default:
      return `${capital(label)} is not valid (${e.message.toLowerCase()}).`;
  }
}

/**
 * The problems of `value` against an object schema, at most one per field (the first). Fields
 * without words are named by their key; the form gives words for the fields it shows.
 */
export function fieldErrors(schema: TSchema, value: Record<string, unknown>, words: Record<string, FieldWords>) {
  const out: FieldErrors = {};
  const props = (schema as { properties?: Record<string, TSchema> }).properties ?? {};
  const required = new Set((schema as { required?: string[] }).required ?? []);
  const put = (field: string, e: ValueError): void => {
    if (out[field] !== undefined) return;
    out[field] = describe(e, words[field] ?? words[field.split('.')[0]!] ?? { label: field });
  };
  for (const [key, sub] of Object.entries(props)) {
    if (value[key] === undefined) {
      if (required.has(key))
        put(key, {
          type: ValueErrorType.ObjectRequiredProperty,
          schema: sub,
          path: `/${key}`,
          value: undefined,
          message: 'Expected required property',
          errors: [],
        });
      continue;
    }
    let found: ValueError[];
    try {
      found = [...Errors(sub, value[key])];
    } catch {
      // A kind only the server knows: its check is the gateway's.
      continue;
    }
    for (const e of found) put(fieldOf(`/${key}${e.path}`) || key, e);
  }
  return out;
}
