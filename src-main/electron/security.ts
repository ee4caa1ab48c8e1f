/**
 * The window's security posture as plain data, kept free of electron
 * so it is tested in Node; main.ts hands these to BrowserWindow and the session.
 */
import { isOwnRenderer, type RendererLocation } from './ipc-guard';

/**
 * Same policy as the meta tag in src-renderer/index.html, also sent as a header for pages served
 * by the dev server. No inline or eval'd script, nothing fetched from elsewhere: the renderer
 * reaches the engine over IPC only.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The dev server pushes module updates over a WebSocket on its own origin. */
export function devContentSecurityPolicy(devUrl: string): string {
  const ws = new URL(devUrl);
  ws.protocol = ws.protocol === 'https:' ? 'wss:' : 'ws:';
  return CONTENT_SECURITY_POLICY.replace("connect-src 'self'", `connect-src 'self' ${ws.origin}`);
}

/** Every switch that lets a page reach Node or weaken isolation, set explicitly off. */
export function webPreferences(preload: string) {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    safeDialogs: true,
    spellcheck: false,
  } as const;
}

export function windowOptions(preload: string) {
  return {
    width: 1280,
    height: 800,
    minWidth: 800,
    minHeight: 500,
    title: 'Hookbench',
    // Shown once the first paint is ready, so the window never flashes blank.
    show: false,
    autoHideMenuBar: true,
    webPreferences: webPreferences(preload),
  } as const;
}

/**
 * The URL to hand to the system browser for a link the page tried to open, or null to drop it.
 * Only http and https: file:, javascript:, custom schemes and the rest could launch local programs.
 */
export function externalUrl(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  if (parsed.username || parsed.password) return null;
  return parsed.href;
}

/** Response headers with our policy in place of any the server sent (header names are case-insensitive). */
export function withContentSecurityPolicy(
  headers: Record<string, string[]> | undefined,
  policy: string = CONTENT_SECURITY_POLICY,
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() !== 'content-security-policy') out[name] = value;
  }
  out['Content-Security-Policy'] = [policy];
  return out;
}

/**
 * Every permission is refused but one: writing text to the clipboard, which the copy buttons (write
 * key, snippets, cURL) need, and only for our own page. Reading the clipboard stays refused.
 */
export function permissionGranted(permission: string, requestingUrl: string | null | undefined, renderer: RendererLocation): boolean {
  return permission === 'clipboard-sanitized-write' && isOwnRenderer(requestingUrl, renderer);
}
