import type { FormatId } from '../types.js';
import { dotenv } from './dotenv.js';
import type { FileFormat } from './format.js';
import { json } from './json.js';
import { toml } from './toml.js';

export const FORMATS: Record<FormatId, FileFormat> = { json, toml, dotenv };
export type { Change, FileFormat } from './format.js';
export { isPlainObject, pruneEmptyTables, valueAt } from './format.js';
