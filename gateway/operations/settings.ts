/** The settings of config.json: what they are, and changing them (each change takes effect as it says). */
import { isIP } from 'node:net';
import type { Gateway } from '../compose/gateway.js';
import { applyRetention } from '../compose/retention.js';
import { isLoopbackHost } from '../contract/loopback.js';
import { settingsOf, type Settings } from '../store/settings.js';
import { NO_SYSTEM_CA, readCaFile, systemCaAvailable } from '../upstream/trust.js';
import { AdminError, type SettingsView, type UpdateSettingsBody } from '../contract/admin/index.js';

export function settingsView(g: Gateway, listening: string): SettingsView {
  const s = settingsOf(g.config.data);
  const trust = g.trust();
  return {
    ...s,
    systemCaAvailable: systemCaAvailable(),
    caAdded: trust.added,
    caProblem: trust.problem,
    listening,
    lan: !isLoopbackHost(s.host),
  };
}

/**
 * Changes the settings given. A host beyond loopback needs `allowLan: true`: the model API would
 * face the network. Host and port apply at the next start; retention runs at once; turning off
 * body or Responses storage deletes what was kept; the CA settings apply to new upstream
 * connections at once.
 */
export async function updateSettings(g: Gateway, body: UpdateSettingsBody, listening: string): Promise<SettingsView> {
  const { allowLan, ...change } = body;
  // Node binds `::1`, not `[::1]`: the brackets belong in URLs, not in the address to listen on.
  if (change.host !== undefined) change.host = bindAddress(change.host);
  if (change.host !== undefined && !isLoopbackHost(change.host) && allowLan !== true) {
    throw new AdminError(
      400,
      'lan_confirmation_required',
      `Binding to ${change.host} lets other machines on your network reach the model API. Send "allowLan": true to confirm.`,
    );
  }
  // The CA settings are checked before they are stored: a file that holds no certificate would
  // otherwise surface only as upstream requests failing.
  if (typeof change.caFile === 'string') {
    try {
      readCaFile(change.caFile);
    } catch (err) {
      throw new AdminError(400, 'invalid_ca_file', (err as Error).message);
    }
  }
  if (change.systemCa === true && !systemCaAvailable())
    throw new AdminError(400, 'system_ca_unavailable', NO_SYSTEM_CA);
  const before = settingsOf(g.config.data);
  await g.config.update((d) => {
    const stored: Partial<Settings> = { ...d.settings };
    for (const [k, v] of Object.entries(change)) if (v !== undefined) (stored as Record<string, unknown>)[k] = v;
    d.settings = stored;
  });
  const after = settingsOf(g.config.data);
  if (before.storeBodies && !after.storeBodies) g.bodies.erase();
  if (before.storeResponses && !after.storeResponses) g.responses.clear();
  if (after.retentionDays !== before.retentionDays) applyRetention(g.config, g.ledger, g.bodies);
  return settingsView(g, listening);
}

/** A host as `listen()` takes it: an IPv6 address without its URL brackets; names and IPv4 as given. */
function bindAddress(host: string): string {
  const bare = /^\[(.*)\]$/.exec(host)?.[1] ?? host;
  if (bare !== host && isIP(bare) !== 6)
    throw new AdminError(400, 'invalid_request', `"${host}" is not an address to listen on.`);
  if (bare.includes(':') && isIP(bare) !== 6)
    throw new AdminError(
      400,
      'invalid_request',
      `"${host}" is not an address to listen on (give an IPv6 address without a port).`,
    );
  return bare;
}
