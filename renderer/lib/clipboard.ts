/**
 * Copying text. Inside the desktop app the console copies through the app's bridge
 * (`window.tollgate.copyText`, main/bridge.ts): main writes the system clipboard, which needs
 * neither a browser permission nor the page to have focus. In a browser (`tollgate open`), the
 * standard clipboard API does it.
 */

/** The one member of the desktop bridge the console uses here. */
interface DesktopBridge {
  copyText(text: string): Promise<void>;
}

function bridge(): DesktopBridge | undefined {
  const b = (window as unknown as { tollgate?: Partial<DesktopBridge> }).tollgate;
  return typeof b?.copyText === 'function' ? (b as DesktopBridge) : undefined;
}

export function copyText(text: string): Promise<void> {
  const desktop = bridge();
  if (desktop) return desktop.copyText(text);
  return navigator.clipboard.writeText(text);
}
