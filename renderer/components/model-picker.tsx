/**
 * A list of catalogue models, picked rather than typed blind: an input that completes over the
 * catalogue's ids and adds one model at a time (`id=upstream-id` when a server names it otherwise),
 * the picked ones as removable chips, ids the catalogue lacks marked new. Lines and groups use it.
 */
import { useId, useState, type KeyboardEvent } from 'react';
import './model-picker.css';

/** A picked model: the catalogue id, and the server's id when it differs. */
export interface ModelPick {
  id: string;
  upstream?: string;
}

export function pickOf(text: string): ModelPick | null {
  const [id, upstream] = text
    .trim()
    .split('=', 2)
    .map((x) => x.trim()) as [string, string | undefined];
  if (!id) return null;
  return upstream && upstream !== id ? { id, upstream } : { id };
}

export function ModelPicker({
  picks,
  onChange,
  catalogue,
  inputId,
  invalid,
  placeholder,
}: {
  picks: ModelPick[];
  onChange(picks: ModelPick[]): void;
  catalogue: readonly string[];
  inputId: string;
  invalid?: boolean;
  placeholder?: string;
}) {
  const listId = useId();
  const [text, setText] = useState('');
  const known = new Set(catalogue);
  const add = (): void => {
    const p = pickOf(text);
    if (p && !picks.some((x) => x.id === p.id)) onChange([...picks, p]);
    setText('');
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>): void => {
    if (e.key === 'Enter' || e.key === ',') {
      e.preventDefault();
      add();
    } else if (e.key === 'Backspace' && text === '' && picks.length > 0) onChange(picks.slice(0, -1));
  };
  return (
    <div className="model-picker">
      {picks.length > 0 ? (
        <ul className="model-chips" aria-label="Models chosen">
          {picks.map((p) => (
            <li key={p.id} className={known.has(p.id) ? 'model-chip' : 'model-chip model-chip-new'}>
              <code>{p.id}</code>
              {p.upstream ? <span className="muted"> as {p.upstream}</span> : null}
              {known.has(p.id) ? null : <span className="model-new-tag">new</span>}
              <button
                type="button"
                className="icon-button"
                aria-label={`Remove ${p.id}`}
                onClick={() => onChange(picks.filter((x) => x.id !== p.id))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <div className="model-add">
        <input
          id={inputId}
          list={listId}
          className="mono"
          placeholder={placeholder ?? 'type a catalogue id, Enter to add (id=server-id to rename)'}
          value={text}
          aria-invalid={invalid || undefined}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKey}
          onBlur={() => text.trim() && add()}
        />
        <datalist id={listId}>
          {catalogue.map((id) => (
            <option key={id} value={id} />
          ))}
        </datalist>
      </div>
    </div>
  );
}
