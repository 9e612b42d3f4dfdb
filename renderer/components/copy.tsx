import { useState } from 'react';
import { copyText } from '../lib/clipboard.js';
import { useToast } from './toast.js';

export const CLIPBOARD_REFUSED = 'The browser refused clipboard access; select the text and copy it by hand.';

/** Copies a value to the clipboard and says so; the value itself is never logged or stored. */
export function CopyButton({ value, label = 'Copy', what }: { value: string; label?: string; what?: string }) {
  const [copied, setCopied] = useState(false);
  const toast = useToast();
  return (
    <button
      type="button"
      className="button button-small"
      aria-label={what ? `Copy ${what}` : label}
      onClick={() => {
        copyText(value).then(
          () => {
            setCopied(true);
            window.setTimeout(() => setCopied(false), 1500);
          },
          () => toast.show(CLIPBOARD_REFUSED, 'error'),
        );
      }}
    >
      {copied ? 'Copied' : label}
    </button>
  );
}
