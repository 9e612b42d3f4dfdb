/**
 * What the catalogue routes answer: the model square (models with their prices, lines, groups,
 * how each client protocol reaches them, lifecycle), price-import previews, models a line added.
 * Prices are integer micro-USD per million tokens.
 */
import { Type, type Static } from '@sinclair/typebox';
import { FORMATS } from '../formats.js';
import { ModelFields, PriceTier } from '../model-fields.js';
import { Nullable } from './schemas.js';
import { LineView, OneOf, PricesView } from './views.js';

export { PricesView };

const Int = Type.Integer();
const Strings = Type.Array(Type.String());

export const ModelStatus = OneOf(['active', 'retiring', 'retired']);

export const ModelView = Type.Object({
  /** The model's fields (contract/model-fields.ts); `prices` is what requests are billed at now. */
  ...ModelFields.properties,
  /** `preset`: shipped with Tollgate; `custom`: added by the user. */
  origin: OneOf(['preset', 'custom']),
  /** A preset model whose prices the user changed: the preset's own prices (reset brings them back); null otherwise. */
  presetPrices: Nullable(PricesView),
  /** How a custom model was added (`user`, `line:NAME`, `upstream:NAME`, `litellm`); null for a preset model. */
  source: Nullable(Type.String()),
  /** `retiring`: the vendor announced a shutdown date; `retired`: that day has come, and requests for it are refused. */
  status: ModelStatus,
  /** Names of the lines that list it (enabled or not). */
  lines: Strings,
  /** Whether an enabled line serves it. */
  served: Type.Boolean(),
  /** Groups whose keys may use it. */
  groups: Strings,
  /**
   * For each client protocol, how this model is reached through the current lines: `native` when
   * a line speaks the client's own protocol (pass-through), `translated` when only lines of other
   * protocols serve it, `unavailable` when no line does.
   */
  access: Type.Record(OneOf(FORMATS), OneOf(['native', 'translated', 'unavailable'])),
});
export type ModelView = Static<typeof ModelView>;

/** An id the vendor has shut down (not a catalogue model): a request for it is told to use `replacement`. */
export const RetiredView = Type.Object({
  id: Type.String(),
  vendor: Type.String(),
  retired: Nullable(Type.String()),
  replacement: Type.String(),
});
export type RetiredView = Static<typeof RetiredView>;

export const ModelListView = Type.Object({
  models: Type.Array(ModelView),
  /** Shut-down ids the presets know of, under the same filters (none when `served=true`). */
  retired: Type.Array(RetiredView),
});
export type ModelListView = Static<typeof ModelListView>;

/** One price kind that an import changes. */
const PriceChange = Type.Object({
  kind: Type.String(),
  from: Int,
  to: Int,
  /** False when the file's price was finer than $0.000001 per million tokens and was rounded up. */
  exact: Type.Boolean(),
});

export const PriceImportView = Type.Object({
  dryRun: Type.Boolean(),
  /** Whether the changes were written. */
  applied: Type.Boolean(),
  /** The URL, or `data`. */
  source: Type.String(),
  /** Entries the file holds. */
  entries: Int,
  changes: Type.Array(
    Type.Object({
      id: Type.String(),
      /** The file's key the prices come from (`claude-sonnet-4-5`, `gemini/gemini-2.5-flash`). */
      entry: Type.String(),
      /** `override`: prices over a preset model's; `custom`: a custom model's own prices. */
      target: OneOf(['override', 'custom']),
      prices: Type.Array(PriceChange),
      /** The model's price tiers as the file gives them (its `…_above_<N>k_tokens` fields), where they differ from the catalogue's. */
      tiers: Type.Optional(Type.Array(PriceTier)),
    }),
  ),
  /** Catalogue ids the file prices exactly as the catalogue already does. */
  unchanged: Strings,
  /** Catalogue ids the file has no usable entry for. */
  unmatched: Strings,
  /** Entries that name a catalogue id but were not used, with why. */
  skipped: Type.Array(Type.Object({ id: Type.String(), entry: Type.String(), reason: Type.String() })),
  /** Send it back as `expect` to write exactly these changes. */
  digest: Type.String(),
});
export type PriceImportView = Static<typeof PriceImportView>;

/** A model a line put into the catalogue, and where its prices came from. */
export const AddedModelView = Type.Object({
  id: Type.String(),
  prices: PricesView,
  /** `listed`: the upstream's model list priced it; `given`: the prices sent; `free`: price 0. */
  priced: OneOf(['listed', 'given', 'free']),
});
export type AddedModelView = Static<typeof AddedModelView>;

export const LineAddedView = Type.Object({
  line: LineView,
  /** Ids the catalogue lacked, added with the line. */
  addedModels: Type.Array(AddedModelView),
  /** What will stop the line from working though it was saved (a key variable that is not set). */
  warnings: Type.Optional(Type.Array(Type.String())),
});
export type LineAddedView = Static<typeof LineAddedView>;

export const LineImportView = Type.Object({
  line: LineView,
  dryRun: Type.Boolean(),
  /** New catalogue models, from the upstream's list. */
  added: Type.Array(AddedModelView),
  /** Catalogue ids the line serves now that it did not before (the added ones among them). */
  served: Strings,
  /** Listed ids left out, with why. */
  skipped: Type.Array(Type.Object({ id: Type.String(), reason: Type.String() })),
});
export type LineImportView = Static<typeof LineImportView>;
