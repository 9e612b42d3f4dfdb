/**
 * The connect engine's vocabulary: a coding tool is data (the files it reads and the entries
 * Tollgate puts in them), and every change Tollgate makes to a user's file is recorded so it can
 * be undone. See docs/connect.md.
 */

export type ToolId = 'claude-code' | 'codex' | 'gemini-cli' | 'opencode';
export type FormatId = 'json' | 'toml' | 'dotenv';

/** Where a tool looks for its files: the user's home and the environment the tool will run in. */
export interface Where {
  home: string;
  env: Readonly<Record<string, string | undefined>>;
}

/** What the engine needs to run: where tools live, and Tollgate's data dir for records and backups. */
export interface ConnectContext extends Where {
  dataDir: string;
}

export interface ToolFile {
  /** Stable id within the tool, used in records and backups: `settings`, `config`, `env`. */
  id: string;
  format: FormatId;
  /** The path the tool reads, honouring the tool's own override variable (CODEX_HOME and the like). */
  locate(where: Where): string;
}

/** What a connect points the tool at. `origin` is Tollgate's URL without a path. */
export interface Wiring {
  origin: string;
  secret: string;
  model: string;
  smallModel?: string | undefined;
}

/** What an entry is for, so status can say what is wired to what. */
export type EntryRole = 'base-url' | 'key' | 'model' | 'small-model' | 'setting';

/** One value Tollgate sets, at a path of keys inside one file. */
export interface Entry {
  file: string;
  path: string[];
  value: string;
  role: EntryRole;
}

export interface ToolSpec {
  id: ToolId;
  /** Other names the CLI and the admin API accept for the tool: `claude`, `gemini`. */
  aliases: readonly string[];
  name: string;
  /**
   * The preset whose models the tool is made for; connect picks its default model among them.
   * None for a tool made for every vendor (OpenCode): then the first served model is the default.
   */
  vendor?: string;
  /** The executable, for messages ("run `codex`"). */
  command: string;
  /** Whether the tool has a separate small/fast model setting that connect fills. */
  smallModel: boolean;
  files: readonly ToolFile[];
  entries(wiring: Wiring): Entry[];
  /**
   * What points the tool at Tollgate for one shell, for `tollgate env <tool>`: variables to
   * export and, for a tool that reads no base URL from the environment, arguments for an alias.
   */
  env(wiring: Wiring): { vars: Array<[name: string, value: string]>; args?: string[] };
}

/** A file as the engine changed it, kept in the record. Hashes are SHA-256 hex of the bytes. */
export interface FileRecord {
  id: string;
  path: string;
  existed: boolean;
  /** Permission bits of the file before connect (null when it did not exist). */
  mode: number | null;
  beforeSha256: string | null;
  afterSha256: string;
  /** Where the content before connect is kept (null when the file did not exist). */
  backup: string | null;
  /** Folders connect created for the file, deepest last; disconnect removes them again if empty. */
  createdDirs: string[];
  /**
   * True while every write since connect started from Tollgate's own last output: then disconnect
   * can put the original bytes back. A reconnect over a hand-edited file clears it.
   */
  exact: boolean;
  /** The entries written, each with the SHA-256 of its value (so the key's secret is never stored). */
  entries: Array<{ path: string[]; role: EntryRole; sha256: string }>;
}

/** What Tollgate did to one tool, stored as `<dataDir>/connect/<tool>.json`. Never holds a secret. */
export interface ConnectRecord {
  tool: ToolId;
  connectedAt: string;
  updatedAt: string;
  origin: string;
  keyName: string;
  /**
   * Whether connect created the key for this tool (rather than reusing one the user had), so that
   * disconnect may delete it. Absent in records written before the field existed: false.
   */
  keyCreated?: boolean;
  model: string;
  smallModel: string | null;
  files: FileRecord[];
}
