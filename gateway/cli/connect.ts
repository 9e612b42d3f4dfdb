import { homedir } from 'node:os';
import type { Command } from 'commander';
import type {
  AdminClient,
  ConnectBody,
  ConnectionsView,
  ConnectView,
  DisconnectView,
} from '../contract/admin/index.js';
import { ENV_TARGETS } from '../connect/snippets.js';
import { findTool, TOOL_NAMES } from '../connect/tools.js';
import { CliError } from './client.js';
import { table } from './format.js';
import { confirm, json, print } from './output.js';

/**
 * `tollgate connect`, `disconnect` and `env`: the gateway edits the tools' files (docs/connect.md);
 * the CLI shows the diff, asks before writing when a person is at the terminal, and reports.
 */
export function registerConnect(program: Command, client: () => AdminClient): void {
  program
    .command('connect [tool]')
    .description(
      `point a coding tool at Tollgate with a key of its own: ${TOOL_NAMES}. Shows the diff and asks before writing`,
    )
    .option(
      '--key <name>',
      "the tool's key (default: the tool's id); created, or reused when the tool's files already hold it",
    )
    .option(
      '--model <id>',
      "the main model, a catalogue id one of your lines serves (default: the newest served model of the tool's vendor)",
    )
    .option(
      '--small-model <id>',
      "the small/fast model of Claude Code and OpenCode (default: the cheapest served model of the main model's vendor)",
    )
    .option('--dry-run', 'show the diff and write nothing (no key is created)')
    .option('-y, --yes', 'write without asking; needed when standard input is not a terminal')
    .option(
      '--rotate-key',
      "when the key exists but no tool's files hold it: give it a new secret (the old one stops working)",
    )
    .option('--status', 'which tools point at Tollgate, with which key and model, and whether the wiring still matches')
    .option(
      '--snippets',
      'copy-paste setup for other clients: the SDKs, curl, OpenCode, Aider, Continue, Cline, Cursor',
    )
    .option('--json', 'machine-readable output')
    .action(async (tool: string | undefined, o: ConnectOptions) => {
      if (o.status || o.snippets) {
        if (tool !== undefined) throw new CliError(`--${o.status ? 'status' : 'snippets'} takes no tool name.`);
        return o.status ? status(client(), o.json === true) : printSnippets(client(), o);
      }
      if (tool === undefined)
        throw new CliError(
          `Name a tool to connect: ${TOOL_NAMES}. "tollgate connect --status" shows what is connected.`,
        );
      await connect(client(), tool, o);
    });

  program
    .command('disconnect <tool>')
    .description("undo connect: each file back byte for byte, or, if edited since, only Tollgate's entries taken out")
    .option(
      '--force',
      'put back the files as they were before connect even if they were edited since (the current ones are kept as backups)',
    )
    .option('--keep-key', 'keep the key connect made for the tool (it is deleted by default)')
    .option('--json', 'machine-readable output')
    .action(async (tool: string, o: { force?: boolean; keepKey?: boolean; json?: boolean }) => {
      const r = await client().call('disconnectTool', {
        params: { tool },
        query: { force: o.force === true, keepKey: o.keepKey === true },
      });
      if (o.json) return json(r);
      printDisconnect(r);
    });

  program
    .command('env <target>')
    .description(
      `shell exports that point a tool or SDK at Tollgate: eval "$(tollgate env codex)". Targets: ${ENV_TARGETS.join(', ')}`,
    )
    .option('--model <id>', 'the model (default: the connected model, else as connect picks it)')
    .option('--new-key', 'create a key for it and print its secret in the exports (shown once)')
    .option('--key <name>', 'the name of that new key (default: the target)')
    .action(async (target: string, o: { model?: string; newKey?: boolean; key?: string }) => {
      if (o.key !== undefined && !o.newKey) throw new CliError('--key names the key --new-key creates; add --new-key.');
      const r = await client().call('shellEnv', {
        params: { target },
        body: { ...(o.model && { model: o.model }), ...(o.newKey && { newKey: true }), ...(o.key && { key: o.key }) },
      });
      process.stdout.write(r.text);
      if (r.keySource === 'created')
        process.stderr.write(`Key "${r.keyName}" created; its secret is in the lines above and is not shown again.\n`);
      if (r.keySource === 'variable') {
        process.stderr.write(
          `Tollgate holds no key for ${r.target}, so the lines use $TOLLGATE_KEY: set it to a Tollgate key, or run again with --new-key to create one.\n`,
        );
      }
    });
}

interface ConnectOptions {
  key?: string;
  model?: string;
  smallModel?: string;
  dryRun?: boolean;
  yes?: boolean;
  rotateKey?: boolean;
  status?: boolean;
  snippets?: boolean;
  json?: boolean;
}

