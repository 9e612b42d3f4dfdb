import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import type { AdminClient } from '../contract/admin/index.js';
import { print } from './output.js';

/** The platform's own "open this URL" command. */
function browserCommand(url: string): [string, string[]] {
  if (process.platform === 'darwin') return ['open', [url]];
  // `start` is a cmd built-in; its first quoted argument is a window title.
  if (process.platform === 'win32') return ['cmd', ['/c', 'start', '""', url]];
  return ['xdg-open', [url]];
}

/** Best effort: a machine without a desktop still has the printed URL. */
function openInBrowser(url: string): void {
  const [cmd, args] = browserCommand(url);
  try {
    const child = spawn(cmd, args, { detached: true, stdio: 'ignore' });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // Nothing to do: the URL is printed.
  }
}

export function registerOpen(program: Command, client: () => AdminClient): void {
  program
    .command('open')
    .description('print a one-time login URL for the console (valid 2 minutes, single use) and open it in the browser')
    .option('--no-browser', 'only print the URL')
    .action(async (o: { browser: boolean }) => {
      const { url } = await client().call('createLoginCode');
      print(url);
      if (o.browser) openInBrowser(url);
    });
}
