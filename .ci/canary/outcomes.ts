/**
 * What the canary keeps of a node:test event: per finished test (suites left out) its file, its
 * outcome and, for a failure, the message of the error that failed it.
 */

export interface Outcome {
  name: string;
  file: string | undefined;
  result: 'pass' | 'fail' | 'skip';
  durationMs: number;
  /** The failure's message, or the reason a test was skipped. */
  reason?: string;
}

export interface TestData {
  name: string;
  file?: string;
  skip?: string | boolean;
  todo?: string | boolean;
  details?: { duration_ms?: number; type?: string; error?: unknown };
}

/** The innermost message: node:test wraps a test's own error in an ERR_TEST_FAILURE with it as the cause. */
export function messageOf(error: unknown): string {
  let e = error as { message?: unknown; cause?: unknown } | undefined;
  while (e && typeof e === 'object' && e.cause && typeof e.cause === 'object') e = e.cause as typeof e;
  const text = e && typeof e === 'object' && typeof e.message === 'string' ? e.message : String(error);
  return text.trim();
}

export function outcomeOf(type: 'test:pass' | 'test:fail', data: TestData): Outcome | undefined {
  if (data.details?.type === 'suite') return undefined;
  const skipped = data.skip !== undefined && data.skip !== false;
  const out: Outcome = {
    name: data.name,
    file: data.file,
    result: type === 'test:fail' ? 'fail' : skipped ? 'skip' : 'pass',
    durationMs: Math.round(data.details?.duration_ms ?? 0),
  };
  if (out.result === 'fail') out.reason = messageOf(data.details?.error);
  if (out.result === 'skip') out.reason = typeof data.skip === 'string' ? data.skip : 'skipped';
  return out;
}
