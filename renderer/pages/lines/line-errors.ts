/**
 * The admin API's refusals of a line, put at the field they are about, in words for a person (the
 * API's own messages also serve the CLI, and some name its flags). A code no field owns goes to
 * the form's footer. Before a body is sent, the contract's schema checks it the same way, each
 * problem at the form's place for it (`LINE_WORDS`, `placeOfLine`, through components/crud.tsx).
 */
import { AdminError } from '../../lib/api.js';
import type { FieldWords } from '../../lib/field-errors.js';

export type LineField = 'preset' | 'name' | 'baseUrl' | 'models' | 'prices' | 'key' | 'form';
export type LineErrors = Partial<Record<LineField, string>>;

const FIELD_OF: Record<string, LineField> = {
  unknown_preset: 'preset',
  name_taken: 'name',
  bad_url: 'baseUrl',
  unsupported_protocol: 'baseUrl',
  unknown_model: 'models',
  model_retired: 'models',
  bad_model_map: 'models',
  no_models: 'models',
  bad_prices: 'prices',
  keychain_unavailable: 'key',
  two_key_sources: 'key',
  bad_key_variable: 'key',
  upstream_error: 'baseUrl',
  upstream_unreachable: 'baseUrl',
};

/** The CLI's flags named in a message, as the console's fields. */
function forPeople(message: string): string {
  return message
    .replace(/ \(--api-key-env VAR\)/, ' (choose "Environment variable")')
    .replace(/,? ?(or )?name (the ones the server has|its models) with --models\.?/, ', or add them below.')
    .replace(/with --models/g, 'in Models')
    .replace(/--api-key-stdin|--api-key-env VAR/g, 'the API key field');
}

export function lineErrors(err: unknown): LineErrors {
  if (!err) return {};
  if (!(err instanceof AdminError)) return { form: (err as Error).message };
  let field = FIELD_OF[err.code] ?? 'form';
  let message = forPeople(err.message);
  // A model list refused for the key is about the key, not the address.
  const refused = /answered HTTP (401|403)/.exec(err.message);
  if (err.code === 'upstream_error' && refused) {
    field = 'key';
    message = `The server refused this key (HTTP ${refused[1]}). Check that it is the right key for this provider.`;
  } else if (err.code === 'upstream_unreachable') {
    message = `Nothing answered at this address. ${err.message.replace(/^The line "[^"]*" did not answer: /, 'Cause: ')}`;
  }
  return { [field]: message };
}

/** The line form's fields in words, for the contract's schema check (lib/field-errors.ts). */
export const LINE_WORDS: Record<string, FieldWords> = {
  name: {
    label: 'the name',
    pattern: 'Use letters, digits and . _ @ - only, starting with a letter or digit (no spaces).',
  },
  baseUrl: { label: 'the base URL', required: 'Give the address of the server, such as https://api.example.com/v1.' },
  models: { label: 'models', required: 'Choose at least one model, or fetch the list from the server.' },
  modelMap: { label: 'the upstream model names' },
  apiKey: { label: 'the API key', required: 'Paste the API key, or choose an environment variable or no key.' },
  apiKeyEnv: {
    label: 'the variable name',
    pattern: 'A variable name is letters, digits and _, not starting with a digit (such as DEEPSEEK_API_KEY).',
  },
  addModels: { label: 'the prices of the new models' },
  priority: { label: 'priority' },
  weight: { label: 'weight' },
  rpm: { label: 'requests per minute' },
  anthropicVersion: { label: 'the Anthropic version', pattern: 'The Anthropic version is a date, such as 2023-06-01.' },
};

/** Which of the form's places a body field's problem is shown at. */
const PLACE_OF: Record<string, LineField> = {
  name: 'name',
  baseUrl: 'baseUrl',
  models: 'models',
  modelMap: 'models',
  apiKey: 'key',
  apiKeyEnv: 'key',
  addModels: 'prices',
};

/** Where the line form shows a body field's problem (its footer for a field it has no place for). */
export function placeOfLine(field: string): LineField {
  return PLACE_OF[field.split('.')[0]!] ?? 'form';
}
