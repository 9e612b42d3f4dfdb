/** The `tollgate` command: every subcommand, run by the entry point main.ts. */
import { Command, Option } from 'commander';
import { type AdminClient, AdminError, type DoctorReport, type WalletView } from '../contract/admin/index.js';
import { isLoopbackHost } from '../contract/loopback.js';
import { parseUsd, usd, usdCost } from '../contract/money.js';
import { LISTED_BUCKETS, USAGE_BUCKETS } from '../contract/usage-buckets.js';
import { defaultDataDir } from '../core/paths.js';
import { runningGateway } from '../runtime.js';
import { VERSION } from '../version.js';
import { CliError, cliMessage, clientForDataDir } from './client.js';
import { amount, int, list, multiplier } from './args.js';
import { registerAliases } from './aliases.js';
import { registerConnect } from './connect.js';
import { registerGateway } from './gateway.js';
import { registerLines } from './lines.js';
import { registerOpen } from './open.js';
import { registerSettings } from './settings.js';
import { registerModels } from './models.js';
import {
  keySessionBody,
  keySessionCells,
  keySessionOptions,
  registerSessions,
  type KeySessionFlags,
} from './sessions.js';
import { json, print } from './output.js';
import { printable, table, utcTime, withUsd } from './format.js';

const program = new Command('tollgate')
  .description('Tollgate: a local model gateway with keys, a wallet and a usage log.')
  .version(VERSION)
  .addOption(new Option('--data-dir <dir>', 'data directory (default: $TOLLGATE_DATA_DIR or the OS app-data folder)'))
  .showHelpAfterError();

function dataDir(): string {
  return (program.opts() as { dataDir?: string }).dataDir ?? defaultDataDir();
}

function client(): AdminClient {
  return clientForDataDir(dataDir());
}

