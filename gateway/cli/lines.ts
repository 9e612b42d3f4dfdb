import { type Command, InvalidArgumentError, Option } from 'commander';
import type { AddedModelView, AddModelsBody, AdminClient, UpdateLineBody } from '../contract/admin/index.js';
import { FORMATS, type FormatId } from '../contract/formats.js';
import { duration, int, list } from './args.js';
import { CliError } from './client.js';
import { duration as showDuration, perMillion, table } from './format.js';
import { lineFlagOptions, lineFlagsBody, type LineFlags } from './line-flags.js';
import { json, print } from './output.js';
import { newModelPricing, priceOptions } from './prices.js';

function integer(label: string) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n)) throw new InvalidArgumentError(`${label} must be an integer.`);
    return n;
  };
}

/** `ID` or `ID=UPSTREAM_ID` items → catalogue ids and the line's model map. */
function splitModels(items: string[]): { models: string[]; modelMap: Record<string, string> } {
  const models: string[] = [];
  const modelMap: Record<string, string> = {};
  for (const m of items) {
    const [id, upstreamId] = m.split('=', 2) as [string, string | undefined];
    models.push(id);
    if (upstreamId) modelMap[id] = upstreamId;
  }
  return { models, modelMap };
}

interface TimeoutFlags {
  connectTimeout?: number;
  firstByteTimeout?: number;
  nonStreamingFirstByteTimeout?: number;
  idleTimeout?: number;
  timeout?: number;
}

/** The timeout flags of add and update (docs/admin-api.md, Lines: what each one times). */
function timeoutOptions(cmd: Command): Command {
  return cmd
    .option(
      '--first-byte-timeout <duration>',
      'longest wait for the first bytes of a streamed answer before the next line is tried (default 45s); 1500ms, 30s, 2m, 1h',
      duration('--first-byte-timeout'),
    )
    .option(
      '--non-streaming-first-byte-timeout <duration>',
      'the same for a non-streaming answer, which starts only when all of it is written (default 5m)',
      duration('--non-streaming-first-byte-timeout'),
    )
    .option(
      '--idle-timeout <duration>',
      'longest silence in the middle of an answer (default 2m)',
      duration('--idle-timeout'),
    )
    .option('--timeout <duration>', 'longest one attempt may take in all (default 30m)', duration('--timeout'))
    .option(
      '--connect-timeout <duration>',
      'longest wait for the connection to the upstream (default 10s)',
      duration('--connect-timeout'),
    );
}

/** The timeouts the flags set, in the admin API's fields; undefined when no flag was given. */
function timeoutsFrom(o: TimeoutFlags): UpdateLineBody['timeouts'] {
  const t = {
    ...(o.connectTimeout !== undefined && { connectMs: o.connectTimeout }),
    ...(o.firstByteTimeout !== undefined && { firstByteMs: o.firstByteTimeout }),
    ...(o.nonStreamingFirstByteTimeout !== undefined && { nonStreamingFirstByteMs: o.nonStreamingFirstByteTimeout }),
    ...(o.idleTimeout !== undefined && { idleMs: o.idleTimeout }),
    ...(o.timeout !== undefined && { totalMs: o.timeout }),
  };
  return Object.keys(t).length > 0 ? t : undefined;
}

/** The upstream key from standard input (so it stays out of shell history and process lists). */
async function readKeyFromStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('Paste the API key, then press Enter and Ctrl-D:\n');
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  const key = text.replace(/\r?\n$/, '');
  if (!key.trim()) throw new CliError('No API key on standard input.');
  if (key !== key.trim()) throw new CliError('The API key on standard input has spaces around it.');
  return key;
}

