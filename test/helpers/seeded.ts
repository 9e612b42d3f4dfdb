/**
 * A small seeded random source for property-style tests, so a failing seed reproduces.
 * mulberry32: not for anything but exploring shapes.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The picks the round-trip generators need, over one seeded source. */
export function rng(seed: number) {
  const next = mulberry32(seed);
  const int = (lo: number, hi: number): number => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[int(0, xs.length - 1)]!;
  const chance = (p: number): boolean => next() < p;
  const many = <T>(lo: number, hi: number, f: () => T): T[] => Array.from({ length: int(lo, hi) }, f);
  return { int, pick, chance, many };
}
export type Rng = ReturnType<typeof rng>;