program
  .command('serve')
  .description('run the gateway (default http://127.0.0.1:4141, or the port and host of the settings)')
  .option('--port <n>', 'port (default: the port setting, 4141 unless changed)', int('--port', 0, 65535))
  .option(
    '--host <host>',
    'address to bind (default: the host setting, 127.0.0.1 unless changed): loopback (127.0.0.1, ::1, localhost) unless --lan',
  )
  .option(
    '--lan',
    'allow a --host other machines can reach (0.0.0.0, a LAN address): they can then use the model API with a key',
  )
  .option(
    '--body-limit <MB>',
    'largest model request body in MB (default 32, what upstream APIs accept)',
    int('--body-limit', 1),
  )
  .option('--data-dir <dir>', 'data directory')
  .action(async (o: { port?: number; host?: string; lan?: boolean; bodyLimit?: number; dataDir?: string }) => {
    // A host from the settings was confirmed in the console; one given here needs --lan to leave loopback.
    if (o.host !== undefined && !isLoopbackHost(o.host) && !o.lan) {
      throw new CliError(
        `--host ${o.host} would let other machines on your network reach the gateway. Add --lan if that is what you want; the admin API stays loopback-only either way.`,
      );
    }
    const dir = o.dataDir ?? dataDir();
    // Loaded here: every other command is an admin-API client and starts faster without the server.
    const { serve } = await import('../serve.js');
    const running = await serve({
      releaseStartupMemory: true,
      dataDir: dir,
      host: o.host,
      port: o.port,
      ...(o.bodyLimit !== undefined && { bodyLimitBytes: Math.round(o.bodyLimit * 1024 * 1024) }),
    });
    print(`Tollgate ${VERSION} listening on ${running.url}`);
    print(`  OpenAI-compatible base URL: ${running.url}/v1`);
    print(`  Data dir: ${dir}`);
    print(`  Console (one-time login link, 2 minutes; "tollgate open" prints a new one): ${running.loginUrl()}`);
    if (!isLoopbackHost(running.host)) {
      print(
        `  WARNING: bound to ${running.host}: other machines on your network can reach the model API (keys are still required; the admin API stays loopback-only).`,
      );
    }
    const stop = (): void => {
      void running.close().then(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });

const keys = program.command('keys').description('API keys (sk-…) for clients');
keySessionOptions(
  keys
    .command('create [name]')
    .description('create a key; prints the secret, which is shown only this once')
    .option('--name <name>', 'unique name, e.g. the device or project (or give it as the argument)')
    .option('--group <group>', 'group deciding which models the key may use', 'default')
    .option('--quota <usd>', 'spending cap for this key in USD', amount)
    .option('--expires <time>', 'expiry as an ISO date-time, e.g. 2027-01-01T00:00:00Z')
    .option('--rpm <n>', 'requests per minute allowed for this key', int('--rpm', 1))
    .option('--max-concurrent <n>', 'requests in flight allowed for this key', int('--max-concurrent', 1)),
).action(
  async (
    arg: string | undefined,
    o: KeySessionFlags & {
      name?: string;
      group: string;
      quota?: number;
      expires?: string;
      rpm?: number;
      maxConcurrent?: number;
    },
  ) => {
    const name = arg ?? o.name;
    if (name === undefined) throw new CliError('Name the key: tollgate keys create NAME.');
    if (arg !== undefined && o.name !== undefined && arg !== o.name)
      throw new CliError(`Two names given: "${arg}" and --name "${o.name}".`);
    let expiresAt: string | undefined;
    if (o.expires !== undefined) {
      const t = Date.parse(o.expires);
      if (Number.isNaN(t)) throw new CliError(`--expires: "${o.expires}" is not a date-time.`);
      expiresAt = new Date(t).toISOString();
    }
    const created = await client().call('createKey', {
      body: {
        name,
        group: o.group,
        quotaMicro: o.quota ?? null,
        expiresAt: expiresAt ?? null,
        rpm: o.rpm ?? null,
        maxConcurrent: o.maxConcurrent ?? null,
        ...keySessionBody(o),
      },
    });
    print(created.secret);
    process.stderr.write(
      `Key "${created.key.name}" created in group "${created.key.group}". Copy the secret now: it is not shown again.\n`,
    );
  },
);
keys
  .command('list')
  .description('every key with its state, spend, last use and guards (the secret is never shown)')
  .option('--json', 'machine-readable output (amounts also as micro-USD integers)')
  .action(async (o: { json?: boolean }) => {
    const api = client();
    const [{ keys: all }, usage] = await Promise.all([api.call('listKeys'), api.call('getKeyUsage', { query: {} })]);
    const byName = new Map(usage.keys.map((u) => [u.name, u]));
    const rows = all.map((k) => {
      const u = byName.get(k.name);
      return { ...k, lastUsedAt: u?.lastUsedAt ?? null, last30DaysMicro: u?.costMicro ?? 0 };
    });
    if (o.json) return json(rows.map(withUsd));
    print(
      table(
        [
          'NAME',
          'GROUP',
          'STATE',
          'KEY',
          'USED',
          '30 DAYS',
          'LAST USED (UTC)',
          'QUOTA',
          'EXPIRES',
          'SESSION CAP',
          'BUDGETS',
          'LOOP LIMIT',
          'PROJECT',
          'MADE BY',
        ],
        rows.map((k) => [
          k.name,
          k.group,
          k.state,
          `sk-…${k.last4}`,
          usd(k.usedMicro),
          usd(k.last30DaysMicro),
          k.lastUsedAt === null ? 'never' : utcTime(k.lastUsedAt),
          k.quotaMicro === null ? '-' : usd(k.quotaMicro),
          k.expiresAt ?? '-',
          ...keySessionCells(k),
          k.madeBy ?? '-',
        ]),
      ),
    );
  });
keySessionOptions(
  keys
    .command('update <name>')
    .description("change a key's group, quota, limits or session guards; what is not given stays")
    .option('--group <group>', 'group deciding which models the key may use')
    .option('--quota <usd>', 'spending cap for this key in USD', amount)
    .option('--rpm <n>', 'requests per minute allowed for this key', int('--rpm', 1))
    .option('--max-concurrent <n>', 'requests in flight allowed for this key', int('--max-concurrent', 1)),
).action(
  async (
    name: string,
    o: KeySessionFlags & { group?: string; quota?: number; rpm?: number; maxConcurrent?: number },
  ) => {
    const { key } = await client().call('updateKey', {
      params: { name },
      body: {
        ...(o.group !== undefined ? { group: o.group } : {}),
        ...(o.quota !== undefined ? { quotaMicro: o.quota } : {}),
        ...(o.rpm !== undefined ? { rpm: o.rpm } : {}),
        ...(o.maxConcurrent !== undefined ? { maxConcurrent: o.maxConcurrent } : {}),
        ...keySessionBody(o),
      },
    });
    const [cap, budgets, loop, project] = keySessionCells(key);
    print(`Key "${key.name}" updated: session cap ${cap}, budgets ${budgets}, loop limit ${loop}, project ${project}.`);
  },
);
for (const [verb, done, route] of [
  ['disable', 'disabled', 'disableKey'],
  ['enable', 'enabled', 'enableKey'],
  ['delete', 'deleted', 'deleteKey'],
] as const) {
  keys
    .command(`${verb} <name>`)
    .description(`${verb} a key`)
    .action(async (name: string) => {
      await client().call(route, { params: { name } });
      print(`Key "${name}" ${done}.`);
    });
}

const walletCmd = program.command('wallet').description('the local wallet that requests are billed against');
function printWallet(w: WalletView): void {
  print(`Balance:   ${usd(w.balanceMicro)}`);
  print(`Held:      ${usd(w.heldMicro)} (requests in flight)`);
  print(`Top-ups:   ${usd(w.topupsMicro)}`);
  if (w.adjustmentsMicro !== 0) print(`Adjusted:  ${usd(w.adjustmentsMicro)}`);
  print(`Spent:     ${usd(w.spentMicro)}`);
}
walletCmd
  .command('show')
  .option('--json', 'machine-readable output (amounts also as micro-USD integers)')
  .action(async (o: { json?: boolean }) => {
    const w = await client().call('getWallet');
    if (o.json) return json(withUsd(w));
    printWallet(w);
  });
walletCmd
  .command('topup <usd>')
  .description('add USD to the wallet, e.g. "tollgate wallet topup 10"')
  .action(async (value: string) => {
    // A RangeError saying what is wrong with the amount is printed as it is.
    const micro = parseUsd(value);
    if (micro <= 0) throw new CliError('The amount must be more than 0.');
    const w = await client().call('topUp', { body: { amountMicro: micro } });
    print(`Added ${usd(micro)}.`);
    printWallet(w);
  });

walletCmd
  .command('adjust <usd>')
  .description(
    'correct the balance by a signed amount, with a note saying why, e.g. \'tollgate wallet adjust -2.50 --note "refund counted twice"\'',
  )
  .requiredOption('--note <text>', 'why (required; kept with the transaction)')
  .action(async (value: string, o: { note: string }) => {
    const micro = parseUsd(value, { signed: true });
    if (micro === 0) throw new CliError('The amount must not be 0.');
    if (o.note.trim() === '') throw new CliError('--note must say why.');
    const w = await client().call('adjustWallet', { body: { amountMicro: micro, note: o.note } });
    print(`Adjusted by ${usd(micro)}.`);
    printWallet(w);
  });

registerGateway(program, client);
registerLines(program, client);
registerAliases(program, client);
registerConnect(program, client);
registerOpen(program, client);
registerSettings(program, client);

registerModels(program, client);
registerSessions(program, client);

const groups = program.command('groups').description('key groups: which models, at what multiplier');
groups
  .command('list')
  .option('--json', 'machine-readable output')
  .action(async (o: { json?: boolean }) => {
    const { groups: all } = await client().call('listGroups');
    if (o.json) return json(all);
    print(
      table(
        ['GROUP', 'MULTIPLIER', 'MODELS'],
        all.map((g) => [g.name, g.multiplier, g.models.includes('*') ? 'all' : g.models.join(',')]),
      ),
    );
  });
groups
  .command('add <name>')
  .option('--multiplier <x>', 'price multiplier, e.g. 1.2', multiplier, '1')
  .option('--models <ids>', 'model ids the group may use, comma-separated (default: all)', list)
  .action(async (name: string, o: { multiplier: string; models?: string[] }) => {
    const { group } = await client().call('addGroup', {
      body: { name, multiplier: o.multiplier, ...(o.models ? { models: o.models } : {}) },
    });
    print(
      `Group "${group.name}" added: multiplier ${group.multiplier}, models ${group.models.includes('*') ? 'all' : group.models.join(',')}.`,
    );
  });

interface LogFlags {
  key?: string;
  model?: string;
  session?: string;
  tool?: string;
  project?: string;
  limit: number;
  explain?: boolean;
  json?: boolean;
}

/** The usage buckets `tollgate logs` has a column for (contract/usage-buckets.ts), in listed order. */
const LOG_BUCKETS = LISTED_BUCKETS.flatMap((k) => {
  const header = USAGE_BUCKETS[k].cli;
  return header === null ? [] : [{ header, k }];
});

program
  .command('logs')
  .description('the usage log, newest first')
  .option('--key <name>', 'only this key')
  .option('--model <id>', 'only this model')
  .option('--session <id>', 'only this agent session')
  .option('--tool <tool>', 'only this tool: claude-code, codex, gemini-cli, opencode, openai-sdk, …')
  .option('--project <label>', 'only this project')
  .option('--limit <n>', 'rows (default 50, at most 1000)', int('--limit', 1), 50)
  .option('--explain', "each row's cost worked out: tokens × the price it was billed at, × the group's multiplier")
  .option('--json', 'machine-readable output (costs also as micro-USD integers)')
  .action(async (o: LogFlags) => {
    const { entries } = await client().call('listLogs', {
      query: {
        limit: o.limit,
        ...(o.key ? { key: o.key } : {}),
        ...(o.model ? { model: o.model } : {}),
        ...(o.session ? { session: o.session } : {}),
        ...(o.tool ? { tool: o.tool } : {}),
        ...(o.project ? { project: o.project } : {}),
      },
    });
    if (o.json) return json(entries.map(withUsd));
    if (o.explain) {
      for (const e of entries)
        print(
          `#${e.id} ${e.model ?? '-'} ${usdCost(e.costMicro)}: ${e.breakdown?.formula ?? (e.servedModel ? 'no price snapshot (logged before prices were kept with each row)' : 'not billed')}`,
        );
      return;
    }
    print(
      table(
        ['TIME', 'KEY', 'MODEL', 'STATUS', ...LOG_BUCKETS.map((b) => b.header), 'COST', 'LATENCY', 'ERROR'],
        entries.map((e) => [
          utcTime(e.ts),
          e.keyName ?? '-',
          e.model ?? '-',
          e.status,
          ...LOG_BUCKETS.map((b) => e.usage[b.k]),
          usdCost(e.costMicro),
          `${e.latencyMs} ms`,
          e.errorCode ?? '',
        ]),
      ),
    );
  });

program
  .command('doctor')
  .description('check the config and the ledger invariant; exits non-zero on a problem')
  .option('--json', 'machine-readable output')
  .action(async (o: { json?: boolean }) => {
    const dir = dataDir();
    let report: DoctorReport;
    // Whether a gateway runs is the data dir's lock, never the hint file alone (runtime.ts).
    if (runningGateway(dir)) {
      report = await client().call('runDoctor');
    } else {
      // No gateway running: open the data dir here, holding its lock so none starts meanwhile.
      const [{ openGateway }, { doctor: runDoctor }] = await Promise.all([
        import('../compose/gateway.js'),
        import('../operations/doctor.js'),
      ]);
      const g = await openGateway(dir);
      try {
        report = await runDoctor(g);
      } finally {
        await g.close();
      }
    }
    if (o.json) json(report);
    else for (const c of report.checks) print(`${!c.ok ? 'FAIL' : c.warn ? 'warn' : 'ok  '}  ${c.name}: ${c.detail}`);
    if (!report.ok) process.exitCode = 1;
  });

/**
 * Every failure is one line on stderr and exit code 1: the message, never a stack trace (set
 * TOLLGATE_DEBUG=1 to see one). Messages can carry what clients sent, so they are made printable.
 */
program.parseAsync(process.argv).catch((err: unknown) => {
  const e = err instanceof Error ? err : new Error(String(err));
  let message: string;
  if (err instanceof AdminError) message = cliMessage(err);
  else if (
    err instanceof CliError ||
    ['ConfigError', 'DataDirBusyError', 'DataDirError', 'ListenError'].includes(e.name) ||
    err instanceof RangeError
  )
    message = e.message;
  else message = `${e.message} (an unexpected error; run with TOLLGATE_DEBUG=1 to see where it came from)`;
  process.stderr.write(`tollgate: ${printable(message)}\n`);
  if (process.env.TOLLGATE_DEBUG) process.stderr.write(`${e.stack ?? ''}\n`);
  process.exit(1);
});
