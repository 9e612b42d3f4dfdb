import { readFileSync } from 'node:fs';
import { type Command, Option } from 'commander';
import type { AdminClient, ModelView, PriceImportView, UpdateModelBody } from '../contract/admin/index.js';
import { FORMATS, type FormatId } from '../contract/formats.js';
import { PRICE_KEYS } from '../contract/prices.js';
import { int, list } from './args.js';
import { CliError } from './client.js';
import { perMillion, table } from './format.js';
import { confirm, json, print } from './output.js';
import { kinds, priceFlag, priceOptions, pricesFrom } from './prices.js';

const REACH: Record<FormatId, string> = {
  'openai-chat': 'CHAT',
  anthropic: 'MESSAGES',
  'openai-responses': 'RESPONSES',
  gemini: 'GEMINI',
};

function status(m: ModelView): string {
  if (m.status === 'active') return 'active';
  return `${m.status} ${m.retires ?? ''}${m.replacement ? ` → ${m.replacement}` : ''}`;
}

/** A price, starred where it is the user's own over a preset model's. */
function price(m: ModelView, k: 'input' | 'output' | 'cacheRead' | 'cacheWrite'): string {
  const own = m.presetPrices !== null && m.presetPrices[k] !== m.prices[k];
  return `${perMillion(m.prices[k])}${own ? '*' : ''}`;
}

function describe(m: ModelView): string {
  const p = PRICE_KEYS.filter((k) => m.prices[k] !== undefined).map(
    (k) => `${priceFlag(k)} ${perMillion(m.prices[k])}`,
  );
  return `${m.id} (${m.vendor}, ${m.origin}): ${p.join(', ')} per million tokens`;
}

const toolOptions = (cmd: Command): Command =>
  cmd
    .option('--vendor <name>', 'who makes or sells it (default: custom)')
    .option('--name <text>', 'display name (default: the id)')
    .option('--context <tokens>', 'context window in tokens (default 128000)', int('--context', 1))
    .option(
      '--max-output <tokens>',
      'most output tokens one request may produce; bounds what a request reserves (default: the context window)',
      int('--max-output', 1),
    )
    .option('--protocols <ids>', `protocols its vendor's API speaks (${FORMATS.join(', ')}; default openai-chat)`, list)
    .option('--retires <date>', 'YYYY-MM-DD from which requests for it are refused')
    .option('--replacement <id>', 'the model a refused request is told to use');

interface ModelFlags {
  vendor?: string;
  name?: string;
  context?: number;
  maxOutput?: number;
  protocols?: string[];
  retires?: string;
  replacement?: string;
}

function fields(o: ModelFlags): Omit<UpdateModelBody, 'prices'> {
  return {
    ...(o.vendor !== undefined ? { vendor: o.vendor } : {}),
    ...(o.name !== undefined ? { displayName: o.name } : {}),
    ...(o.context !== undefined ? { contextWindow: o.context } : {}),
    ...(o.maxOutput !== undefined ? { maxOutputTokens: o.maxOutput } : {}),
    ...(o.protocols !== undefined ? { nativeProtocols: o.protocols as FormatId[] } : {}),
    ...(o.retires !== undefined ? { retires: o.retires } : {}),
    ...(o.replacement !== undefined ? { replacement: o.replacement } : {}),
  };
}

function printPlan(plan: PriceImportView): void {
  if (plan.changes.length > 0) {
    print('Prices are USD per million tokens.');
    print(
      table(
        ['MODEL', 'KIND', 'NOW', 'NEW', 'FROM ENTRY'],
        plan.changes.flatMap((c) =>
          c.prices.map((p) => [
            c.id,
            priceFlag(p.kind as (typeof PRICE_KEYS)[number]),
            perMillion(p.from),
            `${perMillion(p.to)}${p.exact ? '' : ' (rounded up)'}`,
            c.entry,
          ]),
        ),
      ),
    );
  }
  for (const s of plan.skipped) print(`skipped ${s.id} (entry ${s.entry}): ${s.reason}`);
  print(
    `${plan.changes.length} model${plan.changes.length === 1 ? '' : 's'} would change, ${plan.unchanged.length} already priced so, ${plan.unmatched.length} not in the file (of ${plan.entries} entries).`,
  );
}

