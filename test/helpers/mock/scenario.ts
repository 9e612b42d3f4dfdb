/**
 * The `/s/<scenario>` path prefix of the mock upstream: one request's behaviour, parsed from the URL so that
 * several gateway lines can point at one mock with different behaviour and no shared mutable state.
 */

/**
 * Parsed `/s/<scenario>` prefix, e.g. `/s/delay=50,status=429,retry-after=2/v1/...`.
 * Values are URL-decoded after splitting on `,`, so a reply containing a comma is written `reply=a%2Cb`.
 */
export interface Scenario {
  /** The raw scenario segment, '' when the request had no prefix. */
  name: string;
  /** Wait this long before sending response headers (a huge value stalls until the client aborts). */
  delayMs: number;
  /** Reply with this HTTP status and a vendor-shaped error body. */
  status?: number;
  /** Value of the `retry-after` header sent with `status`. */
  retryAfter?: string;
  /** Streaming: send N events then cut the connection. Non-streaming: send half the body then cut. */
  dropAfter?: number;
  /** Pause between streamed events. */
  chunkDelayMs: number;
  /** Streaming: pause after the headers and before the first event, so the first byte of the body comes late. */
  firstChunkDelayMs: number;
  /** Omit usage entirely, and never stream a usage chunk even if asked. */
  noUsage: boolean;
  /** Chat Completions streams: end without the `data: [DONE]` terminator, as some compatible servers do. */
  noDone: boolean;
  /**
   * Forced usage. `input` is the WHOLE prompt, cache included, on every vendor, so one scenario yields the
   * same canonical usage whichever protocol the gateway speaks upstream: OpenAI reports it as `prompt_tokens` /
   * `input_tokens` and Gemini as `promptTokenCount` (cached is a subset), Anthropic as
   * `input_tokens = input - cached - cacheWrite`. Likewise `output` is the whole output, `reasoning` included:
   * OpenAI's `reasoning_tokens` is a subset of its output tokens, while Gemini reports `thoughtsTokenCount`
   * beside `candidatesTokenCount = output - reasoning`.
   */
  usage: {
    input?: number;
    output?: number;
    cached?: number;
    cacheWrite?: number;
    cacheWrite1h?: number;
    reasoning?: number;
  };
  /**
   * Usage figures no sane upstream sends, written into the vendor's usage as they are: any number JSON can carry
   * (negative, fractional, 1e300), to test that Tollgate refuses them. `outputRaw` replaces the output count,
   * `inputRaw` the whole prompt.
   */
  rawUsage: { input?: number; output?: number };
  /** Send a body / one SSE event that is not valid JSON. */
  malformed: boolean;
  /** Streaming: which frame `malformed` garbles (1, the second, unless given; implies `malformed`). */
  malformedAt?: number;
  /** Answer 200 with an HTML page instead of the vendor's JSON or stream, as a captive portal or a proxy's error page does. */
  html: boolean;
  /** Streaming: repeat a content event forever (paced by chunk-delay, and by the reader: it waits for drain). */
  endless: boolean;
  /** Non-streaming: declare this content-length whatever the body's size; the body is cut at it, or the connection closed short of it. */
  contentLength?: number;
  /** With content-length: keep the connection open after the body instead of closing it. */
  holdOpen: boolean;
  reply?: string;
  words?: number;
  /** Call this tool (when the request offers it) instead of the first one: scripts a real CLI's turn. */
  tool?: string;
  /** JSON text of the arguments for `tool`, instead of made-up ones. */
  args?: string;
  /** The ids the model lists answer with (`models=a|b`), instead of the mock's own. */
  models?: string[];
  /** OpenAI-shaped model lists carry OpenRouter's extra fields: name, context_length, top_provider and pricing (mock/openai-chat.ts). */
  openrouter: boolean;
  /**
   * The mock is a thinking model (mock/reasoning.ts): it reasons in its vendor's form and holds
   * reasoning sent back to that vendor's rules. `think` alone; `think=kimi` words the Chat
   * Completions refusal as Kimi does (DeepSeek's otherwise); `think=redacted` adds an Anthropic
   * redacted_thinking block.
   */
  think?: 'on' | 'kimi' | 'redacted';
  /** Responses: label the answer's message item with a `phase` (`final_answer`), as GPT-5.5 and later do. */
  phase: boolean;
  /** A runaway agent's model: call the tool again after every tool result, for ever (with `tool` and `args`, the same call). */
  loop: boolean;
  /**
   * Every answer carries rate-limit headers, as the vendor of its route sends them: Anthropic's
   * unified 5-hour and 7-day plan windows (utilisation 0.42 and 0.10), OpenAI's x-ratelimit-*.
   */
  ratelimit: boolean;
}

