/** Who sent a request, as the log shows it: the tool by its name, the session by a short id. */
import { isToolId, TOOL_NAMES } from '../../../gateway/contract/sessions.js';

/** A tool id as people know it (`claude-code` → Claude Code); an id the console does not know, as it is. */
export function toolLabel(tool: string): string {
  return isToolId(tool) ? TOOL_NAMES[tool] : tool;
}

/**
 * A session id short enough for a column: its first eight characters, which tell a night's
 * sessions apart (Claude Code's and Codex's are UUIDs); the full id is in the cell's title and the
 * details drawer.
 */
export function shortSession(id: string): string {
  return id.length > 10 ? `${id.slice(0, 8)}…` : id;
}
