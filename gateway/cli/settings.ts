/**
 * `tollgate settings`: the gateway's settings as the console's Settings page shows them, and the
 * CA settings for upstream TLS (docs/admin-api.md, "Settings"). Host, port, retention, storage and
 * the low-balance threshold are changed in the console.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { AdminClient, SettingsView, UpdateSettingsBody } from '../contract/admin/index.js';
import { usd } from '../contract/money.js';
import { CliError } from './client.js';
import { json, print } from './output.js';

function describe(s: SettingsView): string[] {
  return [
    `listening        ${s.listening}`,
    `host             ${s.host}${s.lan ? ' (reachable from the network)' : ''}`,
    `port             ${s.port}`,
    `retention        ${s.retentionDays === null ? 'every row kept' : `${s.retentionDays} days`}`,
    `request bodies   ${s.storeBodies ? 'stored' : 'not stored'}`,
    `responses        ${s.storeResponses ? 'stored when asked' : 'not stored'}`,
    `low balance      ${s.lowBalanceMicro === null ? 'no warning' : `below ${usd(s.lowBalanceMicro)}`}`,
    `CA file          ${s.caFile ?? 'none'}`,
    `system CA store  ${s.systemCa ? 'trusted' : 'not trusted'}${s.systemCaAvailable ? '' : ' (this runtime cannot read it)'}`,
    `CAs added        ${s.caAdded}${s.caProblem ? ` (not in force: ${s.caProblem})` : ''}`,
  ];
}

function onOff(flag: string, text: string): boolean {
  if (text === 'on') return true;
  if (text === 'off') return false;
  throw new CliError(`${flag} takes on or off, not "${text}".`);
}

export function registerSettings(program: Command, client: () => AdminClient): void {
  const settings = program
    .command('settings')
    .description("show the gateway's settings (change the CA settings with `settings set`, the rest in the console)")
    .option('--json', 'machine-readable output')
    .action(async (o: { json?: boolean }) => {
      const s = await client().call('getSettings');
      if (o.json) return json(s);
      for (const line of describe(s)) print(line);
    });
  settings
    .command('set')
    .description('change the certificate authorities upstream TLS trusts besides the built-in ones')
    .option('--ca-file <path>', 'a PEM file of CA certificates, e.g. a TLS-inspecting proxy\'s ("none" to remove)')
    .option('--system-ca <on|off>', "trust the operating system's certificate store too (Node 22.15 and later)")
    .action(async (o: { caFile?: string; systemCa?: string }) => {
      const body: UpdateSettingsBody = {};
      if (o.caFile !== undefined) body.caFile = o.caFile === 'none' ? null : resolve(o.caFile); // the gateway takes absolute paths only
      if (o.systemCa !== undefined) body.systemCa = onOff('--system-ca', o.systemCa);
      if (Object.keys(body).length === 0) throw new CliError('Nothing to change: give --ca-file or --system-ca.');
      const s = await client().call('updateSettings', { body });
      for (const line of describe(s).slice(-3)) print(line);
    });
}
