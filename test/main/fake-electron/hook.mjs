// Module resolution hook for the desktop smoke test: `electron` resolves to the recording fake.
const FAKE = new URL('./electron.ts', import.meta.url).href;

export async function resolve(specifier, context, next) {
  if (specifier === 'electron') return { url: FAKE, shortCircuit: true };
  return next(specifier, context);
}
