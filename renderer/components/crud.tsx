/**
 * The add, edit and remove scaffolding every list page of the console shares (models, groups,
 * lines, keys), so each page keeps only its fields:
 *
 * - `useCrud` holds which dialog is open (adding, the row being edited, the row being removed)
 *   and the remove action, whose success closes the confirmation and says so in a toast.
 * - `RemoveConfirm` is that confirmation; `ItemDialog` a dialog open while there is a row to edit,
 *   its form mounted afresh for each row.
 * - `useDialogForm` is a form's send: its body checked against the contract's schema with the
 *   problems at their fields (use-form.ts), then the admin call, the queries it changes refreshed,
 *   a toast when it is done, and a refusal shown once, at its field or in the footer (no toast
 *   that would cover the dialog's buttons).
 * - `DialogForm` is the form element with that footer: its problem, Cancel and the submit button.
 */
import { useState, type FormEvent, type ReactNode } from 'react';
import type { QueryKey } from '@tanstack/react-query';
import type { TObject } from '@sinclair/typebox';
import type { FieldErrors, FieldWords } from '../lib/field-errors.js';
import { Confirm, Dialog } from './dialog.js';
import { FormFooter } from './ui.js';
import { useAction } from './use-action.js';
import { useFormErrors, type FormErrors, type ServerFields } from './use-form.js';

export interface Crud<T> {
  adding: boolean;
  setAdding(open: boolean): void;
  editing: T | null;
  edit(item: T): void;
  closeEdit(): void;
  removing: T | null;
  askRemove(item: T): void;
  /** The remove confirmation's state and action, for `RemoveConfirm`. */
  remove: { open: boolean; close(): void; busy: boolean; confirm(): void };
}

/** Which of a page's dialogs is open, and its remove action (`call`, then refresh, then `done`'s toast). */
export function useCrud<T, R>(remove: {
  call(item: T): Promise<R>;
  invalidates: readonly QueryKey[];
  done(result: R, item: T): string;
}): Crud<T> {
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<T | null>(null);
  const [removing, setRemoving] = useState<T | null>(null);
  const action = useAction(remove.call, remove.invalidates, (result: R, item: T) => {
    setRemoving(null);
    return remove.done(result, item);
  });
  return {
    adding,
    setAdding,
    editing,
    edit: setEditing,
    closeEdit: () => setEditing(null),
    removing,
    askRemove: setRemoving,
    remove: {
      open: removing !== null,
      close: () => setRemoving(null),
      busy: action.isPending,
      confirm: () => {
        if (removing !== null) action.mutate(removing);
      },
    },
  };
}

/** "Remove …?" for the row `crud` is asked to remove; the safe button has the focus. */
export function RemoveConfirm<T>({
  crud,
  title,
  confirmLabel,
  children,
}: {
  crud: Crud<T>;
  title(item: T): string;
  confirmLabel: string;
  children: ReactNode | ((item: T) => ReactNode);
}) {
  const item = crud.removing;
  return (
    <Confirm
      open={crud.remove.open}
      onOpenChange={(o) => !o && crud.remove.close()}
      title={item === null ? '' : title(item)}
      confirmLabel={confirmLabel}
      busy={crud.remove.busy}
      onConfirm={crud.remove.confirm}
    >
      {typeof children === 'function' ? (item === null ? null : children(item)) : children}
    </Confirm>
  );
}

/** A dialog open while there is an `item` (the row being edited), its content made for that row. */
export function ItemDialog<T>({
  item,
  title,
  onClose,
  wide,
  children,
}: {
  item: T | null;
  title(item: T): string;
  onClose(): void;
  wide?: boolean;
  children(item: T): ReactNode;
}) {
  return (
    <Dialog open={item !== null} onOpenChange={(o) => !o && onClose()} title={item ? title(item) : ''} wide={wide}>
      {item !== null ? children(item) : null}
    </Dialog>
  );
}

export interface DialogFormState<S extends TObject, B, R> {
  errors: FormErrors<S>;
  busy: boolean;
  /**
   * Checks `checked` (the body unless said) with the form's own problems, and when all is well
   * sends `body`; `onSent` runs after the queries are refreshed.
   */
  submit(body: B, opts?: { own?: FieldErrors; checked?: Record<string, unknown>; onSent?: (result: R) => void }): void;
  /** Forgets the last refusal (another request of the form's is about to speak). */
  resetRefusal(): void;
}

export function useDialogForm<S extends TObject, B, R>(opts: {
  schema: S;
  words: Record<string, FieldWords>;
  serverFields?: ServerFields;
  placeOf?: (field: string) => string;
  /** Another refusal the form shows the same way (a request the form makes besides its send). */
  otherError?: unknown;
  send(body: B): Promise<R>;
  invalidates: readonly QueryKey[];
  /** The toast once it is done, if any. */
  done?: (result: R) => string | void;
}): DialogFormState<S, B, R> {
  const action = useAction(opts.send, opts.invalidates, opts.done, { inline: true });
  const errors = useFormErrors(opts.schema, opts.words, {
    error: action.error ?? opts.otherError,
    serverFields: opts.serverFields,
    placeOf: opts.placeOf,
  });
  return {
    errors,
    busy: action.isPending,
    submit: (body, { own, checked, onSent } = {}) => {
      if (!errors.check(checked ?? (body as Record<string, unknown>), own)) return;
      action.mutate(body, { onSuccess: onSent });
    },
    resetRefusal: () => action.reset(),
  };
}

/** A dialog's form: its fields, then the problem no field owns, Cancel and the submit button. */
export function DialogForm<S extends TObject>({
  errors,
  busy,
  onSubmit,
  onCancel,
  submitLabel,
  children,
}: {
  errors: FormErrors<S>;
  busy: boolean;
  onSubmit(): void;
  onCancel(): void;
  submitLabel: string;
  children: ReactNode;
}) {
  return (
    <form
      className="form"
      autoComplete="off"
      noValidate
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      {children}
      <FormFooter
        problem={errors.at('form')}
        error={errors.rest}
        onCancel={onCancel}
        busy={busy}
        submitLabel={submitLabel}
      />
    </form>
  );
}
