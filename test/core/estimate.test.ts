import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { estimateBody, estimatePromptTokensFromBody, estimateTextTokensFromBody } from '../../gateway/core/estimate.js';
import { countTokens } from '../../gateway/core/tokenizer.js';

const body = (content: unknown): string => JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content }] });

const samples = {
  english:
    'The quick brown fox jumps over the lazy dog. Please summarise the following quarterly report in three bullet points, ' +
    'keeping every figure exact: revenue rose 12% to $4.2M while operating costs fell by a third.',
  code:
    'export function debounce<T extends (...args: never[]) => void>(fn: T, ms: number): T {\n' +
    '  let timer: ReturnType<typeof setTimeout> | undefined;\n' +
    '  return ((...args) => {\n    clearTimeout(timer);\n    timer = setTimeout(() => fn(...args), ms);\n  }) as T;\n}\n',
  cjk:
    '请用三句话总结下面的季度报告，并保留所有数字：收入增长百分之十二，达到四百二十万美元，运营成本下降了三分之一。' +
    '你好，世界。今天天气很好，我们去公园散步吧。请用三句话总结下面的报告，并保留所有数字。日本語のテキストも少し入れます。한국어 문장도 있습니다.',
};

for (const [name, text] of Object.entries(samples)) {
  test(`the body estimate is not below the real o200k count: ${name}`, async () => {
    const estimate = estimatePromptTokensFromBody(body(text));
    const real = await countTokens(text);
    assert.ok(estimate >= real, `estimate ${estimate} < real ${real}`);
  });
}

test('the body estimate is one token per 3 characters', () => {
  assert.equal(estimatePromptTokensFromBody(''), 0);
  assert.equal(estimatePromptTokensFromBody('abc'), 1);
  assert.equal(estimatePromptTokensFromBody('abcd'), 2);
});

test('an inline base64 image counts as a fixed allowance, not its length', () => {
  const uri = `data:image/png;base64,${randomBytes(786_432).toString('base64')}`; // 1 MiB of base64
  const content = (url: string) => [
    { type: 'text', text: 'What is in this image?' },
    { type: 'image_url', image_url: { url } },
  ];
  const withoutImage = estimatePromptTokensFromBody(body(content('')));
  assert.equal(withoutImage, Math.ceil(body(content('')).length / 3));
  assert.equal(estimatePromptTokensFromBody(body(content(uri))), withoutImage + 1_600);
  const jpeg = uri.replace('image/png', 'image/jpeg');
  const two = [...content(uri), { type: 'image_url', image_url: { url: jpeg } }];
  assert.equal(
    estimatePromptTokensFromBody(body(two)),
    Math.ceil((body(two).length - uri.length - jpeg.length) / 3) + 3_200,
  );
  assert.ok(estimatePromptTokensFromBody(body(two)) < 3_300);
});

test('countTokens uses o200k_base', async () => {
  assert.equal(await countTokens(''), 0);
  assert.equal(await countTokens('hello world'), 2);
  assert.equal(await countTokens('héllo 你好 🙂'), 5);
});

/** The data-URI rule the prompt estimate has always had, as a regular expression: the one loop must agree with it. */
function byPattern(rawBody: string): number {
  let length = Buffer.byteLength(rawBody, 'utf8');
  let images = 0;
  for (const m of rawBody.matchAll(/data:[\w.+-]+\/[\w.+-]+;base64,[A-Za-z0-9+/=]{64,}/g)) {
    length -= m[0].length;
    images++;
  }
  return Math.ceil(length / 3) + images * 1_600;
}

test('one pass gives both estimates, and the data URIs it finds are those of the pattern', () => {
  const b64 = (n: number): string => randomBytes(n).toString('base64');
  const cases = [
    'plain text, no image at all',
    `{"url":"data:image/png;base64,${b64(48)}"}`, // exactly 64 characters
    `{"url":"data:image/png;base64,${b64(45)}"}`, // 60: too short to be an image
    `{"a":"xxdata:image/svg+xml;base64,${b64(900)}","b":"data:data:image/png;base64,${b64(90)}"}`,
    `{"a":"data:a/b/c;base64,${b64(300)}","b":"data:/png;base64,${b64(300)}","c":"data:image/;base64,${b64(300)}"}`,
    `{"a":"data:image/png;base64,${b64(3000)}","b":"${b64(3000)}","c":"héllo 你好 ${b64(30)}"}`,
    `;base64,${b64(200)} data:image/x-icon;base64,`,
    `{"a":"${b64(1000)}","b":"${b64(1000)}"}`, // blobs: their allowance is more than their length
  ];
  for (const raw of cases) {
    const e = estimateBody(raw);
    assert.equal(e.promptTokens, byPattern(raw), raw.slice(0, 60));
    assert.equal(e.promptTokens, estimatePromptTokensFromBody(raw));
    assert.equal(e.textTokens(), estimateTextTokensFromBody(raw));
    assert.ok(e.textTokens() <= e.textTokensAtMost, 'the bound holds');
  }
});
