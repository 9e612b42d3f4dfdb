/**
 * Gemini `generateContent` request → canonical. Used when the client speaks Gemini (Gemini CLI,
 * @google/genai) but the line's upstream does not. The model comes from the URL path
 * (`/v1beta/models/{model}:generateContent`), and whether to stream from the method, so both are
 * arguments. Decisions (docs/protocols.md §4, §6):
 *
 * - `systemInstruction` (a Content, or a bare string) → system blocks, one per text part.
 * - Roles `user` and `model`; a missing role is `user`, as the API treats it, and so is the legacy
 *   `function` role of function-response turns.
 * - `thought:true` text in a model turn → a thinking block of family 'gemini' with its signature.
 * - `inlineData` → an image (image/*) or a document (PDF, text, …); `fileData` → the same with a
 *   file source (Files API) or a URL source. Audio and video are refused with a 400: the
 *   canonical model has no block for them, and a placeholder would have the model answer as if it
 *   had heard nothing.
 * - `functionCall` → tool_call. Ids are optional in Gemini: a missing one is made up as
 *   `<name>_<contentIndex>_<partIndex>` (valid for Anthropic, deterministic across requests, so a
 *   resent history keeps its ids). The part's thoughtSignature is the call's signature, unless it
 *   is Tollgate's mark: then it holds another family's reasoning of that turn (encode.ts), which
 *   goes back before the call, and the turn's unsigned thought parts (copies to read) are left out.
 * - `functionResponse` → tool_result, matched to its call by id, else by name and order among the
 *   calls of the preceding model turn. Its text is `response.output` or `response.result` when a
 *   string; a response with only `error` is a failed tool; anything else is sent as JSON.
 */
import type {
  CanonicalMessage,
  CanonicalRequest,
  ContentBlock,
  DocumentBlock,
  ImageBlock,
  TextBlock,
  ToolCallBlock,
  ToolResultBlock,
} from '../../core/canonical.js';
import { isObject, str } from '../../core/json.js';
import { isMarked, restore, thinkingFrom, unmark } from '../../core/reasoning.js';
import { isFilesApiUri, mimeFromUrl } from './types.js';
import { decodeGenerationConfig, decodeToolChoice, decodeTools } from './decode-config.js';
import { invalidRequest } from '../../core/errors.js';

type Obj = Record<string, unknown>;

export interface DecodeOptions {
  /** The client called `:streamGenerateContent`. */
  stream?: boolean;
}

interface Call {
  id: string;
  name: string;
  answered: boolean;
}

/** The calls seen so far: by id, and those of the latest model turn for matching by name and order. */
class Calls {
  private readonly byId = new Map<string, Call>();
  private turn: Call[] = [];

  startModelTurn(): void {
    this.turn = [];
  }

  add(id: string, name: string): void {
    const call = { id, name, answered: false };
    this.turn.push(call);
    this.byId.set(id, call);
  }

  match(id: string, name: string): Call | undefined {
    const call = (id ? this.byId.get(id) : undefined) ?? this.turn.find((c) => !c.answered && c.name === name);
    if (call) call.answered = true;
    return call;
  }
}

const safeId = (name: string, content: number, part: number): string =>
  `${name.replace(/[^a-zA-Z0-9_-]/g, '_')}_${content}_${part}`;

function requiredString(v: unknown, param: string): string {
  if (typeof v !== 'string' || v === '')
    throw invalidRequest(`${param} must be a non-empty string.`, param, 'invalid_type');
  return v;
}

function media(p: Obj, param: string): ImageBlock | DocumentBlock {
  const inline = isObject(p.inlineData) ? p.inlineData : undefined;
  const file = isObject(p.fileData) ? p.fileData : {};
  const mimeType = inline ? requiredString(inline.mimeType, `${param}.inlineData.mimeType`) : str(file.mimeType);
  if (/^(audio|video)\//.test(mimeType)) {
    throw invalidRequest(
      `${param}: ${mimeType} input is not supported by this gateway's translation; send images, PDFs or text.`,
      param,
      'unsupported_value',
    );
  }
  if (inline) {
    const source = {
      kind: 'base64' as const,
      mediaType: mimeType,
      data: requiredString(inline.data, `${param}.inlineData.data`),
    };
    return mimeType.startsWith('image/') ? { type: 'image', source } : { type: 'document', source };
  }
  const uri = requiredString(file.fileUri, `${param}.fileData.fileUri`);
  const source = isFilesApiUri(uri) ? { kind: 'file' as const, fileId: uri } : { kind: 'url' as const, url: uri };
  return (mimeType || mimeFromUrl(uri) || '').startsWith('image/')
    ? { type: 'image', source }
    : { type: 'document', source };
}

