import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { admin } from '../../lib/api.js';
import { qk, useSettings } from '../../lib/queries.js';

/** The request's body as the client sent it, when the storeBodies setting kept it. */
export function RequestBody({ requestId }: { requestId: string }) {
  const on = useSettings().data?.storeBodies ?? false;
  const body = useQuery({
    queryKey: qk.requestBody(requestId),
    queryFn: ({ signal }) => admin.call('getRequestBody', { params: { requestId }, signal }),
    retry: false,
    staleTime: Infinity,
  });
  if (!body.data && !on) {
    return (
      <p className="muted">
        Not kept: storing request bodies is off (
        <Link to="/settings" className="link">
          Settings
        </Link>
        ).
      </p>
    );
  }
  if (body.isPending) return <p className="muted">Loading…</p>;
  if (!body.data) return <p className="muted">Not kept for this request (sent before storing was on, or pruned).</p>;
  let text = body.data.body;
  try {
    text = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // Not JSON (a malformed request): shown as it came.
  }
  return (
    <>
      <pre className="code-block request-body" tabIndex={0} aria-label="Request body">
        {text}
      </pre>
      {body.data.truncated ? <p className="muted">Cut at 1,000,000 characters.</p> : null}
    </>
  );
}
