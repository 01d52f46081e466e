/**
 * Where the vendor token lives: this tab's sessionStorage, gone when the tab closes (contract
 * section 10). Never a cookie, never the URL, never logged. A browser that refuses storage keeps
 * it in memory only (signing in again after a reload).
 */
const STORAGE_KEY = "gateway-console.vendor-token";

function storage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

export function readToken(): string | null {
  return storage()?.getItem(STORAGE_KEY) ?? null;
}

export function saveToken(token: string): void {
  try {
    storage()?.setItem(STORAGE_KEY, token);
  } catch {
    // Storage full or disabled: the session lives in memory until the page reloads.
  }
}

export function forgetToken(): void {
  storage()?.removeItem(STORAGE_KEY);
}