export function registerModels(program: Command, client: () => AdminClient): void {
  const models = program
    .command('models')
    .description('the model catalogue: presets and your own models, prices per million tokens');

  models
    .command('list')
    .description('the model square: prices, lines, and how each client protocol reaches each model')
    .option('--search <words>', 'words that must all appear in the id, name or vendor')
    .option('--vendor <name>', 'only this vendor')
    .addOption(
      new Option('--protocol <id>', 'only models a client of this protocol reaches without translation').choices([
        ...FORMATS,
      ]),
    )
    .option('--served', 'only models an enabled line serves')
    .option('--unserved', 'only models no enabled line serves')
    .option('--group <name>', 'only models the keys of this group may use')
    .addOption(
      new Option(
        '--status <status>',
        'only active, retiring or retired models (retired also lists shut-down ids)',
      ).choices(['active', 'retiring', 'retired']),
    )
    .option('--custom', 'only your own models')
    .option('--json', 'machine-readable output: the models (prices in micro-USD per million tokens)')
    .action(
      async (o: {
        search?: string;
        vendor?: string;
        protocol?: FormatId;
        served?: boolean;
        unserved?: boolean;
        group?: string;
        status?: 'active' | 'retiring' | 'retired';
        custom?: boolean;
        json?: boolean;
      }) => {
        if (o.served && o.unserved) throw new CliError('Use --served or --unserved, not both.');
        const query = {
          ...(o.search !== undefined ? { q: o.search } : {}),
          ...(o.vendor !== undefined ? { vendor: o.vendor } : {}),
          ...(o.protocol !== undefined ? { protocol: o.protocol } : {}),
          ...(o.served || o.unserved ? { served: o.served === true } : {}),
          ...(o.group !== undefined ? { group: o.group } : {}),
          ...(o.status !== undefined ? { status: o.status } : {}),
          ...(o.custom ? { origin: 'custom' as const } : {}),
        };
        const listed = await client().call('listModels', { query });
        // The models alone, as this command always printed; the shut-down ids are in the table with --status retired, and in GET /api/models.
        if (o.json) return json(listed.models);
        print(
          "Prices are USD per million tokens; * marks your price over the preset's. Protocol columns: how a client of it reaches the model.",
        );
        print(
          table(
            [
              'MODEL',
              'VENDOR',
              'INPUT',
              'OUTPUT',
              'CACHE READ',
              'CACHE WRITE',
              'STATUS',
              'LINES',
              ...FORMATS.map((f) => REACH[f]),
            ],
            listed.models.map((m) => [
              m.id,
              m.vendor,
              price(m, 'input'),
              price(m, 'output'),
              price(m, 'cacheRead'),
              price(m, 'cacheWrite'),
              status(m),
              m.lines.join(',') || '-',
              ...FORMATS.map((f) => (m.access[f] === 'unavailable' ? '-' : m.access[f])),
            ]),
          ),
        );
        if (o.status === 'retired' && listed.retired.length > 0) {
          print('\nShut down (a request for one is told what to use instead):');
          print(
            table(
              ['ID', 'VENDOR', 'RETIRED', 'USE'],
              listed.retired.map((r) => [r.id, r.vendor, r.retired ?? '-', r.replacement]),
            ),
          );
        }
      },
    );

  toolOptions(
    priceOptions(
      models
        .command('add <id>')
        .description('add a model of your own, e.g. "tollgate models add acme-1 --input 3 --output 15"'),
    ),
  )
    .option('--free', 'price 0 for every kind (a local model)')
    .action(async (id: string, o: ModelFlags & { free?: boolean }) => {
      const prices = pricesFrom(o);
      if (o.free && prices) throw new CliError('Give prices or --free, not both.');
      if (!o.free && (prices?.input === undefined || prices.output === undefined))
        throw new CliError('A new model needs --input and --output (USD per million tokens), or --free.');
      const { model } = await client().call('addModel', {
        body: { id, ...fields(o), prices: o.free ? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } : prices! },
      });
      print(`Added ${describe(model)}.`);
    });

  toolOptions(
    priceOptions(
      models
        .command('update <id>')
        .description("change a model's prices (a preset model: only its prices), or your own model's other figures"),
    ),
  )
    .option(
      '--unset <kinds>',
      "take your price of these kinds away (comma-separated, e.g. cache-write): back to the preset's, or billed at the input price",
      kinds,
    )
    .action(async (id: string, o: ModelFlags & { unset?: (typeof PRICE_KEYS)[number][] }) => {
      const prices: NonNullable<UpdateModelBody['prices']> = {
        ...pricesFrom(o),
        ...Object.fromEntries((o.unset ?? []).map((k) => [k, null])),
      };
      const body: UpdateModelBody = { ...fields(o), ...(Object.keys(prices).length > 0 ? { prices } : {}) };
      if (Object.keys(body).length === 0)
        throw new CliError('Nothing to change: give prices (--input, --output …) or other figures.');
      const { model } = await client().call('updateModel', { params: { id }, body });
      print(`Updated ${describe(model)}.`);
    });

  models
    .command('remove <id>')
    .description('remove a model of your own')
    .option('--force', 'also take it off the lines, aliases and groups that name it')
    .action(async (id: string, o: { force?: boolean }) => {
      await client().call('removeModel', { params: { id }, query: { force: o.force === true } });
      print(`Removed ${id} from the catalogue.`);
    });

  models
    .command('reset <id>')
    .description("take a preset model's prices back to the preset's")
    .action(async (id: string) => {
      const { model } = await client().call('resetModel', { params: { id } });
      print(`Reset ${describe(model)}.`);
    });

  models
    .command('import <file-or-url>')
    .description(
      'prices from a LiteLLM price file (model_prices_and_context_window.json), matched by id; shows the changes first',
    )
    .option('--only <ids>', 'only these catalogue ids, comma-separated', list)
    .option('--dry-run', 'show the changes, write nothing')
    .option('--yes', 'write the changes without asking')
    .option('--json', 'machine-readable output (prices in micro-USD per million tokens)')
    .action(async (source: string, o: { only?: string[]; dryRun?: boolean; yes?: boolean; json?: boolean }) => {
      const from = /^https?:\/\//i.test(source) ? { url: source } : { data: readPriceFile(source) };
      const base = { ...from, ...(o.only ? { only: o.only } : {}) };
      const plan = await client().call('importPrices', { body: { ...base, dryRun: true } });
      if (o.json && (o.dryRun || plan.changes.length === 0)) return json(plan);
      if (!o.json) printPlan(plan);
      if (o.dryRun || plan.changes.length === 0) return;
      if (!o.yes) {
        if (!process.stdin.isTTY) throw new CliError('Nothing written: add --yes to write these changes.');
        if (!(await confirm(`Write these ${plan.changes.length} changes? [y/N] `))) return print('Nothing written.');
      }
      const done = await client().call('importPrices', { body: { ...base, expect: plan.digest } });
      if (o.json) return json(done);
      print(
        `Wrote the prices of ${done.changes.length} model${done.changes.length === 1 ? '' : 's'}. "tollgate models reset ID" takes a preset model back to its own prices.`,
      );
    });
}

function readPriceFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new CliError(`Cannot read ${path}: ${(err as Error).message}`);
  }
  try {
    const data: unknown = JSON.parse(text);
    if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new Error('not a JSON object');
    return data as Record<string, unknown>;
  } catch (err) {
    throw new CliError(`${path} is not a LiteLLM price file: ${(err as Error).message}`);
  }
}
