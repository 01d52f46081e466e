// Debian's Chromium driven by playwright-core (no browser download: these machines cannot reach
// Playwright's hosts). Every browser starts from a fresh profile in a temp dir, and every console
// error or uncaught page error is kept so a test can fail on it.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Without the background-networking flags Chromium keeps dialing Google hosts the closed network refuses. */
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface ConsoleBrowser {
  page: Page;
  context: BrowserContext;
  /** Console errors and page errors since the last call, cleared. */
  takeErrors(): string[];
  close(): Promise<void>;
}

export async function openBrowser(origin: string, viewport = { width: 1280, height: 800 }): Promise<ConsoleBrowser> {
  const profile = await mkdtemp(join(tmpdir(), "console-chromium-"));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, headless: true, args: FLAGS, viewport });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
  // A step that cannot happen fails in seconds with its locator named, not at the test's timeout.
  context.setDefaultTimeout(5_000);
  const page = context.pages()[0] ?? (await context.newPage());
  let errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on("pageerror", (error) => errors.push(`page: ${error.message}`));
  return {
    page,
    context,
    takeErrors() {
      const taken = errors;
      errors = [];
      return taken;
    },
    async close() {
      await context.close().catch(() => undefined);
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Signs in through the form (the token goes nowhere but this tab's sessionStorage). */
export async function signIn(page: Page, origin: string, token: string): Promise<void> {
  await page.goto(`${origin}/console/`);
  await page.getByLabel("Vendor token", { exact: true }).fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}
