import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useToast } from './toast.js';

/**
 * A mutation that refreshes the given resources when it succeeds and reports failures as a toast
 * (the gateway's own message: it says what to do). A form that shows its errors at its fields says
 * `inline`: then no toast repeats them (or covers the dialog's buttons).
 */
export function useAction<A, R>(
  fn: (arg: A) => Promise<R>,
  invalidates: readonly QueryKey[],
  done?: (result: R, arg: A) => string | void,
  opts: { inline?: boolean } = {},
) {
  const qc = useQueryClient();
  const toast = useToast();
  return useMutation({
    mutationFn: fn,
    onSuccess: async (result, arg) => {
      await Promise.all(invalidates.map((queryKey) => qc.invalidateQueries({ queryKey })));
      const message = done?.(result, arg);
      if (message) toast.show(message);
    },
    onError: (err) => {
      if (!opts.inline) toast.show((err as Error).message, 'error');
    },
  });
}
