/**
 * What the admin API answers about the coding tools a user connects (docs/connect.md): each tool's
 * wiring, a connect's or disconnect's diff, the copy-paste snippets and `tollgate env`'s lines.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from './schemas.js';
import { OneOf } from './views.js';

const Strings = Type.Array(Type.String());

/** Models connect would pick for a tool when none is named (docs/connect.md, "Models"). */
const SuggestedModels = Type.Object({ model: Type.String(), smallModel: Nullable(Type.String()) });

/** One coding tool: whether Tollgate connected it, and whether the wiring still holds. */
export const ConnectionView = Type.Object({
  /** The tool's id: `claude-code`, `codex`, `gemini-cli`. */
  tool: Type.String(),
  name: Type.String(),
  /** Other ids accepted for it (`claude`, `gemini`). */
  aliases: Strings,
  /** The command that runs it. */
  command: Type.String(),
  /** Whether the tool has a small/fast model setting (Claude Code). */
  smallModelSetting: Type.Boolean(),
  /** Connected by Tollgate (it keeps a record of what it wrote). */
  connected: Type.Boolean(),
  keyName: Nullable(Type.String()),
  /** The last four characters of that key while it exists. */
  keyLast4: Nullable(Type.String()),
  model: Nullable(Type.String()),
  smallModel: Nullable(Type.String()),
  connectedAt: Nullable(Type.String()),
  /** The base URL the tool's files hold now, connected or not. */
  baseUrl: Nullable(Type.String()),
  /** Whether that base URL is this gateway's. */
  pointsAtTollgate: Type.Boolean(),
  files: Type.Array(
    Type.Object({ path: Type.String(), state: OneOf(['as-written', 'changed', 'missing', 'invalid', 'present']) }),
  ),
  /** Connected, and nothing below is wrong. */
  matches: Type.Boolean(),
  /** What no longer matches, one sentence each. */
  problems: Strings,
  /** What connect would pick without --model; null when no line serves a model it could use. */
  suggested: Nullable(SuggestedModels),
});
export type ConnectionView = Static<typeof ConnectionView>;

export const ConnectionsView = Type.Object({ origin: Type.String(), tools: Type.Array(ConnectionView) });
export type ConnectionsView = Static<typeof ConnectionsView>;

export const ConnectView = Type.Object({
  tool: Type.String(),
  name: Type.String(),
  dryRun: Type.Boolean(),
  /** False when the files already held exactly these entries. */
  changes: Type.Boolean(),
  origin: Type.String(),
  key: Type.Object({
    name: Type.String(),
    /** `create`: a new key; `reuse`: the tool's files already hold its secret; `rotate`: a new secret for an existing key. */
    action: OneOf(['create', 'reuse', 'rotate']),
    /** Null in a dry run that would create or rotate it. */
    last4: Nullable(Type.String()),
  }),
  model: Type.String(),
  smallModel: Nullable(Type.String()),
  files: Type.Array(
    Type.Object({
      id: Type.String(),
      path: Type.String(),
      existed: Type.Boolean(),
      /** Unified diff, the key masked; empty when the file stays as it is. */
      diff: Type.String(),
      /** Where the file as it was before Tollgate first touched it is kept; null in a dry run or for a new file. */
      backup: Nullable(Type.String()),
    }),
  ),
  /** Each file's SHA-256 as read (null: absent); send it back as `expect` to write exactly this diff. */
  expect: Type.Record(Type.String(), Nullable(Type.String())),
  notes: Strings,
});
export type ConnectView = Static<typeof ConnectView>;

export const DisconnectView = Type.Object({
  tool: Type.String(),
  name: Type.String(),
  key: Type.Object({ name: Type.String(), action: OneOf(['deleted', 'kept']), reason: Type.String() }),
  files: Type.Array(
    Type.Object({
      path: Type.String(),
      /** restored byte for byte, removed (it did not exist), cleaned (edited by hand: only Tollgate's entries taken out), missing (deleted by hand). */
      action: OneOf(['restored', 'removed', 'cleaned', 'missing']),
      notes: Strings,
    }),
  ),
});
export type DisconnectView = Static<typeof DisconnectView>;

export const SnippetView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  kind: OneOf(['code', 'config', 'shell', 'settings']),
  language: Type.String(),
  baseUrl: Type.String(),
  text: Type.String(),
  note: Type.Optional(Type.String()),
});
export type SnippetView = Static<typeof SnippetView>;

export const SnippetsView = Type.Object({
  origin: Type.String(),
  model: Type.String(),
  snippets: Type.Array(SnippetView),
});
export type SnippetsView = Static<typeof SnippetsView>;

export const EnvView = Type.Object({
  target: Type.String(),
  /**
   * Where the key in `text` comes from: `connected`, the connected tool's own key, read from its
   * files; `created`, a key made for this call; `variable`, none: the lines refer to $TOLLGATE_KEY.
   */
  keySource: OneOf(['connected', 'created', 'variable']),
  keyName: Nullable(Type.String()),
  model: Type.String(),
  /** Shell lines for `eval`; they hold the key's secret unless keySource is `variable`. */
  text: Type.String(),
});
export type EnvView = Static<typeof EnvView>;
