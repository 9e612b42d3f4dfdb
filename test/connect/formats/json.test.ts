import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../../../gateway/core/errors.js';
import { json } from '../../../gateway/connect/formats/json.js';

const SETTINGS = `{
  // my settings, by hand
  "theme": "dark", /* keep */
  "permissions": { "allow": ["Bash(ls)"] },
  "env": {
    "DEBUG": "1" // mine
  },
  "unknownFutureKey": [1, 2, {"x": null}]
}
`;

test('setting entries changes only their own lines; removing them gives back the same bytes', () => {
  const changes = [
    { path: ['env', 'ANTHROPIC_BASE_URL'], value: 'http://127.0.0.1:4141' },
    { path: ['env', 'ANTHROPIC_MODEL'], value: 'm' },
  ];
  const after = json.edit(SETTINGS, changes);
  assert.deepEqual(json.read(after, 'f'), {
    ...json.read(SETTINGS, 'f'),
    env: { DEBUG: '1', ANTHROPIC_BASE_URL: 'http://127.0.0.1:4141', ANTHROPIC_MODEL: 'm' },
  });
  for (const line of SETTINGS.split('\n').filter((l) => !l.includes('"DEBUG"')))
    assert.ok(after.includes(line), `kept: ${line}`);
  // jsonc-parser appends after the last value, so that value's line comment follows the new entries.
  assert.match(
    after,
    /"DEBUG": "1",\n    "ANTHROPIC_BASE_URL": "http:\/\/127\.0\.0\.1:4141",\n    "ANTHROPIC_MODEL": "m" \/\/ mine\n/,
  );
  assert.equal(
    json.edit(
      after,
      changes.map((c) => ({ path: c.path, value: undefined })),
    ),
    SETTINGS,
  );
});

test('a new file becomes an object with the entries, ending with a newline', () => {
  const out = json.edit('', [{ path: ['env', 'A'], value: 'x' }]);
  assert.equal(out, '{\n  "env": {\n    "A": "x"\n  }\n}\n');
});

test('tabs and CRLF line endings are kept for inserted entries', () => {
  const text = '{\r\n\t"a": 1\r\n}\r\n';
  const out = json.edit(text, [{ path: ['env', 'K'], value: 'v' }]);
  assert.ok(out.includes('\r\n\t"env": {\r\n\t\t"K": "v"\r\n\t}'), JSON.stringify(out));
  assert.ok(!/[^\r]\n/.test(out), 'no bare LF');
});

test('a file that is not JSON is refused with the place of the problem', () => {
  assert.throws(
    () => json.read('{\n  "a": 1,\n  "b" 2\n}\n', '/home/u/.claude/settings.json'),
    (e: unknown) =>
      e instanceof GatewayError &&
      e.code === 'file_invalid' &&
      /settings\.json is not valid JSON \(ColonExpected at line 3, column 7\)/.test(e.message),
  );
  assert.throws(() => json.read('[1, 2]', 'f'), /the top level is not an object/);
  assert.deepEqual(json.read('  \n', 'f'), {});
});

test("a new table leaves the user's lines as they are, inline objects and arrays included", () => {
  const text = '{\n  // mine\n  "permissions": { "allow": ["Read"] }, "x": [1,2]\n}\n';
  const changes = [
    { path: ['env', 'ANTHROPIC_BASE_URL'], value: 'http://127.0.0.1:4141' },
    { path: ['env', 'ANTHROPIC_MODEL'], value: 'm' },
  ];
  const after = json.edit(text, changes);
  assert.equal(
    after,
    '{\n  // mine\n  "permissions": { "allow": ["Read"] }, "x": [1,2],\n  "env": {\n    "ANTHROPIC_BASE_URL": "http://127.0.0.1:4141",\n    "ANTHROPIC_MODEL": "m"\n  }\n}\n',
  );
  const removed = json.edit(after, [
    ...changes.map((c) => ({ path: c.path, value: undefined })),
    { path: ['env'], value: undefined },
  ]);
  assert.equal(removed, text);
  const empty = json.edit('{}\n', [{ path: ['env', 'A'], value: 'x' }]);
  assert.equal(empty, '{\n  "env": {\n    "A": "x"\n  }\n}\n');
  const inline = json.edit('{ "a": { "b": 1 } }', [{ path: ['a', 'c'], value: 'x' }]);
  assert.equal(inline, '{ "a": { "b": 1,\n    "c": "x" } }');
});

test('entries in and out again give back the same bytes, whatever the layout around them', () => {
  const layouts = [
    '{}\n',
    '{\n  "a": 1\n}\n',
    '{"a":1,"b":{"c":[1,2]}}',
    '{\n  "permissions": { "allow": ["Read"] }, // trailing\n  /* block */ "x": [1,\n    2]\n}\n',
    '{\r\n\t"env": {\r\n\t\t"DEBUG": "1" // mine\r\n\t},\r\n\t"z": null\r\n}\r\n',
    '{\n  "env": {},\n  "theme": "dark"\n}\n',
    '{\n  "env": {\n    // only a comment\n  }\n}\n',
    '{\n  "env": { "A": "1", "B": "2" }\n}\n',
    '// leading comment\n{\n    "four": "spaces"\n}\n',
  ];
  const entries = [
    ['env', 'ANTHROPIC_BASE_URL'],
    ['env', 'ANTHROPIC_AUTH_TOKEN'],
    ['env', 'ANTHROPIC_MODEL'],
  ];
  for (const text of layouts) {
    const after = json.edit(
      text,
      entries.map((path, i) => ({ path, value: `v${i}` })),
    );
    const doc = json.read(after, 'f');
    for (const [i, path] of entries.entries())
      assert.equal((doc.env as Record<string, string>)[path[1]!], `v${i}`, text);
    const hadEnv = json.read(text, 'f').env !== undefined;
    const undo = [...entries].reverse().map((path) => ({ path, value: undefined }));
    const back = json.edit(after, hadEnv ? undo : [...undo, { path: ['env'], value: undefined }]);
    assert.equal(back, text, `round trip of ${JSON.stringify(text)} via ${JSON.stringify(after)}`);
  }
});
