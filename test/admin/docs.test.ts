/**
 * docs/admin-api.md against the route table: every route has a row in the route list (with its
 * client call name) and a section headed by its method and path that states its success status;
 * nothing is documented that the table does not have. The table's own consistency is checked too.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ADMIN_ROUTES, successStatus, type AdminRoute } from '../../gateway/contract/admin/index.js';
import { REPO } from '../helpers/gateway.js';

const DOC = readFileSync(join(REPO, 'docs/admin-api.md'), 'utf8');
const ROUTES: [string, AdminRoute][] = Object.entries(ADMIN_ROUTES);
const METHOD_AND_PATH = '(GET|POST|PATCH|DELETE|PUT) (/api/\\S*?)';

/** `/api/keys/:name` as the docs write it: `/api/keys/{name}`. */
const documented = (r: AdminRoute): string => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`;

/** Each `## … METHOD /api/…` heading, with the text up to the next heading. */
function sections(doc: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const parts = doc.split(/^(?=#{2,4} )/m);
  for (const part of parts) {
    const m = new RegExp(`^#{2,4} ${METHOD_AND_PATH}\\s*$`, 'm').exec(part.split('\n')[0]!);
    if (m) out.set(`${m[1]} ${m[2]}`, [...(out.get(`${m[1]} ${m[2]}`) ?? []), part]);
  }
  return out;
}

function compare(doc: string): { missing: string[]; extra: string[]; doubled: string[] } {
  const found = sections(doc);
  const expected = ROUTES.map(([, r]) => documented(r));
  return {
    missing: expected.filter((r) => !found.has(r)),
    extra: [...found.keys()].filter((r) => !expected.includes(r)),
    doubled: [...found].filter(([, s]) => s.length > 1).map(([r]) => r),
  };
}

test('every route of the table has one section in docs/admin-api.md, and every section a route', () => {
  const { missing, extra, doubled } = compare(DOC);
  assert.deepEqual(missing, [], 'routes without a section (add "#### METHOD /api/…" to docs/admin-api.md)');
  assert.deepEqual(extra, [], 'sections for routes that do not exist');
  assert.deepEqual(doubled, [], 'routes with more than one section');
});

test('a renamed, missing or doubled section is seen', () => {
  const renamed = DOC.replace('#### PATCH /api/lines/{name}', '#### PATCH /api/lines/{id}');
  assert.deepEqual(compare(renamed), {
    missing: ['PATCH /api/lines/{name}'],
    extra: ['PATCH /api/lines/{id}'],
    doubled: [],
  });
  const doubled = `${DOC}\n#### GET /api/wallet\n\n→ \`200 WalletView\`\n`;
  assert.deepEqual(compare(doubled).doubled, ['GET /api/wallet']);
});

test("each route's section states its success status", () => {
  const found = sections(DOC);
  const wrong = ROUTES.filter(([, r]) => !found.get(documented(r))?.[0]?.includes(`→ \`${successStatus(r)} `)).map(
    ([name, r]) => `${name}: ${documented(r)} should say → \`${successStatus(r)} …\``,
  );
  assert.deepEqual(wrong, []);
});

test('the route list names each route with its client call, and nothing else', () => {
  const rows = [...DOC.matchAll(new RegExp(`^\\| \`${METHOD_AND_PATH}\` \\| \`(\\w+)\` \\|`, 'gm'))].map(
    (m) => `${m[1]} ${m[2]} ${m[3]}`,
  );
  const expected = ROUTES.map(([name, r]) => `${documented(r)} ${name}`);
  assert.deepEqual(rows.slice().sort(), expected.slice().sort());
});

test('the table itself: unique method and path, parameters named in the path and in the schema alike', () => {
  const keys = ROUTES.map(([, r]) => `${r.method} ${r.path}`);
  assert.equal(new Set(keys).size, keys.length, 'two routes share a method and path');
  for (const [name, r] of ROUTES) {
    const inPath = [...r.path.matchAll(/:(\w+)/g)].map((m) => m[1]).sort();
    assert.deepEqual(
      inPath,
      Object.keys(r.params?.properties ?? {}).sort(),
      `${name}: path parameters and params schema differ`,
    );
    assert.ok(!(r.body && r.method === 'GET'), `${name}: a GET has no body`);
  }
});
