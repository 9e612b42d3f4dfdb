/** `tollgate status`, `tollgate pause`, `tollgate resume`: the running gateway itself. */
import type { Command } from 'commander';
import type { AdminClient, StatusView } from '../contract/admin/index.js';
import { json, print } from './output.js';

function printStatus(s: StatusView): void {
  print(`Tollgate ${s.version} listening on ${s.url}`);
  print(`  Data dir: ${s.dataDir}`);
  print(
    s.paused ? '  Paused: model requests get 503 until "tollgate resume".' : '  Running: model requests are served.',
  );
}

export function registerGateway(program: Command, client: () => AdminClient): void {
  program
    .command('status')
    .description('the running gateway: version, URL, data dir, paused or not')
    .option('--json', 'machine-readable output')
    .action(async (o: { json?: boolean }) => {
      const s = await client().call('getStatus');
      if (o.json) return json(s);
      printStatus(s);
    });
  program
    .command('pause')
    .description('refuse model requests (503) until resumed; the admin API and console keep working; a restart resumes')
    .action(async () => {
      printStatus(await client().call('pauseGateway'));
    });
  program
    .command('resume')
    .description('serve model requests again after "tollgate pause"')
    .action(async () => {
      printStatus(await client().call('resumeGateway'));
    });
}
