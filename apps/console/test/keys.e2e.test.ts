// The vendor console's keys page in a real browser against the whole stack: sign-in, minting with
// the plaintext shown once and copied, then every change a key can have, each checked by calling
// /v1 on the same address with the key itself; then tokens with fewer scopes, which never see what
// they may not do.
import type { Response } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openBrowser, signIn, type ConsoleBrowser } from "./support/browser.ts";
import { startConsoleStack, type ConsoleStack } from "./support/stack.ts";
import { eventually } from "./support/eventually.ts";

let stack: ConsoleStack;
let browser: ConsoleBrowser;
let secret = "";

beforeAll(async () => {
  stack = await startConsoleStack();
  browser = await openBrowser(stack.url);
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

afterEach(() => {
  expect(browser.takeErrors()).toEqual([]);
});

const row = (name: string) => browser.page.locator("[data-testid=keys-table] tbody tr", { hasText: name });
/** Every button that creates or changes a key, by its accessible name ("Edit customer-a"). */
const KEY_ACTIONS = /^(Create key|Edit|Top up|Disable|Enable|Rotate|Revoke)\b/;

describe("vendor console: keys", () => {
  it("refuses a bad token with the API's message, then signs in and keeps the token out of URLs and cookies", async () => {
    const { page } = browser;
    await page.goto(`${stack.url}/console/`);
    await page.getByLabel("Vendor token", { exact: true }).fill("vt_not-a-real-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("Invalid or revoked vendor token.");
    // The browser reports the refused call itself; nothing else may have gone wrong.
    expect(browser.takeErrors()).toEqual([expect.stringContaining("status of 401")]);

    await page.getByLabel("Vendor token", { exact: true }).fill(stack.tokens.full);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Keys" }).waitFor();
    await page.getByText("No keys yet.").waitFor();
    expect(await page.getByRole("button", { name: "Create key" }).count()).toBe(1);
    const identity = await page.getByTestId("token-identity").textContent();
    expect(identity).toContain("console-vendor");
    expect(identity).toContain(stack.tokens.full.slice(0, 7));
    expect(page.url()).not.toContain(stack.tokens.full);
    expect(await page.evaluate(() => document.cookie)).toBe("");
    expect(await page.evaluate(() => Object.values(sessionStorage))).toContain(stack.tokens.full);
  });

  it("mints a key, shows the plaintext once with a copy button, and the copied key calls /v1", async () => {
    const { page } = browser;
    await page.getByRole("button", { name: "Create key" }).click();
    const dialog = page.getByRole("dialog", { name: "Create key" });
    await dialog.getByLabel("Server option", { exact: true }).selectOption("standard");
    await dialog.getByLabel("Name", { exact: true }).fill("customer-a");
    await dialog.getByLabel("Quota (USD)", { exact: true }).fill("1.00");
    await dialog.getByLabel("Requests per minute", { exact: true }).fill("100");
    await dialog.getByRole("button", { name: "Create key" }).click();

    const created = page.getByRole("dialog", { name: "Key created" });
    const shown = await created.getByTestId("secret").inputValue();
    expect(shown).toMatch(/^sk-/);
    await created.getByRole("button", { name: "Copy" }).click();
    await created.getByText("Copied to the clipboard.").waitFor();
    secret = await page.evaluate(() => navigator.clipboard.readText());
    expect(secret).toBe(shown);
    await created.getByRole("button", { name: "Done" }).click();

    await expect.poll(() => row("customer-a").textContent()).toContain("active");
    expect(await row("customer-a").getByTestId("quota").textContent()).toBe("$1.00");
    // A token with every scope gets every action.
    for (const action of ["Edit", "Top up", "Disable", "Rotate", "Revoke"]) expect(await page.getByRole("button", { name: `${action} customer-a` }).count()).toBe(1);
    expect((await stack.chat(secret)).status).toBe(200);
  });

  it("tops up the quota", async () => {
    const { page } = browser;
    await page.getByRole("button", { name: "Top up customer-a" }).click();
    const dialog = page.getByRole("dialog", { name: "Top up customer-a" });
    await dialog.getByLabel("Amount to add (USD)", { exact: true }).fill("2.50");
    await dialog.getByRole("button", { name: "Add to quota" }).click();
    await expect.poll(() => row("customer-a").getByTestId("quota").textContent()).toBe("$3.50");
    const keys = await stack.api<{ data: { name: string; quota: string }[] }>("GET", "/api/keys?search=customer-a");
    expect(keys.body.data[0]?.quota).toBe("3.500000");
  });

  it("edits the name, rate limits and budget", async () => {
    const { page } = browser;
    await page.getByRole("button", { name: "Edit customer-a" }).click();
    const dialog = page.getByRole("dialog", { name: "Edit customer-a" });
    await dialog.getByLabel("Name", { exact: true }).fill("customer-one");
    await dialog.getByLabel("Tokens per minute", { exact: true }).fill("50000");
    await dialog.getByLabel("Budget (USD)", { exact: true }).fill("2.00");
    await dialog.getByLabel("Budget period", { exact: true }).selectOption("day");
    await dialog.getByRole("button", { name: "Save changes" }).click();
    await expect.poll(() => row("customer-one").textContent()).toContain("50,000 tpm");
    expect(await row("customer-one").textContent()).toContain("of $2.00 / day");
  });

  it("disables the key (401 from the proxy) and enables it again", async () => {
    const { page } = browser;
    await page.getByRole("button", { name: "Disable customer-one" }).click();
    await expect.poll(() => row("customer-one").textContent()).toContain("disabled");
    await eventually(async () => expect(await stack.chat(secret)).toMatchObject({ status: 401, code: "key_disabled" }));
    await page.getByRole("button", { name: "Enable customer-one" }).click();
    await expect.poll(() => row("customer-one").textContent()).toContain("active");
    await eventually(async () => expect((await stack.chat(secret)).status).toBe(200));
  });

  it("rotates the secret: the old one is refused, the new one works", async () => {
    const { page } = browser;
    await page.getByRole("button", { name: "Rotate customer-one" }).click();
    const dialog = page.getByRole("dialog", { name: "Rotate customer-one" });
    await dialog.getByLabel("Grace period (seconds)", { exact: true }).fill("0");
    await dialog.getByRole("button", { name: "Rotate secret" }).click();
    const rotated = await dialog.getByTestId("secret").inputValue();
    expect(rotated).toMatch(/^sk-/);
    expect(rotated).not.toBe(secret);
    await dialog.getByRole("button", { name: "Done" }).click();
    await eventually(async () => expect((await stack.chat(secret)).status).toBe(401));
    expect((await stack.chat(rotated)).status).toBe(200);
    secret = rotated;
  });

  it("revokes only after confirmation (Escape cancels), and the key is refused afterwards", async () => {
    const { page } = browser;
    await page.getByRole("button", { name: "Revoke customer-one" }).click();
    const confirm = page.getByRole("dialog", { name: "Revoke key?" });
    await confirm.waitFor();
    await page.keyboard.press("Escape");
    await confirm.waitFor({ state: "detached" });
    expect((await stack.chat(secret)).status).toBe(200);

    await page.getByRole("button", { name: "Revoke customer-one" }).click();
    await confirm.getByRole("button", { name: "Revoke key" }).click();
    await expect.poll(() => row("customer-one").textContent()).toContain("revoked");
    await eventually(async () => expect((await stack.chat(secret)).status).toBe(401));
  });

  it("searches and filters by status", async () => {
    const { page } = browser;
    const minted = await stack.api("POST", "/api/keys", { server_option: "premium", name: "customer-b" });
    expect(minted.status).toBe(201);
    await page.getByLabel("Search", { exact: true }).fill("customer-b");
    await expect.poll(() => page.locator("[data-testid=keys-table] tbody tr").allTextContents()).toEqual([expect.stringContaining("customer-b")]);
    await page.getByLabel("Search", { exact: true }).fill("");
    await page.getByLabel("Status", { exact: true }).selectOption("revoked");
    await expect.poll(() => row("customer-one").count()).toBe(1);
    expect(await page.locator("[data-testid=keys-table] tbody tr").count()).toBe(1);
    await page.getByLabel("Status", { exact: true }).selectOption("disabled");
    await page.getByText("No keys match.").waitFor();
    await page.getByLabel("Status", { exact: true }).selectOption("");
  });

  it("never shows a usage:read token a key action, from the first render on, and makes no refused call", async () => {
    const { page } = browser;
    await page.getByRole("button", { name: "Sign out" }).click();
    expect(await page.evaluate(() => Object.values(sessionStorage))).not.toContain(stack.tokens.full);
    const refused: string[] = [];
    const onResponse = (response: Response) => {
      if (response.status() === 403) refused.push(response.url());
    };
    page.on("response", onResponse);
    try {
      await signIn(page, stack.url, stack.tokens.usageOnly);
      // The shell's first render: the scopes came with the sign-in, before any click.
      expect(await page.getByRole("button", { name: KEY_ACTIONS }).count()).toBe(0);
      expect(await page.getByTestId("scope-notice").textContent()).toContain("lacks the scope 'keys:read'");
      expect(await page.getByTestId("token-identity").textContent()).toContain("console-vendor");
      // What the token may read loads.
      await page.getByRole("link", { name: "Usage" }).click();
      await page.locator("[data-testid=usage-chart] canvas").first().waitFor();
      await page.getByRole("link", { name: "Requests" }).click();
      await page.getByTestId("requests-table").or(page.getByText("No requests yet.")).waitFor();
      // A reload reads the scopes again before showing the page.
      await page.goto(`${stack.url}/console/keys`);
      await page.getByTestId("scope-notice").waitFor();
      expect(await page.getByRole("button", { name: KEY_ACTIONS }).count()).toBe(0);
      expect(await page.getByTestId("token-identity").textContent()).toContain(stack.tokens.usageOnly.slice(0, 7));
      expect(refused).toEqual([]);
    } finally {
      page.off("response", onResponse);
    }
  });

  it("ends the session with a clear message when the token is revoked", async () => {
    const { page } = browser;
    await stack.revokeUsageOnlyToken();
    await page.getByRole("link", { name: "Usage" }).click();
    await expect.poll(() => page.getByRole("status").first().textContent()).toContain("Signed out: Invalid or revoked vendor token.");
    await page.getByLabel("Vendor token", { exact: true }).waitFor();
    expect(await page.evaluate(() => Object.values(sessionStorage))).not.toContain(stack.tokens.usageOnly);
    const errors = browser.takeErrors();
    expect(errors.length).toBeGreaterThan(0);
    for (const error of errors) expect(error).toContain("status of 401");
  });

  it("shows a keys:update token the changes but not create or revoke, and hides them once the scope is taken away mid-session", async () => {
    const { page } = browser;
    expect((await stack.api("POST", "/api/keys", { server_option: "standard", name: "customer-c", quota: "5.00" })).status).toBe(201);
    await signIn(page, stack.url, stack.tokens.editor);
    await expect.poll(() => row("customer-c").count()).toBe(1);
    for (const action of ["Edit", "Top up", "Disable", "Rotate"]) expect(await page.getByRole("button", { name: `${action} customer-c` }).count()).toBe(1);
    expect(await page.getByRole("button", { name: /^(Create key|Revoke)/ }).count()).toBe(0);

    // The operator takes keys:update away: the next change is refused, and then nothing needing it shows.
    await stack.setEditorScopes(["keys:read"]);
    await page.getByRole("button", { name: "Disable customer-c" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("lacks the scope 'keys:update'");
    await expect.poll(() => page.getByRole("button", { name: KEY_ACTIONS }).count()).toBe(0);
    expect(await page.getByRole("columnheader", { name: "Actions" }).count()).toBe(0);
    expect(await row("customer-c").textContent()).toContain("active");
    expect(browser.takeErrors()).toEqual([expect.stringContaining("status of 403")]);
  });
});
