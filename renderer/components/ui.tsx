import { cloneElement, isValidElement, useEffect, useMemo, useRef, type ReactNode } from 'react';
import { useShortcuts } from './shortcuts.js';
import { Usd } from './money.js';
import './ui.css';

export function PageHeader({
  title,
  children,
  subtitle,
}: {
  title: string;
  subtitle?: ReactNode;
  children?: ReactNode;
}) {
  useEffect(() => {
    document.title = `${title} · Tollgate`;
  }, [title]);
  return (
    <header className="page-header">
      <div>
        <h1>{title}</h1>
        {subtitle ? <p className="page-subtitle">{subtitle}</p> : null}
      </div>
      {children ? <div className="page-actions">{children}</div> : null}
    </header>
  );
}

export type Tone = 'ok' | 'warn' | 'bad' | 'muted' | 'info';

export function Badge({ tone, children }: { tone: Tone; children: ReactNode }) {
  return <span className={`badge badge-${tone}`}>{children}</span>;
}

/** Used against a cap, as a bar with the figures beside it; no cap reads "no quota". */
export function QuotaBar({ used, quota }: { used: number; quota: number | null }) {
  if (quota === null)
    return (
      <span className="muted">
        <Usd micro={used} /> · no quota
      </span>
    );
  const share = quota === 0 ? 1 : Math.min(1, used / quota);
  const tone = share >= 1 ? 'bad' : share >= 0.8 ? 'warn' : 'ok';
  return (
    <span className="quota">
      <span
        className="quota-track"
        role="meter"
        aria-valuemin={0}
        aria-valuemax={quota}
        aria-valuenow={Math.min(used, quota)}
        aria-label="Quota used"
      >
        <span className={`quota-fill quota-${tone}`} style={{ width: `${Math.round(share * 100)}%` }} />
      </span>
      <span className="quota-text">
        <Usd micro={used} /> / <Usd micro={quota} />
      </span>
    </span>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <p className="empty-title">{title}</p>
      {children ? <div className="empty-body">{children}</div> : null}
    </div>
  );
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p className="error-note" role="alert">
      {(error as Error).message}
    </p>
  );
}

/**
 * A labelled form field. `error`, when given, is shown under the control in words for a person and
 * the control is marked invalid and described by it: each error once, at its field.
 */
export function Field({
  label,
  hint,
  children,
  htmlFor,
  error,
}: {
  label: string;
  hint?: ReactNode;
  children: ReactNode;
  htmlFor: string;
  error?: string | null | undefined;
}) {
  const errorId = `${htmlFor}-error`;
  const control =
    error && isValidElement<Record<string, unknown>>(children)
      ? cloneElement(children, { 'aria-invalid': true, 'aria-describedby': errorId })
      : children;
  return (
    <div className={error ? 'field field-invalid' : 'field'}>
      <label htmlFor={htmlFor}>{label}</label>
      {control}
      {error ? (
        <p className="field-error" id={errorId} role="alert">
          {error}
        </p>
      ) : hint ? (
        <p className="field-hint">{hint}</p>
      ) : null}
    </div>
  );
}

/** An on/off switch with a visible state; a real checkbox underneath for keyboards and screen readers. */
export function Switch({
  checked,
  onChange,
  label,
  disabled,
}: {
  checked: boolean;
  onChange(v: boolean): void;
  label: string;
  disabled?: boolean;
}) {
  return (
    <label className="switch">
      <input
        type="checkbox"
        role="switch"
        checked={checked}
        disabled={disabled}
        aria-label={label}
        onChange={(e) => onChange(e.target.checked)}
      />
      <span className="switch-track" aria-hidden="true">
        <span className="switch-thumb" />
      </span>
    </label>
  );
}

/** The end of a dialog's form: what is wrong (checked here or refused by the gateway), Cancel, and the action. */
export function FormFooter({
  problem,
  error,
  onCancel,
  busy,
  submitLabel,
}: {
  problem?: string | null;
  error: unknown;
  onCancel(): void;
  busy: boolean;
  submitLabel: string;
}) {
  return (
    <>
      {problem ? (
        <p className="error-note" role="alert">
          {problem}
        </p>
      ) : null}
      <ErrorNote error={error} />
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="button button-primary" disabled={busy}>
          {submitLabel}
        </button>
      </div>
    </>
  );
}

/** A page's "create" button; the `n` key presses it too (while no field or dialog has the focus). */
export function NewButton({ label, onNew }: { label: string; onNew(): void }) {
  const latest = useRef(onNew);
  useEffect(() => {
    latest.current = onNew;
  });
  useShortcuts(useMemo(() => ({ n: () => latest.current() }), []));
  return (
    <button type="button" className="button button-primary" onClick={onNew}>
      {label} <kbd>n</kbd>
    </button>
  );
}
