/**
 * The admin contract, for everyone outside this folder: the route table, what each route takes and
 * answers, the event stream's table, the usage log's filter, the typed client and its event-stream
 * reader, and the error both sides throw.
 */
export * from './routes.js';
export * from './schemas.js';
export * from './views.js';
export * from './connect-views.js';
export * from './model-schemas.js';
export * from './model-views.js';
export * from './errors.js';
export * from './client.js';
export * from './events-client.js';
export * from './events.js';
export * from './log-filter.js';
export * from './line-setup.js';
export * from './key-session-fields.js';
export * from './session-views.js';
export * from './key-usage.js';
