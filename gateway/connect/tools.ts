import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { GatewayError } from '../core/errors.js';
import type { Entry, ToolId, ToolSpec, Where } from './types.js';

/**
 * The coding tools connect can wire, as data. Every file location, key and variable below was
 * checked against the tool's own source and against the installed CLI; docs/connect.md says
 * what was checked where, and why each choice was made.
 */

/** The provider id Tollgate adds to Codex: built-in ids such as `openai` cannot be redefined. */
export const CODEX_PROVIDER = 'tollgate';
/** The provider id Tollgate adds to OpenCode; its models are picked as `tollgate/<model>`. */
export const OPENCODE_PROVIDER = 'tollgate';

const claudeDir = (w: Where): string => w.env.CLAUDE_CONFIG_DIR || join(w.home, '.claude');
const codexDir = (w: Where): string => w.env.CODEX_HOME || join(w.home, '.codex');
const geminiDir = (w: Where): string => join(w.env.GEMINI_CLI_HOME || w.home, '.gemini');
/** OpenCode's global folder: the XDG config home (also on macOS and Windows), then `opencode`. */
const opencodeDir = (w: Where): string => join(w.env.XDG_CONFIG_HOME || join(w.home, '.config'), 'opencode');
/**
 * OpenCode merges config.json, opencode.json and opencode.jsonc from that folder, later ones
 * winning, and writes its own changes to the first of these that exists: the same file here, so
 * Tollgate's entries are the ones OpenCode applies last. With none, the name its docs give.
 */
const OPENCODE_FILES = ['opencode.jsonc', 'opencode.json', 'config.json'];

/** `/v1` appended once, for clients whose base URL includes the version. */
export function v1(origin: string): string {
  return `${origin.replace(/\/+$/, '')}/v1`;
}

const claudeCode: ToolSpec = {
  id: 'claude-code',
  aliases: ['claude'],
  name: 'Claude Code',
  vendor: 'anthropic',
  command: 'claude',
  smallModel: true,
  files: [{ id: 'settings', format: 'json', locate: (w) => join(claudeDir(w), 'settings.json') }],
  entries: (w) => {
    const env = (name: string, value: string, role: Entry['role']): Entry => ({
      file: 'settings',
      path: ['env', name],
      value,
      role,
    });
    return [
      // The origin without /v1: the Anthropic client appends /v1/messages itself.
      env('ANTHROPIC_BASE_URL', w.origin, 'base-url'),
      // Sent as `Authorization: Bearer`; unlike ANTHROPIC_API_KEY it needs no approval prompt.
      env('ANTHROPIC_AUTH_TOKEN', w.secret, 'key'),
      env('ANTHROPIC_MODEL', w.model, 'model'),
      // Background work (titles, summaries, Explore) asks for the haiku-class model.
      env('ANTHROPIC_DEFAULT_HAIKU_MODEL', w.smallModel ?? w.model, 'small-model'),
    ];
  },
  env: (w) => ({
    vars: [
      ['ANTHROPIC_BASE_URL', w.origin],
      ['ANTHROPIC_AUTH_TOKEN', w.secret],
      ['ANTHROPIC_MODEL', w.model],
      ['ANTHROPIC_DEFAULT_HAIKU_MODEL', w.smallModel ?? w.model],
    ],
  }),
};

const codex: ToolSpec = {
  id: 'codex',
  aliases: [],
  name: 'Codex CLI',
  vendor: 'openai',
  command: 'codex',
  smallModel: false,
  files: [{ id: 'config', format: 'toml', locate: (w) => join(codexDir(w), 'config.toml') }],
  entries: (w) => {
    const provider = (name: string, value: string, role: Entry['role']): Entry => ({
      file: 'config',
      path: ['model_providers', CODEX_PROVIDER, name],
      value,
      role,
    });
    return [
      { file: 'config', path: ['model'], value: w.model, role: 'model' },
      { file: 'config', path: ['model_provider'], value: CODEX_PROVIDER, role: 'setting' },
      provider('name', 'Tollgate', 'setting'),
      // Codex appends /responses to the base URL.
      provider('base_url', v1(w.origin), 'base-url'),
      provider('wire_api', 'responses', 'setting'),
      // The key sits in the file so Codex finds it in any shell; `env_key` would need an export.
      provider('experimental_bearer_token', w.secret, 'key'),
    ];
  },
  env: (w) => ({
    vars: [['TOLLGATE_API_KEY', w.secret]],
    // Codex reads no base URL from the environment; `-c` defines the provider for one run.
    args: [
      '-c',
      `model_provider=${CODEX_PROVIDER}`,
      '-c',
      `model_providers.${CODEX_PROVIDER}.name=Tollgate`,
      '-c',
      `model_providers.${CODEX_PROVIDER}.base_url=${v1(w.origin)}`,
      '-c',
      `model_providers.${CODEX_PROVIDER}.env_key=TOLLGATE_API_KEY`,
      '-c',
      `model_providers.${CODEX_PROVIDER}.wire_api=responses`,
      '-m',
      w.model,
    ],
  }),
};

