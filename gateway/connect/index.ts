/** The connect engine: point coding tools at Tollgate by editing their own config files, reversibly. */
export { connectTool, type ConnectInput, type ConnectResult } from './connect.js';
export { disconnectTool, type DisconnectOptions, type DisconnectResult, type FileAction, type FileOutcome } from './disconnect.js';
export { maskSecret, planConnect, type ConnectPlan, type FilePlan } from './plan.js';
export { listRecords, readRecord } from './records.js';
export { ENV_TARGETS, SNIPPET_IDS, shellExports, snippets, type Snippet, type SnippetInput } from './snippets.js';
export { connectStatus, type FileState, type GatewayView, type ToolStatus } from './status.js';
export { CODEX_PROVIDER, TOOL_IDS, TOOLS, toolById, v1 } from './tools.js';
export type { ConnectContext, ConnectRecord, Entry, ToolId, ToolSpec, Where, Wiring } from './types.js';
