/**
 * `doctor`: config consistency, the ledger invariant and the other money checks, the lines'
 * credentials, and the catalogue's warnings (doctor-catalogue.ts). The admin API runs it, and the
 * CLI runs it in-process when no gateway is running.
 */
import type { Gateway } from '../compose/gateway.js';
import { usdExact } from '../contract/money.js';
import type { DoctorCheck, DoctorReport } from '../contract/admin/index.js';
import { catalogueChecks } from './doctor-catalogue.js';

/** Config consistency and the ledger invariant. `ok` is false if any check fails. */
export async function doctor(g: Gateway): Promise<DoctorReport> {
  const checks: DoctorCheck[] = [];
  const inv = g.ledger.checkInvariant();
  checks.push({
    name: 'ledger invariant',
    ok: inv.topupsMicro + inv.adjustmentsMicro - inv.balanceMicro === inv.loggedCostMicro,
    detail:
      `top-ups ${usdExact(inv.topupsMicro)} + adjustments ${usdExact(inv.adjustmentsMicro)} − balance ${usdExact(inv.balanceMicro)} = ` +
      `${usdExact(inv.topupsMicro + inv.adjustmentsMicro - inv.balanceMicro)}; logged costs ${usdExact(inv.loggedCostMicro)}` +
      (inv.prunedCostMicro > 0
        ? ` (${usdExact(inv.prunedCostMicro)} of it in rows pruned by retention, kept as daily totals)`
        : ''),
  });
  checks.push({
    name: 'key usage',
    ok: inv.keyMismatches.length === 0,
    detail:
      inv.keyMismatches.length === 0
        ? "every key's usage equals the sum of its logged costs"
        : inv.keyMismatches
            .map((k) => `${k.keyId}: usage ${usdExact(k.usageMicro)} vs logged ${usdExact(k.loggedMicro)}`)
            .join('; '),
  });
  checks.push(...moneyChecks(g));
  const groups = new Set(g.config.data.groups.map((x) => x.name));
  const orphanKeys = g.config.data.keys.filter((k) => k.state !== 'deleted' && !groups.has(k.group));
  checks.push({
    name: 'key groups',
    ok: orphanKeys.length === 0,
    detail:
      orphanKeys.length === 0
        ? 'every key belongs to an existing group'
        : `keys in missing groups: ${orphanKeys.map((k) => k.name).join(', ')}`,
  });
  const badLineModels = g.config.data.lines.flatMap((l) =>
    l.models.filter((m) => !g.catalogue.has(m)).map((m) => `${l.name}: ${m}`),
  );
  checks.push({
    name: 'line models',
    ok: badLineModels.length === 0,
    detail:
      badLineModels.length === 0
        ? 'every line serves catalogue models'
        : `not in the catalogue: ${badLineModels.join(', ')}`,
  });
  checks.push(...catalogueChecks(g));
  const problems: string[] = [];
  for (const l of g.config.data.lines) {
    const source = g.lines.keySource(l);
    if (source === 'env' && !process.env[l.apiKeyEnv ?? ''])
      problems.push(`line ${l.name} needs ${l.apiKeyEnv} set in the gateway's environment`);
    if (source === 'keychain') {
      const found = await g.secrets.get(l.id).then(
        (v) => (v === undefined ? 'missing from the OS keychain' : null),
        (err: Error) => `not readable from the OS keychain (${err.message})`,
      );
      if (found) problems.push(`line ${l.name}: its key is ${found}`);
    }
  }
  checks.push({
    name: 'line credentials',
    ok: problems.length === 0,
    detail: problems.length === 0 ? 'every line can find its key (keychain or environment)' : problems.join('; '),
  });
  return { ok: checks.every((c) => c.ok), checks };
}

/**
 * The money checks beyond the invariant: the balance a whole non-negative number, no row with a
 * negative or fractional cost or token count, no key over its quota by more than one bounded
 * reservation (its largest charge), no request a stopped gateway left unsettled, no failed ledger
 * write since start (docs/money.md).
 */
function moneyChecks(g: Gateway): DoctorCheck[] {
  // A quota lowered below what the key had already spent (or held) bounds what comes after, not what came before.
  const quotas = new Map(
    g.config.data.keys
      .filter((k) => k.quotaMicro !== null)
      .map((k) => [k.id, Math.max(k.quotaMicro!, k.spentWhenQuotaSetMicro ?? 0)]),
  );
  const p = g.ledger.problems(quotas);
  const names = new Map(g.config.data.keys.map((k) => [k.id, k.name]));
  const ids = (x: { count: number; requestIds: string[] }): string =>
    `${x.requestIds.join(', ')}${x.count > x.requestIds.length ? ', …' : ''}`;
  const failure = g.ledger.writeFailure();
  return [
    {
      name: 'wallet balance',
      ok: p.badBalance === null,
      detail:
        p.badBalance === null
          ? 'a whole, non-negative number of micro-USD'
          : `the stored balance is ${p.badBalance}, not a whole non-negative number of micro-USD`,
    },
    {
      name: 'ledger rows',
      ok: p.badRows.count === 0,
      detail:
        p.badRows.count === 0
          ? 'every cost and token count is a whole non-negative number'
          : `${p.badRows.count} rows with a negative or fractional cost or token count: ${ids(p.badRows)}`,
    },
    {
      name: 'key quotas',
      ok: p.overQuota.length === 0,
      detail:
        p.overQuota.length === 0
          ? 'no key spent beyond its quota by more than one request'
          : p.overQuota
              .map(
                (k) =>
                  `${names.get(k.keyId) ?? k.keyId}: used ${usdExact(k.usedMicro)} where its quota allows ${usdExact(k.quotaMicro)} (largest request ${usdExact(k.largestMicro)})`,
              )
              .join('; '),
    },
    {
      name: 'settlement',
      ok: p.unsettled.count === 0,
      detail:
        p.unsettled.count === 0
          ? 'every admitted request was settled (or is in flight)'
          : `${p.unsettled.count} requests were admitted by a gateway that stopped before settling them (${ids(p.unsettled)}); nothing was charged for them, and the next start logs them as interrupted`,
    },
    {
      name: 'ledger writes',
      ok: failure === null,
      detail:
        failure === null
          ? 'no ledger write failed since the gateway started'
          : `${failure.count} ledger writes failed since the gateway started, the last at ${new Date(failure.at).toISOString()}: ${failure.last}`,
    },
  ];
}
