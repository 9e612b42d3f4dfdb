import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { pausedError, type PauseSwitch } from '../compose/pause.js';
import { GatewayError } from '../core/errors.js';
import type { WireFormat } from '../core/format.js';
import { singleQuery } from '../core/input.js';
import type { AuthFailures } from '../keys/failures.js';
import type { KeyRing } from '../keys/keyring.js';
import { newExchange, type Exchange } from '../relay/exchange.js';
import { INSTANCE_HEADER, INSTANCE_ID } from '../relay/upstream-call.js';
import type { KeyRecord } from '../store/types.js';
import type { ModelLane } from './connections.js';
import type { Sessions } from '../sessions/sessions.js';
import { choose, type Mounted } from './format-routes.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request as the relay follows it; set once the guards passed (null on admin and console routes). */
    exchange: Exchange | null;
    tollgateKey: KeyRecord | null;
    /** The wire format answering this request (chosen by headers where a path is shared). */
    format: WireFormat | null;
  }
}

export interface RequestGuardOptions {
  /** What the guards read of the gateway: the pause switch and the keys. */
  gateway: {
    pause: Pick<PauseSwitch, 'paused'>;
    keys: Pick<KeyRing, 'authenticate'> & { failures: Pick<AuthFailures, 'fail'> };
    /** Which agent session a request belongs to (absent: none is recognised). */
    sessions?: Pick<Sessions, 'attribute'>;
  };
  /** The bound on model requests in flight; none when absent. */
  lane?: ModelLane | undefined;
}

function one(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function loopDetected(): GatewayError {
  return new GatewayError(
    'upstream_unavailable',
    "This request came from this Tollgate gateway itself: a line points back at the gateway. Give that line the upstream provider's URL.",
    {
      code: 'loop_detected',
      status: 508,
    },
  );
}

/**
 * The guards of one format route, in order, before its body is read (an unauthenticated request
 * costs no parsing): the format that answers, the pause switch, a request that came back from this
 * gateway, a repeated query parameter, the key. Each refusal is thrown, for the error handler
 * (errors.ts) to answer in the format's shape; none of them has an exchange yet, so none is held
 * or billed. A request that passes gets its exchange.
 */
function guardChain(
  g: RequestGuardOptions['gateway'],
  entries: readonly Mounted[],
  lane: ModelLane | undefined,
): onRequestHookHandler {
  // A callback hook rather than an async one: a request that passes costs no promise and no
  // microtask turns here; only a refusal after failed keys waits (and then calls back).
  return (req: FastifyRequest, reply, done) => {
    const { format, route } = choose(entries, req.headers);
    req.format = format;
    // Paused: refused before an exchange exists, so nothing is held and no ledger row is written.
    if (g.pause.paused) return done(pausedError());
    if (one(req.headers[INSTANCE_HEADER]) === INSTANCE_ID) return done(loopDetected());
    const repeated = singleQuery(req.query);
    if (repeated) return done(repeated);
    // Authenticate first: a request without a valid key writes no ledger row (a web page could
    // otherwise fill the ledger); it is counted instead, and repeated failures are slowed.
    let key: KeyRecord;
    try {
      key = g.keys.authenticate({
        authorization: one(req.headers.authorization),
        xApiKey: one(req.headers['x-api-key']),
        xGoogApiKey: one(req.headers['x-goog-api-key']),
        queryKey: (req.query as Record<string, string | undefined>).key,
      });
    } catch (err) {
      const wait = g.keys.failures.fail();
      if (wait > 0) void sleep(wait).then(() => done(err as Error));
      else done(err as Error);
      return;
    }
    // Only model requests get a ledger row; a model route may still turn out to be a local answer.
    const model = route.method === 'POST' && 'model' in route;
    // A place in the model lane, kept until the answer is over (connections.ts), so that model
    // traffic at its limit leaves sockets for the admin API, the console and the CLI.
    if (model && lane) reply.raw.once('close', lane.enter());
    const ex = newExchange(format.id, model);
    req.exchange = ex;
    ex.key = key;
    req.tollgateKey = key;
    if (g.sessions) {
      ex.attribution = g.sessions.attribute(key, req.headers);
      ex.sessionId = ex.attribution.id;
    }
    done();
  };
}

/**
 * The request guard chain of the model API. It becomes the `onRequest` hook of each route that
 * names its formats in `config.formats` (format-routes.ts does), when the route is added: one hook
 * per request, as if written on the route, and none on the admin and console routes.
 */
export const requestGuard = fp<RequestGuardOptions>(
  async (app, opts) => {
    app.decorateRequest('exchange', null);
    app.decorateRequest('tollgateKey', null);
    app.decorateRequest('format', null);
    app.addHook('onRoute', (route) => {
      const entries = route.config?.formats;
      if (!entries) return;
      if (route.onRequest) throw new Error(`${route.method} ${route.url}: a format route has no onRequest of its own`);
      route.onRequest = guardChain(opts.gateway, entries, opts.lane);
    });
  },
  { name: 'tollgate-request-guard', fastify: '5.x' },
);
