/** The connect engine: point coding tools at Tollgate by editing their own config files, reversibly. */
export { connectTool, type ConnectInput, type ConnectResult } from './connect.js';
export {
  disconnectTool,
  type DisconnectOptions,
  type DisconnectResult,
  type FileAction,
  type FileOutcome,
} from './disconnect.js';
export { keyInFiles } from './current.js';
export { maskSecret, planConnect, type ConnectPlan, type FilePlan, type PlanOptions } from './plan.js';
export { listRecords, readRecord } from './records.js';
export {
  ENV_TARGETS,
  envTarget,
  SNIPPET_IDS,
  shellExports,
  snippets,
  type ExportOptions,
  type Snippet,
  type SnippetInput,
} from './snippets.js';
export { connectStatus, type FileState, type GatewayView, type ToolStatus } from './status.js';
export { CODEX_PROVIDER, findTool, TOOL_IDS, TOOL_NAMES, TOOLS, toolById, v1 } from './tools.js';
export type { ConnectContext, ConnectRecord, Entry, ToolId, ToolSpec, Where, Wiring } from './types.js';