function toolResult(
  fr: Obj,
  param: string,
  content: number,
  part: number,
  calls: Calls,
  notes: string[],
): ToolResultBlock {
  const name = requiredString(fr.name, `${param}.functionResponse.name`);
  const call = calls.match(str(fr.id), name);
  if (!call) notes.push(`gemini: a functionResponse for "${name}" matches no earlier functionCall`);
  const r: Obj = isObject(fr.response) ? fr.response : {};
  const failed = r.error !== undefined && r.output === undefined && r.result === undefined;
  const value =
    typeof r.output === 'string' ? r.output : typeof r.result === 'string' ? r.result : failed ? r.error : r;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const blocks: ToolResultBlock['content'] = text === '' ? [] : [{ type: 'text', text }];
  // Gemini 3 multimodal function responses carry their media in `parts`.
  const parts: unknown[] = Array.isArray(fr.parts) ? fr.parts : [];
  parts.forEach((p, i) => {
    if (isObject(p)) blocks.push(media(p, `${param}.functionResponse.parts[${i}]`));
  });
  const block: ToolResultBlock = {
    type: 'tool_result',
    toolCallId: call?.id ?? (str(fr.id) || safeId(name, content, part)),
    name,
    content: blocks,
  };
  if (failed) block.isError = true;
  return block;
}

function toolCall(
  p: Obj,
  fc: Obj,
  param: string,
  content: number,
  part: number,
  calls: Calls,
  notes: string[],
): ContentBlock[] {
  const name = requiredString(fc.name, `${param}.functionCall.name`);
  if (fc.args !== undefined && fc.args !== null && !isObject(fc.args))
    throw invalidRequest(`${param}.functionCall.args must be an object.`, `${param}.functionCall.args`, 'invalid_type');
  const call: ToolCallBlock = {
    type: 'tool_call',
    id: str(fc.id) || safeId(name, content, part),
    name,
    input: isObject(fc.args) ? fc.args : {},
  };
  calls.add(call.id, name);
  const carried = unmark(p.thoughtSignature);
  if (carried?.kind === 'bundle') return [...carried.blocks.map(restore), call];
  if (isMarked(p.thoughtSignature))
    notes.push('gemini: a function call with a damaged Tollgate mark was kept unsigned');
  else if (str(p.thoughtSignature)) {
    call.signature = str(p.thoughtSignature);
    call.signatureFamily = 'gemini';
  }
  return [call];
}

function block(
  p: unknown,
  model: boolean,
  content: number,
  part: number,
  calls: Calls,
  notes: string[],
): ContentBlock | ContentBlock[] | undefined {
  const param = `contents[${content}].parts[${part}]`;
  if (!isObject(p)) throw invalidRequest(`${param} must be an object.`, param, 'invalid_type');
  if (typeof p.text === 'string') {
    if (p.thought !== true) return p.text === '' ? undefined : { type: 'text', text: p.text };
    if (!model) {
      notes.push('gemini: dropped a thought part from a user turn');
      return undefined;
    }
    const carried = unmark(p.thoughtSignature);
    if (carried?.kind === 'thinking') return thinkingFrom(carried, p.text);
    return str(p.thoughtSignature) && !isMarked(p.thoughtSignature)
      ? { type: 'thinking', text: p.text, signature: str(p.thoughtSignature), family: 'gemini' }
      : { type: 'thinking', text: p.text, family: 'gemini' };
  }
  if (isObject(p.functionCall)) return toolCall(p, p.functionCall, param, content, part, calls, notes);
  if (isObject(p.functionResponse)) return toolResult(p.functionResponse, param, content, part, calls, notes);
  if (isObject(p.inlineData) || isObject(p.fileData)) return media(p, param);
  // Results of Google's code tool from an earlier turn: their text keeps the history readable.
  if (isObject(p.executableCode)) {
    notes.push('gemini: code-execution parts sent as text');
    return {
      type: 'text',
      text: `\`\`\`${str(p.executableCode.language).toLowerCase()}\n${str(p.executableCode.code)}\n\`\`\``,
    };
  }
  if (isObject(p.codeExecutionResult)) {
    notes.push('gemini: code-execution parts sent as text');
    return { type: 'text', text: `${str(p.codeExecutionResult.outcome)}: ${str(p.codeExecutionResult.output)}` };
  }
  notes.push(`gemini: dropped a part with ${Object.keys(p).join(', ') || 'no fields'}`);
  return undefined;
}