const geminiCli: ToolSpec = {
  id: 'gemini-cli',
  aliases: ['gemini'],
  name: 'Gemini CLI',
  vendor: 'google',
  command: 'gemini',
  smallModel: false,
  files: [
    { id: 'settings', format: 'json', locate: (w) => join(geminiDir(w), 'settings.json') },
    { id: 'env', format: 'dotenv', locate: (w) => join(geminiDir(w), '.env') },
  ],
  entries: (w) => [
    { file: 'settings', path: ['security', 'auth', 'selectedType'], value: 'gemini-api-key', role: 'setting' },
    { file: 'settings', path: ['model', 'name'], value: w.model, role: 'model' },
    // settings.json has no base URL or key in this version: Gemini CLI takes them from the
    // environment, and loads ~/.gemini/.env into it.
    { file: 'env', path: ['GEMINI_API_KEY'], value: w.secret, role: 'key' },
    // The origin without /v1beta: the embedded @google/genai appends the version itself.
    { file: 'env', path: ['GOOGLE_GEMINI_BASE_URL'], value: w.origin, role: 'base-url' },
  ],
  env: (w) => ({
    vars: [
      ['GOOGLE_GEMINI_BASE_URL', w.origin],
      ['GEMINI_API_KEY', w.secret],
      ['GEMINI_MODEL', w.model],
    ],
  }),
};

const opencode: ToolSpec = {
  id: 'opencode',
  aliases: [],
  name: 'OpenCode',
  command: 'opencode',
  smallModel: true,
  files: [
    {
      id: 'config',
      format: 'json',
      locate: (w) => {
        const dir = opencodeDir(w);
        return OPENCODE_FILES.map((f) => join(dir, f)).find((f) => existsSync(f)) ?? join(dir, 'opencode.json');
      },
    },
  ],
  entries: (w) => {
    const provider = (path: string[], value: string, role: Entry['role']): Entry => ({
      file: 'config',
      path: ['provider', OPENCODE_PROVIDER, ...path],
      value,
      role,
    });
    const small = w.smallModel || w.model;
    return [
      // OpenCode writes this line into any config file without it when it starts; set here, the
      // file stays as Tollgate wrote it, and disconnect can put the original bytes back.
      { file: 'config', path: ['$schema'], value: 'https://opencode.ai/config.json', role: 'setting' },
      { file: 'config', path: ['model'], value: `${OPENCODE_PROVIDER}/${w.model}`, role: 'model' },
      // The title of each session and other light work.
      { file: 'config', path: ['small_model'], value: `${OPENCODE_PROVIDER}/${small}`, role: 'small-model' },
      // OpenCode ships this AI SDK provider: it speaks Chat Completions to any base URL.
      provider(['npm'], '@ai-sdk/openai-compatible', 'setting'),
      provider(['name'], 'Tollgate', 'setting'),
      // The client appends /chat/completions.
      provider(['options', 'baseURL'], v1(w.origin), 'base-url'),
      provider(['options', 'apiKey'], w.secret, 'key'),
      // A custom provider offers only the models it lists, keyed by the id sent upstream.
      ...[...new Set([w.model, small])].map((m) => provider(['models', m, 'name'], m, 'setting')),
    ];
  },
  env: (w) => {
    // OPENCODE_CONFIG_CONTENT is merged over every config file; {env:…} is OpenCode's own substitution.
    const config = entryTree(opencode.entries({ ...w, secret: '{env:TOLLGATE_API_KEY}' }));
    return {
      vars: [
        ['TOLLGATE_API_KEY', w.secret],
        ['OPENCODE_CONFIG_CONTENT', JSON.stringify(config)],
      ],
    };
  },
};

export const TOOLS: readonly ToolSpec[] = [claudeCode, codex, geminiCli, opencode];
export const TOOL_IDS: readonly ToolId[] = TOOLS.map((t) => t.id);

/** Entries as the nested document they make (paths of keys to their values), for snippets and inline config. */
export function entryTree(entries: readonly Entry[]): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const entry of entries) {
    let node = root;
    for (const key of entry.path.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
    node[entry.path.at(-1)!] = entry.value;
  }
  return root;
}

/** The tool's entries with empty values: where each one goes, for reading the files back. */
export function entrySlots(tool: ToolSpec, origin = ''): Entry[] {
  return tool.entries({ origin, secret: '', model: '', smallModel: '' });
}

/** The tool an id or alias names (`claude` is Claude Code), or undefined. */
export function findTool(id: string): ToolSpec | undefined {
  return TOOLS.find((t) => t.id === id || t.aliases.includes(id));
}

/** Each tool as `id (or alias)`, for messages. */
export const TOOL_NAMES = TOOLS.map((t) =>
  t.aliases.length === 0 ? t.id : `${t.id} (or ${t.aliases.join(', ')})`,
).join(', ');

export function toolById(id: string): ToolSpec {
  const tool = findTool(id);
  if (!tool) {
    throw new GatewayError(
      'invalid_request',
      `Unknown tool "${id}". Tollgate connects ${TOOL_NAMES}; \`tollgate connect --snippets\` shows how to point other tools and SDKs at it.`,
      {
        code: 'unknown_tool',
        status: 404,
      },
    );
  }
  return tool;
}
