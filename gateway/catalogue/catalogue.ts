import type { ModelFields } from '../contract/model-fields.js';
import { loadPresets, presetsDir, type Preset, type Prices, type RetiredModel } from './presets.js';

export { loadPresets, type ModelDefinition, type Preset, type PresetModel, type RetiredModel } from './presets.js';

/**
 * A model as the gateway serves and bills it: its fields (contract/model-fields.ts) and where it
 * came from. `vendor` is the preset that owns the model (the one that defines it and its prices),
 * or the vendor a custom model was given; `prices` what requests are billed at now (the user's
 * prices where they set some).
 */
export interface CatalogueModel extends Omit<ModelFields, 'retires' | 'replacement'> {
  /** `preset`: shipped in gateway/presets/ (absent means this too); `custom`: the user's own entry (config.json). */
  origin?: 'preset' | 'custom';
  /** A preset model whose prices the user changed: the preset's own prices, which `reset` brings back. */
  presetPrices?: Prices;
  /** YYYY-MM-DD the model is shut down; from that day a request for it is refused, naming `replacement`. */
  retires?: ModelFields['retires'];
  replacement?: ModelFields['replacement'];
}

/** The catalogue built from every gateway/presets/<id>/preset.json (their retired lists checked too). */
export function loadCatalogue(dir = presetsDir()): Map<string, CatalogueModel> {
  const presets = loadPresets(dir);
  const catalogue = buildCatalogue(presets);
  retiredModels(presets, catalogue);
  return catalogue;
}

/**
 * One catalogue entry per model id, in preset-folder order then file order. Exactly one preset
 * defines (owns and prices) each id; any other preset that serves it only references it, and a
 * reference must name a model some preset defines. A replacement must be a catalogue model too.
 */
export function buildCatalogue(presets: ReadonlyMap<string, Preset>): Map<string, CatalogueModel> {
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
      models.set(m.id, { id: m.id, vendor: preset.id, origin: 'preset', ...m.definition });
    }
  }
  for (const preset of presets.values()) {
    for (const m of preset.models) {
      if (!m.definition && !models.has(m.id)) {
        throw new Error(
          `gateway/presets/${preset.id}/preset.json: model ${m.id} has no prices and no other preset defines it`,
        );
      }
      const replacement = m.definition?.replacement;
      if (replacement && !models.has(replacement)) {
        throw new Error(
          `gateway/presets/${preset.id}/preset.json: model ${m.id} names a replacement, ${replacement}, that no preset defines`,
        );
      }
    }
  }
  return models;
}

/** The ids the presets list as already shut down, each with the catalogue model to use instead. */
export function retiredModels(
  presets: ReadonlyMap<string, Preset>,
  catalogue: ReadonlyMap<string, CatalogueModel>,
): Map<string, RetiredModel> {
  const out = new Map<string, RetiredModel>();
  for (const preset of presets.values()) {
    for (const r of preset.retired) {
      const at = `gateway/presets/${preset.id}/preset.json: retired ${r.id}`;
      if (catalogue.has(r.id)) throw new Error(`${at} is a catalogue model; a retired id is not served`);
      if (!catalogue.has(r.replacement))
        throw new Error(`${at} names a replacement, ${r.replacement}, that no preset defines`);
      if (out.has(r.id)) throw new Error(`${at} is also listed as retired by gateway/presets/${out.get(r.id)!.vendor}`);
      out.set(r.id, r);
    }
  }
  return out;
}
