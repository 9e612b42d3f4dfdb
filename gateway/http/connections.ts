/**
 * Client connections and the model lane: no fixed cap that idle sockets can fill, and room for the
 * admin API, console and CLI while model traffic is at its limit.
 *
 * A socket is idle until a request's headers have arrived (a scanner, a half-sent request, a
 * socket opened and left) and again between the requests of a keep-alive connection. Such sockets
 * cost a descriptor and nothing else, so they are the ones given up: once CONNECTION_CEILING
 * sockets are open, each new connection closes the oldest idle one (never-used sockets before
 * keep-alive ones). Only when every open socket is busy is the new one closed instead. An
 * attacker holding idle sockets therefore only churns its own.
 *
 * Busy sockets are bounded by the model lane: at most MODEL_LANE model requests (those that passed
 * the key check) are in flight; beyond it a model request gets a 503 in its format's shape. The
 * difference between the two numbers is the admin lane: the admin API, the console's event stream
 * and the CLI always find a socket, because the ones model traffic can hold are fewer than the
 * ceiling. Node raises its process's descriptor limit to the hard limit at start (Linux and macOS),
 * so the ceiling, not the shell's soft `ulimit -n`, is what bounds descriptors here.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { GatewayError } from '../core/errors.js';

/** Open client sockets at most; beyond it the oldest idle one makes room. */
export const CONNECTION_CEILING = 1024;
/** Model requests in flight at most; the rest of the ceiling is kept for the admin side. */
export const MODEL_LANE = 768;

export interface ConnectionStats {
  open: number;
  idle: number;
  /** Idle sockets closed to make room for new connections since start. */
  reclaimed: number;
  /** New connections closed because every open socket was busy. */
  refused: number;
}

/**
 * Follows every socket of `server` and applies the ceiling. Idle sockets are kept in two
 * insertion-ordered sets, so the oldest of each is the first one: making room costs O(1).
 */
export function manageConnections(server: Server, ceiling = CONNECTION_CEILING): () => ConnectionStats {
  const fresh = new Set<Socket>();
  const kept = new Set<Socket>();
  const busy = new Map<Socket, number>();
  let reclaimed = 0;
  let refused = 0;

  const open = (): number => fresh.size + kept.size + busy.size;

  server.on('connection', (socket: Socket) => {
    if (open() >= ceiling) {
      const victim = fresh.values().next().value ?? kept.values().next().value;
      if (victim) {
        fresh.delete(victim);
        kept.delete(victim);
        victim.destroy();
        reclaimed++;
      } else {
        refused++;
        socket.destroy();
        return;
      }
    }
    fresh.add(socket);
    socket.once('close', () => {
      fresh.delete(socket);
      kept.delete(socket);
      busy.delete(socket);
    });
  });

  server.on('request', (req, res) => {
    const socket = req.socket;
    if (socket.destroyed) return;
    fresh.delete(socket);
    kept.delete(socket);
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const left = (busy.get(socket) ?? 1) - 1;
      if (left > 0) return void busy.set(socket, left);
      busy.delete(socket);
      if (!socket.destroyed) kept.add(socket);
    });
  });

  return () => ({ open: open(), idle: fresh.size + kept.size, reclaimed, refused });
}

/** Model requests in flight, bounded (MODEL_LANE); the request guard (guard.ts) takes a place for each. */
export class ModelLane {
  inFlight = 0;
  /** Model requests turned away because the lane was full, since start. */
  turnedAway = 0;

  constructor(readonly limit = MODEL_LANE) {}

  /** Takes a place, or throws the 503 the client is answered with; `release` gives it back, once. */
  enter(): () => void {
    if (this.inFlight >= this.limit) {
      this.turnedAway++;
      throw new GatewayError(
        'upstream_unavailable',
        `The gateway is serving ${this.limit} model requests at once, its limit; retry in a moment.`,
        { code: 'gateway_busy', status: 503, retryAfter: 1 },
      );
    }
    this.inFlight++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight--;
    };
  }
}
