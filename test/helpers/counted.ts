/**
 * Reads counted: a deep proxy over plain JSON-like data (objects and arrays, as the config holds)
 * that counts every property read, through any depth. Scale tests compare the counts of one
 * operation at two sizes: a linear operation reads about four times as much at four times the
 * data, a quadratic one sixteen times. A count, unlike a stopwatch, does not depend on the
 * machine's load.
 */
export interface Counted<T> {
  value: T;
  /** Property reads since the last reset. */
  reads(): number;
  reset(): void;
}

export function counted<T extends object>(target: T): Counted<T> {
  let n = 0;
  const proxies = new WeakMap<object, object>();
  const wrap = (o: object): object => {
    let p = proxies.get(o);
    if (!p) {
      p = new Proxy(o, {
        get(t, k, receiver) {
          n++;
          const v: unknown = Reflect.get(t, k, receiver);
          return typeof v === 'object' && v !== null ? wrap(v) : v;
        },
      });
      proxies.set(o, p);
    }
    return p;
  };
  return {
    value: wrap(target) as T,
    reads: () => n,
    reset: () => void (n = 0),
  };
}
