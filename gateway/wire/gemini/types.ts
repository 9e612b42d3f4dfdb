/**
 * The Gemini generateContent wire shapes both sides of this format use (docs/protocols.md §4): the client
 * side reads and writes them for Gemini clients, the upstream side for Google's API. Plain REST JSON, which the @google/genai SDK types in camelCase under the same names.
 */

export interface GeminiPart {
  text?: string;
  /** The text is a thought summary, not the answer. */
  thought?: boolean;
  /** Opaque; Gemini 3 wants it back on the first functionCall part of each step. */
  thoughtSignature?: string;
  inlineData?: { mimeType: string; data: string };
  fileData?: { mimeType?: string; fileUri: string };
  functionCall?: { id?: string; name: string; args?: Record<string, unknown> };
  functionResponse?: {
    id?: string;
    name: string;
    response: Record<string, unknown>;
    parts?: { inlineData?: { mimeType: string; data: string } }[];
  };
  executableCode?: { language?: string; code?: string };
  codeExecutionResult?: { outcome?: string; output?: string };
}

export interface GeminiContent {
  role?: 'user' | 'model';
  parts: GeminiPart[];
}

export interface GeminiUsage {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  totalTokenCount?: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
  toolUsePromptTokenCount?: number;
  promptTokensDetails?: { modality?: string; tokenCount?: number }[];
  cacheTokensDetails?: { modality?: string; tokenCount?: number }[];
}

export interface GeminiCandidate {
  content?: { role?: string; parts?: GeminiPart[] };
  finishReason?: string;
  index?: number;
}

export interface GeminiResponse {
  candidates?: GeminiCandidate[];
  promptFeedback?: { blockReason?: string };
  usageMetadata?: GeminiUsage;
  modelVersion?: string;
  responseId?: string;
}

export interface GeminiErrorBody {
  error: { code: number; message: string; status: string; details?: Record<string, unknown>[] };
}

/**
 * What Gemini CLI puts on a function call that has no signature of its own, and what Gemini 3 then
 * accepts without checking (https://ai.google.dev/gemini-api/docs/thought-signatures).
 */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator';

/** A Map, since the extension is the client's: `x.constructor` must not find a function. */
const IMAGE_EXT = new Map([
  ['png', 'image/png'],
  ['jpg', 'image/jpeg'],
  ['jpeg', 'image/jpeg'],
  ['gif', 'image/gif'],
  ['webp', 'image/webp'],
  ['heic', 'image/heic'],
  ['heif', 'image/heif'],
]);

/** The MIME type a URL's extension implies, for `fileData` parts made from a canonical URL source. */
export function mimeFromUrl(url: string): string | undefined {
  const ext = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(url)?.[1]?.toLowerCase();
  if (ext === undefined) return undefined;
  if (ext === 'pdf') return 'application/pdf';
  return IMAGE_EXT.get(ext);
}

/** A Files API upload (`files/abc` or its full https URI) rather than a URL Gemini fetches. */
export function isFilesApiUri(uri: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:/i.test(uri) || /^https:\/\/generativelanguage\.googleapis\.com\/.*\/files\//.test(uri);
}