export function registerLines(program: Command, client: () => AdminClient): void {
  const lines = program.command('lines').description('upstream lines (channels) that serve catalogue models');
  const add = lines
    .command('add')
    .description('add an upstream line: --preset NAME, or --name, --protocol, --base-url and --models')
    .option(
      '--preset <preset>',
      'a provider preset (tollgate presets list) that fills protocol, base URL, models and key variable',
    )
    .option('--name <name>', 'unique name (default: the preset name)')
    .addOption(new Option('--protocol <protocol>', 'upstream wire protocol').choices([...FORMATS]))
    .option('--base-url <url>', 'e.g. https://api.openai.com/v1')
    .option('--models <ids>', 'catalogue model ids it serves, comma-separated; ID=UPSTREAM_ID maps an id', list)
    .option('--api-key-stdin', 'read the upstream API key from standard input and keep it in the OS keychain')
    .option(
      '--api-key-env <var>',
      'environment variable holding the upstream API key, read at request time (for machines without a keychain)',
    )
    .option('--rpm <n>', 'requests-per-minute limit of this line', int('--rpm', 1))
    .option('--priority <n>', 'higher is tried first (default 0)', integer('--priority'))
    .option('--weight <n>', 'share of traffic among lines of equal priority (default 1)', int('--weight'));
  newModelOptions(timeoutOptions(lineFlagOptions(add, false))).action(
    async (
      o: NewModelFlags &
        LineFlags & {
          preset?: string;
          name?: string;
          protocol?: FormatId;
          baseUrl?: string;
          models?: string[];
          apiKeyStdin?: boolean;
          apiKeyEnv?: string;
          rpm?: number;
          priority?: number;
          weight?: number;
        } & TimeoutFlags,
    ) => {
      if (o.apiKeyStdin && o.apiKeyEnv) throw new CliError('Use --api-key-stdin or --api-key-env, not both.');
      if (!o.preset) {
        const missing = [
          !o.name && '--name',
          !o.protocol && '--protocol',
          !o.baseUrl && '--base-url',
          !o.models && '--models',
        ].filter(Boolean);
        if (missing.length > 0) throw new CliError(`lines add needs ${missing.join(', ')}, or --preset NAME.`);
      }
      const apiKey = o.apiKeyStdin ? await readKeyFromStdin() : undefined;
      // Fields left undefined are not sent (JSON has no undefined).
      const { line, addedModels, warnings } = await client().call('addLine', {
        body: {
          preset: o.preset,
          name: o.name,
          protocol: o.protocol,
          baseUrl: o.baseUrl,
          ...(o.models && splitModels(o.models)),
          apiKey,
          apiKeyEnv: o.apiKeyEnv,
          rpm: o.rpm ?? null,
          priority: o.priority,
          weight: o.weight,
          addModels: addModelsBody(o),
          timeouts: timeoutsFrom(o),
          ...lineFlagsBody(o),
        },
      });
      print(`Line "${line.name}" added: ${line.protocol} at ${line.baseUrl}, serving ${line.models.join(', ')}.`);
      if (line.apiKeySource === 'env')
        print(`  It reads its API key from $${line.apiKeyEnv} in the gateway's environment.`);
      printAdded(addedModels);
      printWarnings(warnings);
    },
  );
  program
    .command('presets')
    .description('provider presets for "lines add --preset"')
    .command('list')
    .option('--json', 'machine-readable output')
    .action(async (o: { json?: boolean }) => {
      const { presets } = await client().call('listPresets');
      if (o.json) return json(presets);
      print(
        table(
          ['PRESET', 'PROTOCOL', 'BASE URL', 'KEY VARIABLE', 'MODELS'],
          presets.map((p) => [p.id, p.protocol, p.baseUrl, p.apiKeyEnv ?? '-', String(p.models.length)]),
        ),
      );
    });
  lines
    .command('list')
    .option('--json', 'machine-readable output')
    .action(async (o: { json?: boolean }) => {
      const { lines: all } = await client().call('listLines');
      if (o.json) return json(all);
      print(
        table(
          [
            'NAME',
            'PROTOCOL',
            'BASE URL',
            'MODELS',
            'KEY FROM',
            'RPM',
            'PRIORITY',
            'WEIGHT',
            'FIRST BYTE',
            'IDLE',
            'TIMEOUT',
            'STATE',
          ],
          all.map((l) => [
            l.name,
            l.protocol,
            l.baseUrl,
            l.models.join(','),
            l.apiKeySource === 'keychain' ? 'keychain' : l.apiKeyEnv ? `$${l.apiKeyEnv}` : '-',
            l.rpm ?? '-',
            l.priority,
            l.weight,
            // Stream / non-streaming: the two first-byte timeouts.
            `${showDuration(l.effectiveTimeouts.firstByteMs)}/${showDuration(l.effectiveTimeouts.nonStreamingFirstByteMs)}`,
            showDuration(l.effectiveTimeouts.idleMs),
            showDuration(l.effectiveTimeouts.totalMs),
            !l.enabled
              ? 'disabled'
              : l.health.state !== 'closed'
                ? `${l.health.state} (${Math.ceil(l.health.waitMs / 1000)} s)`
                : l.health.lastTest?.ok === false
                  ? 'test failed'
                  : 'ok',
          ]),
        ),
      );
    });
  const update = lines
    .command('update <name>')
    .description("change a line's settings")
    .option('--base-url <url>', 'new base URL')
    .option('--models <ids>', 'replace the models it serves (ID or ID=UPSTREAM_ID, comma-separated)', list)
    .option('--api-key-stdin', 'replace the upstream API key (read from standard input, kept in the OS keychain)')
    .option('--api-key-env <var>', 'read the upstream API key from this environment variable instead')
    .option('--no-api-key', 'the upstream needs no key (local servers)')
    .option('--rpm <n>', 'requests-per-minute limit', int('--rpm', 1))
    .option('--priority <n>', 'priority', integer('--priority'))
    .option('--weight <n>', 'weight', int('--weight'))
    .option('--enable', 'take requests again')
    .option('--disable', 'stop sending requests to it');
  newModelOptions(timeoutOptions(lineFlagOptions(update, true))).action(
    async (
      name: string,
      o: NewModelFlags &
        LineFlags & {
          baseUrl?: string;
          models?: string[];
          apiKeyStdin?: boolean;
          apiKeyEnv?: string;
          apiKey?: boolean;
          rpm?: number;
          priority?: number;
          weight?: number;
          enable?: boolean;
          disable?: boolean;
        } & TimeoutFlags,
    ) => {
      if (o.enable && o.disable) throw new CliError('Use --enable or --disable, not both.');
      if ([o.apiKeyStdin, o.apiKeyEnv !== undefined, o.apiKey === false].filter(Boolean).length > 1) {
        throw new CliError('Use one of --api-key-stdin, --api-key-env and --no-api-key.');
      }
      const body: UpdateLineBody = {};
      if (o.apiKeyStdin) body.apiKey = await readKeyFromStdin();
      if (o.apiKey === false) body.apiKeyEnv = null;
      if (o.baseUrl !== undefined) body.baseUrl = o.baseUrl;
      if (o.models !== undefined) Object.assign(body, splitModels(o.models));
      if (o.apiKeyEnv !== undefined) body.apiKeyEnv = o.apiKeyEnv;
      if (o.rpm !== undefined) body.rpm = o.rpm;
      if (o.priority !== undefined) body.priority = o.priority;
      if (o.weight !== undefined) body.weight = o.weight;
      if (o.enable || o.disable) body.enabled = o.enable === true;
      const timeouts = timeoutsFrom(o);
      if (timeouts) body.timeouts = timeouts;
      const addModels = addModelsBody(o);
      if (addModels) body.addModels = addModels;
      // The API takes the line's whole quirk map: the flags change the one it has.
      const own = o.quirk ? (await client().call('listLines')).lines.find((l) => l.name === name)?.quirks : undefined;
      Object.assign(body, lineFlagsBody(o, own));
      const { line, addedModels, warnings } = await client().call('updateLine', { params: { name }, body });
      print(`Line "${line.name}" updated.`);
      printAdded(addedModels);
      printWarnings(warnings);
    },
  );
  lines
    .command('remove <name>')
    .description('delete a line (and its stored API key)')
    .action(async (name: string) => {
      await client().call('removeLine', { params: { name } });
      print(`Line "${name}" removed.`);
    });
  lines
    .command('test <name>')
    .description(
      "check that the line's upstream answers and accepts its credential (asks for its model list; costs nothing)",
    )
    .option('--json', 'machine-readable output')
    .action(async (name: string, o: { json?: boolean }) => {
      const r = await client().call('testLine', { params: { name } });
      if (o.json) json(r);
      else print(`${r.ok ? 'ok' : 'FAIL'}  ${name}: ${r.message} (${r.latencyMs} ms)`);
      if (!r.ok) process.exitCode = 1;
    });
  priceOptions(
    lines
      .command('models <name>')
      .description(
        'the model ids the upstream of a line offers; with --import, the line serves them all (ids the catalogue lacks are added to it)',
      )
      .option(
        '--import',
        "serve every listed id: new ones are added to the catalogue, priced by the upstream's list where it gives prices (OpenRouter), else by --free or the price flags",
      )
      .option('--free', 'price 0 for listed ids whose price the list does not give (the default for a local server)')
      .option('--only <ids>', 'with --import: only these listed ids, comma-separated', list)
      .option('--dry-run', 'with --import: show what would be added, write nothing'),
  )
    .option('--json', 'machine-readable output')
    .action(
      async (
        name: string,
        o: { import?: boolean; free?: boolean; only?: string[]; dryRun?: boolean; json?: boolean },
      ) => {
        if (!o.import) {
          if (o.free || o.only || o.dryRun || newModelPricing(o))
            throw new CliError('--free, --only, --dry-run and prices go with --import.');
          const { models } = await client().call('listLineModels', { params: { name } });
          if (o.json) return json(models);
          return print(models.join('\n'));
        }
        const pricing = newModelPricing(o);
        const r = await client().call('importLineModels', {
          params: { name },
          body: { ...pricing, ...(o.only ? { only: o.only } : {}), ...(o.dryRun ? { dryRun: true } : {}) },
        });
        if (o.json) return json(r);
        const verb = r.dryRun ? 'would serve' : 'now serves';
        print(
          r.served.length === 0
            ? `Line "${name}" already serves every model its upstream lists.`
            : `Line "${name}" ${verb} ${r.served.length} more: ${r.served.join(', ')}.`,
        );
        printAdded(r.added, r.dryRun);
        for (const s of r.skipped) print(`  skipped ${s.id}: ${s.reason}`);
      },
    );
}

