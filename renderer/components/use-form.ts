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

export interface FormErrors<S extends TObject> {
  /** Checks a body (and any problems the form found itself, such as an amount that is not one); true when it may be sent. */
  check(body: Record<string, unknown>, own?: FieldErrors): body is Static<S>;
  /** The message at a field: the form's own check first, else the gateway's refusal if it is about this field. */
  at(field: string): string | undefined;
  /** The gateway's refusal when no field owns it (for the footer), else null. */
  rest: unknown;
  /** Clears a field's message (call it when the field changes). */
  clear(field: string): void;
  /** Forgets every message (a dialog that closes). */
  reset(): void;
}

export function useFormErrors<S extends TObject>(
  schema: S,
  words: Record<string, FieldWords>,
  opts: {
    /** The failed mutation's error. */
    error?: unknown;
    /** The gateway's error codes that belong to a field: `{ name_taken: 'name' }`. */
    serverFields?: Record<string, string>;
  } = {},
): FormErrors<S> {
  const [errors, setErrors] = useState<FieldErrors>({});
  const err = opts.error instanceof AdminError ? opts.error : null;
  const serverField = err ? opts.serverFields?.[err.code] : undefined;
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
  return {
    check: (body, own = {}): body is Static<S> => {
      const found = { ...fieldErrors(schema, body, words), ...own };
      setErrors(found);
      return Object.keys(found).length === 0;
    },
    at: (field) => errors[field] ?? (serverField === field ? err!.message : undefined),
    rest: serverField ? null : (opts.error ?? null),
    clear,
    reset: () => setErrors({}),
  };
}
