/** Inbound wire formats: the interfaces clients call. Used unchanged as folder names and log values. */
export const INBOUND_PROTOCOLS = ['openai-chat', 'anthropic-messages', 'openai-responses', 'gemini'] as const;
export type InboundProtocolId = (typeof INBOUND_PROTOCOLS)[number];

/** Upstream wire formats a line can speak. */
export const UPSTREAM_PROTOCOLS = ['openai-chat', 'anthropic', 'openai-responses', 'gemini'] as const;
export type UpstreamProtocolId = (typeof UPSTREAM_PROTOCOLS)[number];

/** Upstream protocols that have an adapter in this build. */
export const IMPLEMENTED_UPSTREAMS: readonly UpstreamProtocolId[] = ['openai-chat', 'anthropic', 'openai-responses', 'gemini'];
