/**
 * A form's errors at its fields: its body is checked against the contract's schema before it is
 * sent (lib/field-errors.ts), and a refusal from the gateway whose code belongs to a field is shown
 * at that field too; what no field owns goes to the form's footer. A field's error goes as soon as
 * the person edits that field.
 */
import { useCallback, useState } from 'react';
import type { Static, TObject } from '@sinclair/typebox';
import { AdminError } from '../lib/api.js';
import { fieldErrors, type FieldErrors, type FieldWords } from '../lib/field-errors.js';

/**
 * Which field a refusal of the gateway belongs to: by its error code (`{ name_taken: 'name' }`), or
 * a function that reads the refusal and gives its message per field (`form` for the footer's).
 */
export type ServerFields = Record<string, string> | ((error: unknown) => FieldErrors);

export interface FormErrors<S extends TObject> {
  /** Checks a body (and any problems the form found itself, such as an amount that is not one); true when it may be sent. */
  check(body: Record<string, unknown>, own?: FieldErrors): body is Static<S>;
  /** Shows the problems the form found itself, alone (the schema waits until there are none); true when there are none. */
  show(own: FieldErrors): boolean;
  /** The message at a field: the form's own check first, else the gateway's refusal if it is about this field. */
  at(field: string): string | undefined;
  /** The gateway's refusal when no field owns it (for the footer), else null. */
  rest: unknown;
  /** Clears a field's message (call it when the field changes). */
  clear(field: string): void;
  /** Forgets every message (a dialog that closes). */
  reset(): void;
}

function refusalAt(error: unknown, serverFields: ServerFields | undefined): FieldErrors {
  if (!error || !serverFields) return {};
  if (typeof serverFields === 'function') return serverFields(error);
  if (!(error instanceof AdminError)) return {};
  const field = serverFields[error.code];
  return field ? { [field]: error.message } : {};
}

export function useFormErrors<S extends TObject>(
  schema: S,
  words: Record<string, FieldWords>,
  opts: {
    /** The failed mutation's error. */
    error?: unknown;
    /** The gateway's refusals that belong to a field. */
    serverFields?: ServerFields;
    /** Where the form shows a body field's problem, when not at a field of that name (two body fields in one control). */
    placeOf?: (field: string) => string;
  } = {},
): FormErrors<S> {
  const [errors, setErrors] = useState<FieldErrors>({});
  const refused = refusalAt(opts.error, opts.serverFields);
  const owned = Object.keys(refused).length > 0;
  const clear = useCallback(
    (field: string) =>
      setErrors((old) => {
        if (old[field] === undefined) return old;
        const next = { ...old };
        delete next[field];
        return next;
      }),
    [],
  );
  const placed = (found: FieldErrors): FieldErrors => {
    if (!opts.placeOf) return found;
    const out: FieldErrors = {};
    for (const [field, message] of Object.entries(found)) out[opts.placeOf(field)] ??= message;
    return out;
  };
  return {
    check: (body, own = {}): body is Static<S> => {
      const found = { ...placed(fieldErrors(schema, body, words)), ...own };
      setErrors(found);
      return Object.keys(found).length === 0;
    },
    show: (own) => {
      setErrors(own);
      return Object.keys(own).length === 0;
    },
    at: (field) => errors[field] ?? refused[field],
    rest: owned ? null : (opts.error ?? null),
    clear,
    reset: () => setErrors({}),
  };
}