export class ScenarioError extends Error {}

/** Throws ScenarioError on an unknown key or a bad value, so a typo fails the test instead of being ignored. */
export function parseScenario(raw: string): Scenario {
  const s: Scenario = {
    name: raw,
    delayMs: 0,
    chunkDelayMs: 0,
    firstChunkDelayMs: 0,
    noUsage: false,
    noDone: false,
    malformed: false,
    html: false,
    endless: false,
    holdOpen: false,
    openrouter: false,
    phase: false,
    loop: false,
    ratelimit: false,
    usage: {},
    rawUsage: {},
  };
  for (const part of raw.split(',')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const key = eq < 0 ? part : part.slice(0, eq);
    let value: string;
    try {
      value = eq < 0 ? '' : decodeURIComponent(part.slice(eq + 1));
    } catch {
      throw new ScenarioError(`bad escape in "${part}"`);
    }
    const int = (): number => {
      const n = Number(value);
      if (value === '' || !Number.isInteger(n) || n < 0)
        throw new ScenarioError(`"${key}" needs a non-negative integer, got "${value}"`);
      return n;
    };
    const num = (): number => {
      const n = Number(value);
      if (value === '' || !Number.isFinite(n))
        throw new ScenarioError(`"${key}" needs a finite number, got "${value}"`);
      return n;
    };
    switch (key) {
      case 'delay':
        s.delayMs = int();
        break;
      case 'status':
        s.status = int();
        break;
      case 'retry-after':
        s.retryAfter = value;
        break;
      case 'drop-after':
        s.dropAfter = int();
        break;
      case 'chunk-delay':
        s.chunkDelayMs = int();
        break;
      case 'first-chunk-delay':
        s.firstChunkDelayMs = int();
        break;
      case 'no-usage':
        s.noUsage = true;
        break;
      case 'no-done':
        s.noDone = true;
        break;
      case 'usage-in':
        s.usage.input = int();
        break;
      case 'usage-out':
        s.usage.output = int();
        break;
      case 'usage-cached':
        s.usage.cached = int();
        break;
      case 'usage-cache-write':
        s.usage.cacheWrite = int();
        break;
      case 'usage-reasoning':
        s.usage.reasoning = int();
        break;
      case 'usage-cache-write-1h':
        s.usage.cacheWrite1h = int();
        break;
      case 'usage-in-raw':
        s.rawUsage.input = num();
        break;
      case 'usage-out-raw':
        s.rawUsage.output = num();
        break;
      case 'malformed':
        s.malformed = true;
        break;
      case 'malformed-at':
        s.malformed = true;
        s.malformedAt = int();
        break;
      case 'html':
        s.html = true;
        break;
      case 'endless':
        s.endless = true;
        break;
      case 'content-length':
        s.contentLength = int();
        break;
      case 'hold-open':
        s.holdOpen = true;
        break;
      case 'reply':
        s.reply = value;
        break;
      case 'words':
        s.words = int();
        break;
      case 'tool':
        s.tool = value;
        break;
      case 'args':
        s.args = value;
        break;
      case 'models':
        s.models = value.split('|').filter(Boolean);
        break;
      case 'openrouter':
        s.openrouter = true;
        break;
      case 'phase':
        s.phase = true;
        break;
      case 'loop':
        s.loop = true;
        break;
      case 'ratelimit':
        s.ratelimit = true;
        break;
      case 'think':
        if (value !== '' && value !== 'kimi' && value !== 'redacted')
          throw new ScenarioError(`"think" takes no value, "kimi" or "redacted", got "${value}"`);
        s.think = value === '' ? 'on' : value;
        break;
      default:
        throw new ScenarioError(`unknown key "${key}"`);
    }
  }
  return s;
}
