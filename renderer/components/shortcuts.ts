import { useEffect } from 'react';

const NOT_TEXT = new Set(['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color']);

/** True when a key press belongs to a text field, a select or an open dialog, not to the page. */
function typing(e: KeyboardEvent): boolean {
  const t = e.target as HTMLElement | null;
  if (!t) return false;
  if (t.closest('[role="dialog"]')) return true;
  const tag = t.tagName;
  // A checkbox, radio or switch takes no characters: page keys still work after clicking one.
  if (tag === 'INPUT') return !NOT_TEXT.has((t as HTMLInputElement).type);
  return tag === 'TEXTAREA' || tag === 'SELECT' || t.isContentEditable;
}

/**
 * Page-level single-key shortcuts ("1"…"8", "/", "n", "?"): ignored while typing, with a modifier
 * held, or while a dialog is open, so they never eat a character meant for a field.
 */
export function useShortcuts(map: Record<string, () => void>, enabled = true): void {
  useEffect(() => {
    if (!enabled) return;
    const onKey = (e: KeyboardEvent): void => {
      if (e.ctrlKey || e.metaKey || e.altKey || typing(e)) return;
      const fn = map[e.key];
      if (!fn) return;
      e.preventDefault();
      fn();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [map, enabled]);
}
