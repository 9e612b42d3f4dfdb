import { useEffect, useState } from 'react';

export type ThemeChoice = 'system' | 'light' | 'dark';
const STORAGE = 'tollgate.theme';

function systemTheme(): 'light' | 'dark' {
  return window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

function apply(choice: ThemeChoice): void {
  document.documentElement.dataset.theme = choice === 'system' ? systemTheme() : choice;
}

/** Reads the saved choice (only the word light/dark/system is stored) before the first paint. */
export function initTheme(): void {
  apply(savedTheme());
}

function savedTheme(): ThemeChoice {
  const v = localStorage.getItem(STORAGE);
  return v === 'light' || v === 'dark' ? v : 'system';
}

/** Follows the OS unless the person picked light or dark; the choice survives reloads. */
export function useTheme(): [ThemeChoice, (t: ThemeChoice) => void] {
  const [choice, setChoice] = useState<ThemeChoice>(savedTheme);
  useEffect(() => {
    apply(choice);
    if (choice === 'system') localStorage.removeItem(STORAGE);
    else localStorage.setItem(STORAGE, choice);
    if (choice !== 'system') return;
    const mq = window.matchMedia('(prefers-color-scheme: dark)');
    const onChange = (): void => apply('system');
    mq.addEventListener('change', onChange);
    return () => mq.removeEventListener('change', onChange);
  }, [choice]);
  return [choice, setChoice];
}
