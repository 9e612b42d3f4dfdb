import { CopyButton } from '../../components/copy.js';

/**
 * Where each client protocol points. OpenAI SDKs take the /v1 base; Anthropic's and Google's SDKs
 * add their own version prefix, so they take the bare origin.
 */
export function BaseUrls({ url }: { url: string | undefined }) {
  if (!url) return null;
  const rows = [
    {
      label: 'OpenAI Chat & Responses',
      value: `${url}/v1`,
      env: 'OPENAI_BASE_URL',
      tools: 'openai SDK, Codex CLI, OpenCode',
    },
    { label: 'Anthropic Messages', value: url, env: 'ANTHROPIC_BASE_URL', tools: 'Claude Code, @anthropic-ai/sdk' },
    { label: 'Gemini', value: url, env: 'GOOGLE_GEMINI_BASE_URL', tools: 'Gemini CLI, @google/genai' },
  ];
  return (
    <section className="panel" aria-labelledby="urls-title">
      <div className="panel-head">
        <h2 id="urls-title">Base URLs</h2>
      </div>
      <ul className="url-list">
        {rows.map((r) => (
          <li key={r.label}>
            <div className="url-meta">
              <strong>{r.label}</strong>
              <span className="muted">{r.tools}</span>
            </div>
            <div className="url-row">
              <code className="url-value">
                {r.env}={r.value}
              </code>
              <CopyButton value={r.value} what={`${r.label} base URL`} />
            </div>
          </li>
        ))}
      </ul>
      <p className="muted panel-pad">Use a Tollgate key (sk-…) as the API key in each tool.</p>
    </section>
  );
}
