/**
 * Who sent a model request, read from its headers alone: the tool (the client's identifying
 * headers), the session and sub-agent ids the tool itself sends, and a project label. What each
 * real client sends is written down in docs/sessions.md, "What the tools send"; the rules here
 * follow it. Nothing is parsed beyond a few header lookups, so attribution costs no measurable
 * CPU per request.
 */
import type { ToolId } from '../contract/sessions.js';

export type Headers = Record<string, string | string[] | undefined>;

/** What the headers say about a request's session. */
export interface Identity {
  tool: ToolId;
  /** The session id the client sent (its own, or `x-tollgate-session`); null: none, one is assigned. */
  sessionId: string | null;
  /** The sub-agent id the client sent; null for the main agent. */
  agent: string | null;
  /** `x-tollgate-project`, when sent. */
  project: string | null;
}

function one(h: Headers, name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

/** A session, agent or project label as sent: printable ASCII, at most 128 characters; anything else is not used. */
const LABEL = /^[\x21-\x7e][\x20-\x7e]{0,127}$/;

function label(v: string | undefined): string | null {
  if (v === undefined) return null;
  const t = v.trim();
  return LABEL.test(t) ? t : null;
}

/**
 * The tool, by the user agent first: Claude Code and Gemini CLI are built on the vendors' SDKs
 * and send those SDKs' other headers too (x-stainless-*, x-goog-api-client), so only the user
 * agent tells the tool from its SDK.
 */
export function toolOf(h: Headers): ToolId {
  const ua = one(h, 'user-agent') ?? '';
  if (ua.startsWith('claude-cli/') || one(h, 'x-claude-code-session-id') !== undefined) return 'claude-code';
  if (ua.startsWith('codex') || (one(h, 'originator') ?? '').startsWith('codex')) return 'codex';
  if (ua.startsWith('GeminiCLI')) return 'gemini-cli';
  if (ua.startsWith('opencode/')) return 'opencode';
  if (ua.startsWith('OpenAI/')) return 'openai-sdk';
  if (ua.startsWith('Anthropic/')) return 'anthropic-sdk';
  if (ua.startsWith('google-genai-sdk/') || (one(h, 'x-goog-api-client') ?? '').startsWith('google-genai-sdk/'))
    return 'google-genai-sdk';
  if (ua.startsWith('curl/')) return 'curl';
  return 'unknown';
}

/**
 * The session and sub-agent ids, in this order: `x-tollgate-session` (any client may name its
 * session), Claude Code's `x-claude-code-session-id` with `x-claude-code-agent-id` on a
 * sub-agent's calls, Codex's `session-id` with `thread-id` (a thread other than the session's
 * own is a sub-agent), OpenCode's `x-session-id`. Gemini CLI and the SDKs send none.
 */
export function identify(h: Headers): Identity {
  const tool = toolOf(h);
  const project = label(one(h, 'x-tollgate-project'));
  const explicit = label(one(h, 'x-tollgate-session'));
  const claude = label(one(h, 'x-claude-code-session-id'));
  const codex = label(one(h, 'session-id'));
  let sessionId = explicit ?? claude ?? codex ?? label(one(h, 'x-session-id'));
  let agent: string | null = null;
  if (claude !== null && (explicit === null || explicit === claude)) agent = label(one(h, 'x-claude-code-agent-id'));
  else if (codex !== null && (explicit === null || explicit === codex)) {
    const thread = label(one(h, 'thread-id'));
    agent = thread !== null && thread !== codex ? thread : null;
  }
  if (sessionId === '') sessionId = null;
  return { tool, sessionId, agent, project };
}