function decodeContents(v: unknown, notes: string[]): CanonicalMessage[] {
  if (!Array.isArray(v) || v.length === 0)
    throw invalidRequest('contents must be a non-empty array.', 'contents', 'invalid_type');
  const calls = new Calls();
  return v.flatMap((c: unknown, i): CanonicalMessage[] => {
    if (!isObject(c)) throw invalidRequest(`contents[${i}] must be an object.`, `contents[${i}]`, 'invalid_type');
    const role = c.role ?? 'user';
    if (role !== 'user' && role !== 'model' && role !== 'function')
      throw invalidRequest(`contents[${i}].role must be "user" or "model".`, `contents[${i}].role`);
    if (!Array.isArray(c.parts))
      throw invalidRequest(`contents[${i}].parts must be an array.`, `contents[${i}].parts`, 'invalid_type');
    const model = role === 'model';
    if (model) calls.startModelTurn();
    let content = c.parts.flatMap((p: unknown, k) => block(p, model, i, k, calls, notes) ?? []);
    // A turn whose reasoning came back in a bundle sent its unsigned thought parts only to be read.
    const bundled =
      model &&
      c.parts.some(
        (p: unknown) => isObject(p) && isObject(p.functionCall) && unmark(p.thoughtSignature)?.kind === 'bundle',
      );
    if (bundled) content = content.filter((b) => !(b.type === 'thinking' && b.family === 'gemini' && !b.signature));
    return content.length === 0 ? [] : [{ role: model ? 'assistant' : 'user', content }];
  });
}

function systemInstruction(v: unknown, notes: string[]): TextBlock[] {
  if (v === undefined || v === null || v === '') return [];
  if (typeof v === 'string') return [{ type: 'text', text: v }];
  if (!isObject(v) || !Array.isArray(v.parts))
    throw invalidRequest(
      'systemInstruction must be a string or {parts:[{text}]}.',
      'systemInstruction',
      'invalid_type',
    );
  return v.parts.flatMap((p: unknown): TextBlock[] => {
    if (isObject(p) && typeof p.text === 'string') return p.text === '' ? [] : [{ type: 'text', text: p.text }];
    notes.push('gemini: dropped a non-text part from systemInstruction');
    return [];
  });
}

/** A generateContent body → canonical. Throws a 400 GatewayError on a body Gemini does not allow. */
export function decodeRequest(body: unknown, modelFromPath: string, opts: DecodeOptions = {}): CanonicalRequest {
  if (!isObject(body)) throw invalidRequest('The request body must be a JSON object.', 'body', 'invalid_type');
  const model = modelFromPath.replace(/^models\//, '');
  if (model === '')
    throw invalidRequest('The model is missing from the path (/v1beta/models/{model}:generateContent).', 'model');
  const notes: string[] = [];
  const req: CanonicalRequest = {
    model,
    system: systemInstruction(body.systemInstruction, notes),
    messages: decodeContents(body.contents, notes),
    tools: decodeTools(body.tools, notes),
    stream: opts.stream === true,
    notes,
  };
  const choice = decodeToolChoice(body.toolConfig, notes);
  if (choice) req.toolChoice = choice;
  decodeGenerationConfig(body.generationConfig, req, notes);
  for (const key of ['cachedContent', 'safetySettings', 'labels']) {
    if (body[key] !== undefined && body[key] !== null) notes.push(`gemini: ${key} is not carried to other providers`);
  }
  return req;
}

/** A countTokens body, `{contents}` or `{generateContentRequest:{…}}` → canonical, for counting the prompt. */
export function decodeCountTokensRequest(body: unknown, modelFromPath: string): CanonicalRequest {
  return decodeRequest(
    isObject(body) && isObject(body.generateContentRequest) ? body.generateContentRequest : body,
    modelFromPath,
  );
}
