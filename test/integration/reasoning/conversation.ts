/**
 * A tool-using conversation through Tollgate, as each official SDK's user keeps it: the history is
 * what the SDK returned, resent verbatim every turn (reasoning blocks, signatures and all), with
 * thinking asked for in the client's own terms. The model can change from one turn to the next,
 * which is how a session moves to another family.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, ThinkingLevel, type Content, type Part } from '@google/genai';
import OpenAI from 'openai';

export const WEATHER = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

export interface Turn {
  /** The model called a tool (its result is expected next). */
  called: boolean;
  text: string;
}

export interface Conversation {
  /** The user says `text`; `model` answers. */
  say(model: string, text: string): Promise<Turn>;
  /** The tool the model called returns `result`; `model` answers. */
  toolResult(model: string, result: string): Promise<Turn>;
}

export type ClientKind = 'messages' | 'responses' | 'gemini' | 'chat';
export const CLIENTS: readonly ClientKind[] = ['messages', 'responses', 'gemini', 'chat'];

export function conversation(kind: ClientKind, url: string, key: string, stream: boolean): Conversation {
  switch (kind) {
    case 'messages':
      return messages(new Anthropic({ baseURL: url, apiKey: key, maxRetries: 0 }), stream);
    case 'responses':
      return responses(new OpenAI({ baseURL: `${url}/v1`, apiKey: key, maxRetries: 0 }), stream);
    case 'gemini':
      return gemini(new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: url } }), stream);
    case 'chat':
      return chat(new OpenAI({ baseURL: `${url}/v1`, apiKey: key, maxRetries: 0 }), stream);
  }
}

/** Claude Code's way: thinking on, every block of every answer kept. */
function messages(c: Anthropic, stream: boolean): Conversation {
  const history: Anthropic.MessageParam[] = [];
  let pending = '';
  const ask = async (model: string): Promise<Turn> => {
    const params = {
      model,
      max_tokens: 4096,
      thinking: { type: 'enabled' as const, budget_tokens: 1024 },
      tools: [{ name: 'get_weather', input_schema: WEATHER as Anthropic.Tool.InputSchema }],
      messages: history,
    };
    const m = stream ? await c.messages.stream(params).finalMessage() : await c.messages.create(params);
    history.push({ role: 'assistant', content: m.content as Anthropic.ContentBlockParam[] });
    const call = m.content.find((b) => b.type === 'tool_use');
    pending = call?.type === 'tool_use' ? call.id : '';
    return { called: call !== undefined, text: m.content.map((b) => (b.type === 'text' ? b.text : '')).join('') };
  };
  return {
    say: (model, text) => (history.push({ role: 'user', content: text }), ask(model)),
    toolResult: (model, result) => (
      history.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: pending, content: result }] }),
      ask(model)
    ),
  };
}

/** Codex's way: store:false, the whole output resent, encrypted reasoning included. */
function responses(c: OpenAI, stream: boolean): Conversation {
  const input: OpenAI.Responses.ResponseInputItem[] = [];
  let pending = '';
  const ask = async (model: string): Promise<Turn> => {
    const params = {
      model,
      input,
      store: false,
      include: ['reasoning.encrypted_content' as const],
      reasoning: { effort: 'medium' as const, summary: 'auto' as const },
      tools: [{ type: 'function' as const, name: 'get_weather', parameters: WEATHER, strict: false }],
    };
    const r = stream ? await c.responses.stream(params).finalResponse() : await c.responses.create(params);
    input.push(...(r.output as OpenAI.Responses.ResponseInputItem[]));
    const call = r.output.find((i) => i.type === 'function_call');
    pending = call?.type === 'function_call' ? call.call_id : '';
    return { called: call !== undefined, text: r.output_text };
  };
  return {
    say: (model, text) => (input.push({ role: 'user', content: text }), ask(model)),
    toolResult: (model, result) => (
      input.push({ type: 'function_call_output', call_id: pending, output: result }),
      ask(model)
    ),
  };
}

/** The @google/genai way (Gemini CLI's settings for Gemini 3): each candidate's content kept as it came, thoughts included. */
function gemini(c: GoogleGenAI, stream: boolean): Conversation {
  const contents: Content[] = [];
  let pending: { id?: string; name: string } | undefined;
  const ask = async (model: string): Promise<Turn> => {
    const config = {
      tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: WEATHER }] }],
      thinkingConfig: { includeThoughts: true, thinkingLevel: ThinkingLevel.HIGH },
    };
    const parts: Part[] = [];
    if (stream)
      for await (const chunk of await c.models.generateContentStream({ model, contents, config }))
        parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
    else
      parts.push(
        ...((await c.models.generateContent({ model, contents, config })).candidates?.[0]?.content?.parts ?? []),
      );
    contents.push({ role: 'model', parts });
    const call = parts.find((p) => p.functionCall)?.functionCall;
    pending = call ? { ...(call.id ? { id: call.id } : {}), name: call.name ?? '' } : undefined;
    return { called: call !== undefined, text: parts.map((p) => (p.thought ? '' : (p.text ?? ''))).join('') };
  };
  return {
    say: (model, text) => (contents.push({ role: 'user', parts: [{ text }] }), ask(model)),
    toolResult: (model, result) => (
      contents.push({ role: 'user', parts: [{ functionResponse: { ...pending!, response: { output: result } } }] }),
      ask(model)
    ),
  };
}

/** The openai SDK's usual loop, `messages.push(choice.message)`: unknown fields such as reasoning_content ride along. */
function chat(c: OpenAI, stream: boolean): Conversation {
  const messages: OpenAI.ChatCompletionMessageParam[] = [];
  let pending = '';
  const ask = async (model: string): Promise<Turn> => {
    const params = {
      model,
      messages,
      tools: [{ type: 'function' as const, function: { name: 'get_weather', parameters: WEATHER } }],
    };
    let message: OpenAI.ChatCompletionMessage & { reasoning_content?: string };
    if (stream) {
      // The SDK's accumulator keeps only the last fragment of a field it does not know; DeepSeek-aware clients join them.
      let reasoning = '';
      const s = c.chat.completions
        .stream(params)
        .on(
          'chunk',
          (chunk) =>
            (reasoning +=
              (chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? ''),
        );
      message = (await s.finalChatCompletion()).choices[0]!.message;
      if (reasoning !== '') message.reasoning_content = reasoning;
    } else message = (await c.chat.completions.create(params)).choices[0]!.message;
    messages.push(message as OpenAI.ChatCompletionAssistantMessageParam);
    const call = message.tool_calls?.[0];
    pending = call?.id ?? '';
    return { called: call !== undefined, text: message.content ?? '' };
  };
  return {
    say: (model, text) => (messages.push({ role: 'user', content: text }), ask(model)),
    toolResult: (model, result) => (
      messages.push({ role: 'tool', tool_call_id: pending, content: result }),
      ask(model)
    ),
  };
}
