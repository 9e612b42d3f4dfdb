import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseUsd } from '../billing/money.js';
import type { Prices } from '../billing/pricing.js';
import { packageRoot } from '../core/paths.js';
import { UPSTREAM_PROTOCOLS, type UpstreamProtocolId } from '../core/protocol-ids.js';

export interface CatalogueModel {
  id: string;
  vendor: string;
  displayName: string;
  contextWindow: number;
  maxOutputTokens: number;
  /** Wire protocols the vendor's own API speaks for this model. */
  nativeProtocols: UpstreamProtocolId[];
  /** micro-USD per million tokens. */
  prices: Prices;
}

interface VendorFile {
  vendor: string;
  displayName: string;
  models: {
    id: string;
    displayName: string;
    contextWindow: number;
    maxOutputTokens: number;
    nativeProtocols: string[];
    prices: Record<string, string>;
  }[];
}

const PRICE_KEYS = ['input', 'output', 'cacheRead', 'cacheWrite', 'audioInput', 'imageInput'] as const;

/** Reads every vendors/*.json file. Prices in the files are USD-per-million decimal strings. */
export function loadCatalogue(dir = join(packageRoot(), 'gateway', 'catalogue', 'vendors')): Map<string, CatalogueModel> {
  const models = new Map<string, CatalogueModel>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    const vendor = JSON.parse(readFileSync(join(dir, file), 'utf8')) as VendorFile;
    for (const m of vendor.models) {
      const where = `${file}: model ${m.id}`;
      if (models.has(m.id)) throw new Error(`${where} is listed twice in the catalogue`);
      const prices: Partial<Record<(typeof PRICE_KEYS)[number], number>> = {};
      for (const k of PRICE_KEYS) {
        const v = m.prices[k];
        if (v !== undefined) prices[k] = parseUsd(v);
      }
      if (prices.input === undefined || prices.output === undefined) throw new Error(`${where} needs input and output prices`);
      for (const p of m.nativeProtocols) {
        if (!(UPSTREAM_PROTOCOLS as readonly string[]).includes(p)) throw new Error(`${where}: unknown protocol ${p}`);
      }
      models.set(m.id, {
        id: m.id,
        vendor: vendor.vendor,
        displayName: m.displayName,
        contextWindow: m.contextWindow,
        maxOutputTokens: m.maxOutputTokens,
        nativeProtocols: m.nativeProtocols as UpstreamProtocolId[],
        prices: { cacheRead: prices.input, cacheWrite: 0, ...prices } as Prices,
      });
    }
  }
  return models;
}
