/**
 * What the Settings page asks of the desktop app, when it runs inside it: the bridge's
 * `restartGateway` (main/bridge.ts), which restarts the app's own gateway process so that new
 * host and port settings apply. In a browser (`tollgate open`) there is no bridge.
 */

export type RestartAnswer = { restarting: true } | { restarting: false; reason: string };

interface DesktopBridge {
  restartGateway(): Promise<RestartAnswer>;
}

export function desktopBridge(): DesktopBridge | undefined {
  const b = (window as unknown as { tollgate?: Partial<DesktopBridge> }).tollgate;
  return typeof b?.restartGateway === 'function' ? (b as DesktopBridge) : undefined;
}
