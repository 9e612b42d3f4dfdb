/**
 * The admin API's refusals of a line, put at the field they are about, in words for a person (the
 * API's own messages also serve the CLI, and some name its flags). A code no field owns goes to
 * the form's footer.
 */
import { AdminError } from '../../lib/api.js';

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