async function connect(admin: AdminClient, tool: string, o: ConnectOptions): Promise<void> {
  const body: ConnectBody = {
    ...(o.key && { key: o.key }),
    ...(o.model && { model: o.model }),
    ...(o.smallModel && { smallModel: o.smallModel }),
    ...(o.rotateKey && { rotateKey: true }),
  };
  const call = (extra: Partial<ConnectBody>): Promise<ConnectView> =>
    admin.call('connectTool', { params: { tool }, body: { ...body, ...extra } });
  if (o.yes && !o.dryRun) {
    // No one to ask: write, then show what was written.
    const done = await call({});
    if (o.json) return json(done);
    printPlan(done);
    return printConnected(done);
  }
  const preview = await call({ dryRun: true });
  if (o.json && o.dryRun) return json(preview);
  printPlan(preview);
  if (o.dryRun) return print('Dry run: nothing was written and no key was created.');
  if (preview.changes) {
    if (!process.stdin.isTTY) {
      throw new CliError(
        'Nothing was written: standard input is not a terminal, so no one can confirm. Run again with --yes to write these changes, or --dry-run to only see them.',
      );
    }
    if (!(await confirm('Write these changes? [y/N] '))) return print('Nothing was written.');
  }
  // The files must still be as the preview read them: what is written is what was shown.
  const done = await call({ expect: preview.expect });
  if (o.json) return json(done);
  printConnected(done);
}

const KEY_ACTION: Record<ConnectView['key']['action'], string> = {
  create: 'a new key',
  reuse: "the tool's files already hold it",
  rotate: 'a new secret for this key; the old one stops working',
};

function printPlan(p: ConnectView): void {
  const key = p.key.last4 === null ? p.key.name : `${p.key.name} (sk-…${p.key.last4})`;
  print(`${p.name} → ${p.origin}`);
  print(`  key:   ${key}: ${KEY_ACTION[p.key.action]}`);
  print(`  model: ${p.model}${p.smallModel === null ? '' : `, small/fast model ${p.smallModel}`}`);
  print('');
  for (const f of p.files) print(f.diff === '' ? `${f.path}: no change\n` : f.diff);
  for (const n of p.notes) print(`Note: ${n}`);
  warnIfElsewhere(p.tool, p.files);
}

function printConnected(p: ConnectView): void {
  print(`Connected ${p.name} to ${p.origin} with the key "${p.key.name}" (sk-…${p.key.last4}).`);
  for (const f of p.files) {
    if (f.diff === '') continue;
    print(
      `  ${f.path}: ${f.existed ? `changed${f.backup ? `; as it was, it is kept at ${f.backup}` : ''}` : 'created'}`,
    );
  }
  const command = findTool(p.tool)?.command ?? p.tool;
  print(
    `Run ${command} as usual; its requests show in "tollgate logs --key ${p.key.name}". Undo: tollgate disconnect ${p.tool}`,
  );
}

const FILE_ACTION: Record<DisconnectView['files'][number]['action'], string> = {
  restored: 'put back byte for byte',
  removed: 'removed (Tollgate had created it)',
  cleaned: "edited since connect: only Tollgate's entries taken out",
  missing: 'deleted since connect; left alone',
};

function printDisconnect(r: DisconnectView): void {
  print(`Disconnected ${r.name}.`);
  for (const f of r.files) {
    print(`  ${f.path}: ${FILE_ACTION[f.action]}`);
    for (const n of f.notes) print(`    ${n}`);
  }
  print(`Key "${r.key.name}" ${r.key.action}: ${r.key.reason}.`);
}

async function status(admin: AdminClient, asJson: boolean): Promise<void> {
  const s = await admin.call('connectStatus');
  if (asJson) return json(s);
  print(
    table(
      ['TOOL', 'STATE', 'KEY', 'MODEL', 'BASE URL'],
      s.tools.map((t) => [
        t.tool,
        state(t),
        t.keyName ?? '-',
        t.model === null
          ? '-'
          : t.smallModel && t.smallModel !== t.model
            ? `${t.model} (small: ${t.smallModel})`
            : t.model,
        t.baseUrl ?? '-',
      ]),
    ),
  );
  for (const t of s.tools) for (const p of t.problems) print(`  ${t.tool}: ${p}`);
  const idle = s.tools.filter((t) => !t.connected).map((t) => t.tool);
  if (idle.length > 0) print(`Connect one with: tollgate connect ${idle[0]}`);
}

function state(t: ConnectionsView['tools'][number]): string {
  if (!t.connected) return t.pointsAtTollgate ? 'not connected (set by hand)' : 'not connected';
  return t.matches ? 'connected' : `connected, ${t.problems.length} problem${t.problems.length === 1 ? '' : 's'}`;
}

async function printSnippets(admin: AdminClient, o: ConnectOptions): Promise<void> {
  const s = await admin.call('listSnippets', { query: o.model ? { model: o.model } : {} });
  if (o.json) return json(s);
  print(
    `Copy-paste setup for ${s.origin}, with the model ${s.model} and your key in $TOLLGATE_KEY (tollgate keys create --name NAME):`,
  );
  for (const snippet of s.snippets) {
    print(`\n## ${snippet.name} (base URL ${snippet.baseUrl})\n`);
    process.stdout.write(snippet.text);
    if (snippet.note) print(`# ${snippet.note}`);
  }
}

/**
 * The gateway finds the tools' files from its own HOME and environment; a shell with another
 * CODEX_HOME (say) runs the tool against other files. Said, so the user is not left wondering.
 */
function warnIfElsewhere(toolId: string, files: ReadonlyArray<{ id: string; path: string }>): void {
  const tool = findTool(toolId);
  for (const f of files) {
    const here = tool?.files.find((x) => x.id === f.id)?.locate({ home: homedir(), env: process.env });
    if (here !== undefined && here !== f.path) {
      process.stderr.write(
        `Note: the gateway edits ${f.path}, but ${tool!.command} run from this shell reads ${here} (HOME, CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME or XDG_CONFIG_HOME differ from the gateway's).\n`,
      );
    }
  }
}