interface NewModelFlags {
  addModels?: boolean;
  free?: boolean;
}

/** --add-models with prices or --free: how a line adds the ids the catalogue lacks. */
function newModelOptions(cmd: Command): Command {
  return priceOptions(
    cmd
      .option(
        '--add-models',
        'add the --models ids the catalogue lacks, with the price flags or --free (a local preset adds them free by default)',
      )
      .option('--free', 'with --add-models: price 0 for them'),
  );
}

function addModelsBody(o: NewModelFlags & object): AddModelsBody | undefined {
  const pricing = newModelPricing(o);
  if (o.addModels && !pricing)
    throw new CliError('--add-models needs prices (--input USD --output USD, per million tokens) or --free.');
  return pricing;
}

function printAdded(added: AddedModelView[], dryRun = false): void {
  if (added.length === 0) return;
  const free = added.filter((m) => m.priced === 'free');
  const rest = added.filter((m) => m.priced !== 'free');
  const verb = dryRun ? 'Would add' : 'Added';
  if (free.length > 0)
    print(
      `  ${verb} to the catalogue at price 0: ${free.map((m) => m.id).join(', ')}. Give them prices with "tollgate models update ID --input USD --output USD".`,
    );
  for (const m of rest) {
    print(
      `  ${verb} to the catalogue: ${m.id} at ${perMillion(m.prices.input)} input / ${perMillion(m.prices.output)} output per million tokens (${m.priced === 'listed' ? "the upstream's list price" : 'your prices'}).`,
    );
  }
}

/** What will keep a saved line from working (an unset key variable), on stderr. */
function printWarnings(warnings: string[] | undefined): void {
  for (const w of warnings ?? []) process.stderr.write(`Warning: ${w}\n`);
}
