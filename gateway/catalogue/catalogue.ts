import type { FormatId } from '../core/formats.js';
import { loadPresets, presetsDir, type Preset, type Prices } from './presets.js';

export { loadPresets, type ModelDefinition, type Preset, type PresetModel } from './presets.js';

export interface CatalogueModel {
  id: string;
  /** The preset that owns the model: the one that defines it and its prices. */
  vendor: string;
  displayName: string;
  contextWindow: number;
  maxOutputTokens: number;
  /** Wire protocols the vendor's own API speaks for this model. */
  nativeProtocols: FormatId[];
  /** micro-USD per million tokens. */
  prices: Prices;
}

/** The catalogue built from every gateway/presets/<id>/preset.json. */
export function loadCatalogue(dir = presetsDir()): Map<string, CatalogueModel> {
  return buildCatalogue(loadPresets(dir));
}

/**
 * One catalogue entry per model id, in preset-folder order then file order. Exactly one preset
 * defines (owns and prices) each id; any other preset that serves it only references it, and a
 * reference must name a model some preset defines.
 */
export function buildCatalogue(presets: Map<string, Preset>): Map<string, CatalogueModel> {
  const models = new Map<string, CatalogueModel>();
  for (const preset of presets.values()) {
    for (const m of preset.models) {
      if (!m.definition) continue;
      const owner = models.get(m.id);
      if (owner) {
        throw new Error(
          `model ${m.id} is defined by both gateway/presets/${owner.vendor} and gateway/presets/${preset.id}; one preset owns a model, the others list it with id (and upstreamId) only`,
        );
      }
      models.set(m.id, { id: m.id, vendor: preset.id, ...m.definition });
    }
  }
  for (const preset of presets.values()) {
    for (const m of preset.models) {
      if (!m.definition && !models.has(m.id)) {
        throw new Error(`gateway/presets/${preset.id}/preset.json: model ${m.id} has no prices and no other preset defines it`);
      }
    }
  }
  return models;
}
