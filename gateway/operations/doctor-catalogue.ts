/**
 * What `doctor` says about the catalogue: lines and aliases that still point at a retired model
 * (or one about to retire), and user entries that could not be applied. These are warnings: the
 * gateway and its money are fine, but requests for those models fail (or will).
 */
import { modelStatus } from '../catalogue/lifecycle.js';
import type { Gateway } from '../compose/gateway.js';
import type { DoctorCheck } from '../contract/admin/index.js';

/** How far ahead a shutdown date is worth a warning. */
const SOON_MS = 30 * 24 * 3600 * 1000;

export function catalogueChecks(g: Gateway, now = g.catalogue.now()): DoctorCheck[] {
  const retired: string[] = [];
  const soon: string[] = [];
  const note = (who: string, id: string): void => {
    const m = g.catalogue.get(id);
    const gone = g.catalogue.retired.get(id);
    const use = m?.replacement ?? gone?.replacement;
    const instead = use ? ` (use ${use})` : '';
    if (m && modelStatus(m, now) === 'retired') retired.push(`${who} → ${id}, retired ${m.retires}${instead}`);
    else if (!m && gone) retired.push(`${who} → ${id}, retired${gone.retired ? ` ${gone.retired}` : ''}${instead}`);
    else if (m?.retires && Date.parse(`${m.retires}T00:00:00Z`) - now <= SOON_MS)
      soon.push(`${who} → ${id}, retires ${m.retires}${instead}`);
  };
  for (const l of g.config.data.lines) for (const id of l.models) note(`line ${l.name}`, id);
  for (const a of g.config.data.aliases) note(`alias ${a.pattern}`, a.model);
  const lifecycle: DoctorCheck = {
    name: 'retired models',
    ok: true,
    detail:
      retired.length + soon.length === 0
        ? 'no line or alias points at a retired model, or one retiring within 30 days'
        : [
            retired.length > 0 ? `requests fail for: ${retired.join('; ')}` : '',
            soon.length > 0 ? `retiring soon: ${soon.join('; ')}` : '',
          ]
            .filter(Boolean)
            .join('. '),
    ...(retired.length + soon.length > 0 ? { warn: true } : {}),
  };
  const problems = g.catalogue.problems;
  const entries: DoctorCheck = {
    name: 'catalogue entries',
    ok: true,
    detail:
      problems.length === 0 ? 'every custom model and price override of config.json applies' : problems.join('; '),
    ...(problems.length > 0 ? { warn: true } : {}),
  };
  return [lifecycle, entries];
}
