import type { Command } from 'commander';
import type { AdminClient } from '../contract/admin/index.js';
import { table } from './format.js';
import { json, print } from './output.js';

export function registerAliases(program: Command, client: () => AdminClient): void {
  const aliases = program
    .command('aliases')
    .description('steer requested model ids (or globs like "claude-*-haiku-*") to catalogue models');
  aliases.command('add <pattern> <model>').action(async (pattern: string, model: string) => {
    await client().call('addAlias', { body: { pattern, model } });
    print(`Requests for "${pattern}" now go to ${model}.`);
  });
  aliases
    .command('list')
    .option('--json', 'machine-readable output')
    .action(async (o: { json?: boolean }) => {
      const { aliases: all } = await client().call('listAliases');
      if (o.json) return json(all);
      print(
        table(
          ['PATTERN', 'MODEL'],
          all.map((a) => [a.pattern, a.model]),
        ),
      );
    });
  aliases.command('remove <pattern>').action(async (pattern: string) => {
    await client().call('removeAlias', { params: { pattern } });
    print(`Alias "${pattern}" removed.`);
  });
}
