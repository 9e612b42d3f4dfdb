import { GatewayError } from '../core/errors.js';
import { entryTree, findTool, toolById, TOOLS, v1 } from './tools.js';

/**
 * Copy-paste snippets and shell exports for clients Tollgate does not configure itself, built
 * from data so each carries the base-URL form its client needs: OpenAI-style clients take the
 * URL with /v1, the Anthropic and Google clients take the origin and add their own version
 * path. Snippets name the key as the variable TOLLGATE_KEY instead of holding it; docs/connect.md
 * lists the documentation each one was checked against.
 */

export interface SnippetInput {
  origin: string;
  model: string;
}

export interface Snippet {
  id: string;
  name: string;
  /** Where the text goes: a source file, a config file, a shell, or steps in the client's settings. */
  kind: 'code' | 'config' | 'shell' | 'settings';
  language: string;
  /** The base URL exactly as this client needs it. */
  baseUrl: string;
  text: string;
  /** Anything that keeps the snippet from working as is. */
  note?: string;
}

type Form = 'origin' | 'v1';

interface SnippetSpec {
  id: string;
  name: string;
  kind: Snippet['kind'];
  language: string;
  form: Form;
  /** `base` is the URL in the snippet's form; `origin` is Tollgate's URL without a path. */
  text(base: string, model: string, origin: string): string;
  note?: string;
}

const lines = (...l: string[]): string => l.join('\n') + '\n';

const SNIPPETS: readonly SnippetSpec[] = [
  {
    id: 'openai-node',
    name: 'OpenAI SDK (Node)',
    kind: 'code',
    language: 'ts',
    form: 'v1',
    text: (base, model) =>
      lines(
        "import OpenAI from 'openai';",
        '',
        `const client = new OpenAI({ baseURL: '${base}', apiKey: process.env.TOLLGATE_KEY });`,
        `const reply = await client.chat.completions.create({ model: '${model}', messages: [{ role: 'user', content: 'Hello' }] });`,
        'console.log(reply.choices[0].message.content);',
      ),
  },
  {
    id: 'openai-python',
    name: 'OpenAI SDK (Python)',
    kind: 'code',
    language: 'python',
    form: 'v1',
    text: (base, model) =>
      lines(
        'import os',
        'from openai import OpenAI',
        '',
        `client = OpenAI(base_url="${base}", api_key=os.environ["TOLLGATE_KEY"])`,
        `reply = client.chat.completions.create(model="${model}", messages=[{"role": "user", "content": "Hello"}])`,
        'print(reply.choices[0].message.content)',
      ),
  },
  {
    id: 'anthropic-node',
    name: 'Anthropic SDK (Node)',
    kind: 'code',
    language: 'ts',
    form: 'origin',
    text: (base, model) =>
      lines(
        "import Anthropic from '@anthropic-ai/sdk';",
        '',
        `const client = new Anthropic({ baseURL: '${base}', apiKey: process.env.TOLLGATE_KEY });`,
        `const reply = await client.messages.create({ model: '${model}', max_tokens: 1024, messages: [{ role: 'user', content: 'Hello' }] });`,
        'console.log(reply.content);',
      ),
  },
  {
    id: 'anthropic-python',
    name: 'Anthropic SDK (Python)',
    kind: 'code',
    language: 'python',
    form: 'origin',
    text: (base, model) =>
      lines(
        'import os',
        'from anthropic import Anthropic',
        '',
        `client = Anthropic(base_url="${base}", api_key=os.environ["TOLLGATE_KEY"])`,
        `reply = client.messages.create(model="${model}", max_tokens=1024, messages=[{"role": "user", "content": "Hello"}])`,
        'print(reply.content)',
      ),
  },
  {
    id: 'google-node',
    name: 'Google Gen AI SDK (Node)',
    kind: 'code',
    language: 'ts',
    form: 'origin',
    text: (base, model) =>
      lines(
        "import { GoogleGenAI } from '@google/genai';",
        '',
        `const ai = new GoogleGenAI({ apiKey: process.env.TOLLGATE_KEY, httpOptions: { baseUrl: '${base}' } });`,
        `const reply = await ai.models.generateContent({ model: '${model}', contents: 'Hello' });`,
        'console.log(reply.text);',
      ),
  },
  {
    id: 'google-python',
    name: 'Google Gen AI SDK (Python)',
    kind: 'code',
    language: 'python',
    form: 'origin',
    text: (base, model) =>
      lines(
        'import os',
        'from google import genai',
        'from google.genai import types',
        '',
        `client = genai.Client(api_key=os.environ["TOLLGATE_KEY"], http_options=types.HttpOptions(base_url="${base}"))`,
        `reply = client.models.generate_content(model="${model}", contents="Hello")`,
        'print(reply.text)',
      ),
  },
  {
    id: 'curl',
    name: 'curl',
    kind: 'shell',
    language: 'sh',
    form: 'v1',
    text: (base, model) =>
      lines(
        `curl ${base}/chat/completions \\`,
        '  -H "Authorization: Bearer $TOLLGATE_KEY" -H "Content-Type: application/json" \\',
        `  -d '{"model":"${model}","messages":[{"role":"user","content":"Hello"}]}'`,
      ),
  },
  {
    id: 'opencode',
    name: 'OpenCode',
    kind: 'config',
    language: 'json',
    form: 'v1',
    // The entries `tollgate connect opencode` writes, with the key as OpenCode's {env:…} reference.
    text: (_base, model, origin) =>
      JSON.stringify(
        entryTree(toolById('opencode').entries({ origin, secret: '{env:TOLLGATE_KEY}', model })),
        null,
        2,
      ) + '\n',
    note: "`tollgate connect opencode` writes this into ~/.config/opencode/opencode.json, with the key itself. By hand: merge it into an opencode.json (the global one, or a project's) and export TOLLGATE_KEY.",
  },
  {
    id: 'aider',
    name: 'Aider',
    kind: 'shell',
    language: 'sh',
    form: 'v1',
    text: (base, model) =>
      lines(`export OPENAI_API_BASE=${base}`, 'export OPENAI_API_KEY="$TOLLGATE_KEY"', `aider --model openai/${model}`),
    note: 'The openai/ prefix tells Aider to use its OpenAI-compatible client; a warning about unknown model metadata is harmless.',
  },
  {
    id: 'continue',
    name: 'Continue',
    kind: 'config',
    language: 'yaml',
    form: 'v1',
    text: (base, model) =>
      lines(
        'models:',
        `  - name: ${model} (Tollgate)`,
        '    provider: openai',
        `    model: ${model}`,
        `    apiBase: ${base}`,
        '    apiKey: ${{ secrets.TOLLGATE_KEY }}',
        '    roles: [chat, edit, apply]',
      ),
    note: 'Add to the models list of ~/.continue/config.yaml; put the key in ~/.continue/.env as TOLLGATE_KEY=… (or write it in place of the secrets reference).',
  },
  {
    id: 'cline',
    name: 'Cline',
    kind: 'settings',
    language: 'text',
    form: 'v1',
    text: (base, model) =>
      lines(
        'API Provider: OpenAI Compatible',
        `Base URL: ${base}`,
        'API Key: your Tollgate key (sk-…)',
        `Model ID: ${model}`,
      ),
    note: "In Cline's settings (the gear in its panel).",
  },
  {
    id: 'cursor',
    name: 'Cursor',
    kind: 'settings',
    language: 'text',
    form: 'v1',
    text: (base, model) =>
      lines(
        'Settings → Models → OpenAI API Key: your Tollgate key (sk-…)',
        `Override OpenAI Base URL: on, ${base}`,
        `Add model: ${model}`,
      ),
    note: 'Cursor sends these requests from its own servers, not from your machine, so it cannot reach a gateway on 127.0.0.1: this works only if Tollgate is reachable from the internet, which Tollgate does not set up (and exposing it is not advised).',
  },
];

