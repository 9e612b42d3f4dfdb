import { useState } from 'react';
import { useToast } from './toast.js';

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
        navigator.clipboard.writeText(value).then(
          () => {
            setCopied(true);
            window.setTimeout(() => setCopied(false), 1500);
          },
          () => toast.show('The browser refused clipboard access; select the text and copy it by hand.', 'error'),
        );
      }}
    >
      {copied ? 'Copied' : label}
    </button>
  );
}
