import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../../../gateway/core/errors.js';
import { dotenv } from '../../../gateway/connect/formats/dotenv.js';

const ENV = `# my gemini env
GOOGLE_CLOUD_PROJECT=my-project
GEMINI_API_KEY=old-key   # the old one
export OTHER="a b"
`;

test('a set rewrites only the line defining the name; a new name is appended', () => {
  const out = dotenv.edit(ENV, [
    { path: ['GEMINI_API_KEY'], value: 'sk-new' },
    { path: ['GOOGLE_GEMINI_BASE_URL'], value: 'http://127.0.0.1:4141' },
  ]);
  assert.equal(
    out,
    '# my gemini env\nGOOGLE_CLOUD_PROJECT=my-project\nGEMINI_API_KEY=sk-new\nexport OTHER="a b"\nGOOGLE_GEMINI_BASE_URL=http://127.0.0.1:4141\n',
  );
  assert.deepEqual(dotenv.read(out, 'f'), {
    GOOGLE_CLOUD_PROJECT: 'my-project',
    GEMINI_API_KEY: 'sk-new',
    OTHER: 'a b',
    GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:4141',
  });
});

test('the last definition is the one dotenv uses, and the one rewritten', () => {
  const out = dotenv.edit('A=1\nA=2\n', [{ path: ['A'], value: '3' }]);
  assert.equal(out, 'A=1\nA=3\n');
  assert.equal(dotenv.read(out, 'f').A, '3');
});

test('removing a name drops its lines and nothing else', () => {
  assert.equal(
    dotenv.edit(ENV, [{ path: ['GEMINI_API_KEY'], value: undefined }]),
    '# my gemini env\nGOOGLE_CLOUD_PROJECT=my-project\nexport OTHER="a b"\n',
  );
  assert.equal(dotenv.edit('X=1\n', [{ path: ['X'], value: undefined }]), '');
});

test('a file without a final newline keeps its last line as it was', () => {
  assert.equal(dotenv.edit('A=1', [{ path: ['B'], value: '2' }]), 'A=1\nB=2');
  assert.equal(dotenv.edit('', [{ path: ['B'], value: '2' }]), 'B=2\n');
});

test('values that need it are quoted; a value over several lines is not edited', () => {
  assert.equal(dotenv.edit('', [{ path: ['M'], value: 'a model#1' }]), "M='a model#1'\n");
  assert.equal(dotenv.read("M='a model#1'\n", 'f').M, 'a model#1');
  assert.throws(
    () => dotenv.edit('GEMINI_API_KEY="line one\nline two"\n', [{ path: ['GEMINI_API_KEY'], value: 'x' }]),
    (e: unknown) => e instanceof GatewayError && e.code === 'file_invalid',
  );
});
