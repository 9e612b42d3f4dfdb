/**
 * Price imports from a LiteLLM price file (catalogue/litellm.ts), given as its content or as an
 * http(s) URL the gateway downloads. A dry run shows the changes and a digest; the real run can
 * send the digest back, so what is written is what was shown.
 */
import { planLiteLLMImport } from '../catalogue/litellm.js';
import type { Gateway } from '../compose/gateway.js';
import { fetchFailure } from '../upstream/errors.js';
import type { PriceRecord } from '../store/types.js';
import { AdminError, type ImportPricesBody, type PriceImportView } from '../contract/admin/index.js';
import { overridden, setOverride } from './models.js';
import { maskSecrets } from '../upstream/mask.js';
import { OutboundError, outboundGet } from '../upstream/outbound.js';

/** LiteLLM's file is about 2 MB; anything far beyond it is not a price list. */
const MAX_DOWNLOAD_BYTES = 64 * 1024 * 1024;
const DOWNLOAD_TIMEOUT_MS = 60_000;

async function download(g: Gateway, text: string): Promise<unknown> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new AdminError(400, 'bad_url', `"${text}" is not a URL.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new AdminError(400, 'bad_url', 'The price file URL must start with http:// or https://.');
  let res;
  try {
    // A URL typed by the user, or pasted from somewhere: public addresses only unless it names a
    // local host itself, and each redirect is checked the same way (upstream/outbound.ts).
    res = await outboundGet(url, {
      headers: { accept: 'application/json', 'user-agent': 'Tollgate' },
      credentialed: false,
      maxBytes: MAX_DOWNLOAD_BYTES,
      ca: g.upstream.trustedCa,
      timeoutMs: DOWNLOAD_TIMEOUT_MS,
      publicOnly: true,
      maxRedirects: 5,
    });
  } catch (err) {
    if (err instanceof OutboundError && err.code === 'too_large')
      throw new AdminError(
        400,
        'not_a_price_file',
        `${url.href} is larger than ${MAX_DOWNLOAD_BYTES / 1024 / 1024} MB: not a price file.`,
      );
    if (err instanceof OutboundError && err.code === 'private_address')
      throw new AdminError(
        400,
        'private_address',
        `Not downloaded: ${err.message}. To use a file on this machine or network, give its address itself (http://127.0.0.1:…), or pass its content as data.`,
      );
    throw new AdminError(502, 'download_failed', `Could not download ${url.href}: ${maskSecrets(fetchFailure(err))}`);
  }
  if (res.status >= 400) throw new AdminError(502, 'download_failed', `${url.href} answered HTTP ${res.status}.`);
  try {
    return JSON.parse(res.text);
  } catch {
    throw new AdminError(400, 'not_a_price_file', `${url.href} is not JSON.`);
  }
}

export async function importPrices(g: Gateway, body: ImportPricesBody): Promise<PriceImportView> {
  if ((body.url === undefined) === (body.data === undefined)) {
    throw new AdminError(
      400,
      'invalid_request',
      'Give the price file as url (downloaded by the gateway) or as data (its content), one of the two.',
    );
  }
  const unknown = (body.only ?? []).filter((id) => !g.catalogue.has(id));
  if (unknown.length > 0) throw new AdminError(400, 'unknown_model', `Not in the catalogue: ${unknown.join(', ')}.`);
  const data = body.url !== undefined ? await download(g, body.url) : body.data;
  let plan;
  try {
    plan = planLiteLLMImport(data, g.catalogue.values(), body.only);
  } catch (err) {
    throw new AdminError(400, 'not_a_price_file', `Not a LiteLLM price file: ${(err as Error).message}.`);
  }
  const view = { ...plan, dryRun: body.dryRun === true, applied: false, source: body.url ?? 'data' };
  if (body.dryRun) return view;
  if (body.expect !== undefined && body.expect !== plan.digest) {
    throw new AdminError(
      409,
      'prices_changed',
      'The file now gives other prices than the preview showed; nothing was written. Look at the changes again.',
    );
  }
  if (plan.changes.length === 0) return view;
  const overrides = new Map(
    plan.changes
      .filter((c) => c.target === 'override')
      .map(
        (c) =>
          [
            c.id,
            { prices: overridden(g, c.id, Object.fromEntries(c.prices.map((p) => [p.kind, p.to]))), tiers: c.tiers },
          ] as const,
      ),
  );
  const custom = new Map(plan.changes.filter((c) => c.target === 'custom').map((c) => [c.id, c]));
  await g.config.update((d) => {
    for (const [id, o] of overrides) setOverride(d, id, o.prices, 'litellm', o.tiers);
    const now = new Date().toISOString();
    d.models = (d.models ?? []).map((r) => {
      const c = custom.get(r.id);
      if (!c) return r;
      const prices: PriceRecord = { ...r.prices, ...Object.fromEntries(c.prices.map((p) => [p.kind, p.to])) };
      return { ...r, prices, ...(c.tiers ? { tiers: c.tiers } : {}), updatedAt: now };
    });
  });
  return { ...view, applied: true };
}