export const SNIPPET_IDS: readonly string[] = SNIPPETS.map((s) => s.id);

export function snippets(input: SnippetInput): Snippet[] {
  return SNIPPETS.map((spec) => {
    const baseUrl = spec.form === 'v1' ? v1(input.origin) : input.origin.replace(/\/+$/, '');
    const out: Snippet = {
      id: spec.id,
      name: spec.name,
      kind: spec.kind,
      language: spec.language,
      baseUrl,
      text: spec.text(baseUrl, input.model, input.origin.replace(/\/+$/, '')),
    };
    if (spec.note) out.note = spec.note;
    return out;
  });
}

/** Variables SDKs and Aider read from the environment, for `tollgate env <name>`. */
const SDK_ENV: Record<string, (origin: string, secret: string, model: string) => Array<[string, string]>> = {
  openai: (o, s) => [
    ['OPENAI_BASE_URL', v1(o)],
    ['OPENAI_API_KEY', s],
  ],
  anthropic: (o, s) => [
    ['ANTHROPIC_BASE_URL', o],
    ['ANTHROPIC_API_KEY', s],
  ],
  google: (o, s) => [
    ['GOOGLE_GEMINI_BASE_URL', o],
    ['GEMINI_API_KEY', s],
  ],
  aider: (o, s, m) => [
    ['OPENAI_API_BASE', v1(o)],
    ['OPENAI_API_KEY', s],
    ['AIDER_MODEL', `openai/${m}`],
  ],
};

export const ENV_TARGETS: readonly string[] = [...TOOLS.map((t) => t.id), ...Object.keys(SDK_ENV)];

/** An env target by id or tool alias (`claude` is `claude-code`), or undefined. */
export function envTarget(id: string): string | undefined {
  return findTool(id)?.id ?? (Object.hasOwn(SDK_ENV, id) ? id : undefined);
}

export interface ExportOptions {
  /**
   * Refer to the key as this shell variable instead of writing it out: `"$TOLLGATE_KEY"`, expanded
   * by the shell that evaluates the lines. For when Tollgate holds no secret to print.
   */
  secretFromVar?: string;
}

/**
 * Shell lines that point one tool or SDK at Tollgate in the current shell (`eval "$(tollgate env
 * codex)"`): `export` lines and, for Codex, which reads no base URL from the environment, an alias.
 */
export function shellExports(
  target: string,
  wiring: { origin: string; secret: string; model: string; smallModel?: string | undefined },
  options: ExportOptions = {},
): string {
  const origin = wiring.origin.replace(/\/+$/, '');
  const id = envTarget(target);
  if (id === undefined) {
    throw new GatewayError(
      'invalid_request',
      `No environment for "${target}". Choose one of: ${ENV_TARGETS.join(', ')}.`,
      { code: 'unknown_tool', status: 404 },
    );
  }
  const tool = findTool(id);
  const { vars, args } = tool
    ? tool.env({ ...wiring, origin })
    : { vars: SDK_ENV[id]!(origin, wiring.secret, wiring.model), args: undefined };
  const ref = options.secretFromVar;
  const value = (v: string): string => (ref !== undefined && v === wiring.secret ? `"$${ref}"` : shellQuote(v));
  const out = vars.map(([name, v]) => `export ${name}=${value(v)}`);
  if (tool && args) out.push(`alias ${tool.command}=${shellQuote([tool.command, ...args.map(shellQuote)].join(' '))}`);
  return out.join('\n') + '\n';
}

/** Single-quoted for POSIX shells: taken literally, with embedded single quotes closed and escaped. */
export function shellQuote(value: string): string {
  return /^[\w./:@%+=-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
