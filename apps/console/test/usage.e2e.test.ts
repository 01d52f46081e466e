// The vendor console's reports in a real browser after real traffic through the proxy: the usage
// chart and totals (checked against GET /api/usage), the request log found by the x-request-id a
// client saw, the server options with their prices; then every page at a laptop's 1280x800 and a
// phone's 390x844, with screenshots into test-artifacts/ (git-ignored) and no sideways scrolling.
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openBrowser, signIn, type ConsoleBrowser } from "./support/browser.ts";
import { eventually } from "./support/eventually.ts";
import { startConsoleStack, type ConsoleStack } from "./support/stack.ts";

interface UsageTotals {
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cache_write_tokens: number;
  cache_write_1h_tokens: number;
  web_search_requests: number;
  cost: string;
}

const ARTIFACTS = fileURLToPath(new URL("../test-artifacts/", import.meta.url));
const SCREENS = [
  { name: "laptop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
];
const PAGES = [
  { path: "keys", heading: "Keys", ready: "[data-testid=keys-table]" },
  { path: "usage", heading: "Usage", ready: "[data-testid=usage-chart] canvas" },
  { path: "requests", heading: "Requests", ready: "[data-testid=requests-table]" },
  { path: "server-options", heading: "Server options", ready: "[data-testid=server-option]" },
  { path: "upstreams", heading: "Upstreams", ready: "[data-testid=upstreams-table]" },
];

let stack: ConsoleStack;
let browser: ConsoleBrowser;
const requestIds: string[] = [];

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  stack = await startConsoleStack();
  const first = await stack.api<{ key: string }>("POST", "/api/keys", { server_option: "standard", name: "traffic-a", quota: "25.00", budget: { limit: "5.00", period: "week" } });
  const second = await stack.api<{ key: string }>("POST", "/api/keys", { server_option: "premium", name: "traffic-b-with-a-rather-long-name" });
  for (const key of [first.body.key, first.body.key, first.body.key, second.body.key]) {
    const answer = await stack.chat(key);
    expect(answer.status).toBe(200);
    requestIds.push(answer.requestId!);
  }
  // A Claude request with 5-minute and 1-hour cache writes and two server-side web searches.
  const claude = await stack.chat(first.body.key, { model: "claude-test", content: "Hello #sim:cache_write=3 #sim:cache_write_1h=2 #sim:web_search=2" });
  expect(claude.status).toBe(200);
  requestIds.push(claude.requestId!);
  // The billing worker writes the ledger a moment after each request ends.
  await eventually(async () => expect((await stack.api<{ totals: UsageTotals }>("GET", "/api/usage")).body.totals.requests).toBe(5), 10_000);
  browser = await openBrowser(stack.url);
  await signIn(browser.page, stack.url, stack.tokens.full);
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

afterEach(() => {
  expect(browser.takeErrors()).toEqual([]);
});

const integer = (value: number) => value.toLocaleString("en-US");
const dollars = (text: string | null) => Number((text ?? "").replace(/[$,]/g, ""));

describe("vendor console: usage, requests, server options", () => {
  it("charts cost and tokens per day, with totals equal to /api/usage for the chosen range", async () => {
    const { page } = browser;
    // A deep link: the control plane answers index.html, the session survives the reload.
    await page.goto(`${stack.url}/console/usage`);
    await page.getByRole("heading", { name: "Usage" }).waitFor();
    await page.locator("[data-testid=usage-chart] canvas").first().waitFor();
    expect(await page.getByTestId("token-identity").textContent()).toContain("console-vendor");

    const from = await page.getByLabel("From (UTC)", { exact: true }).inputValue();
    const to = await page.getByLabel("To (UTC)", { exact: true }).inputValue();
    const end = new Date(Date.parse(`${to}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const report = await stack.api<{ totals: UsageTotals }>("GET", `/api/usage?from=${from}&to=${end}&group_by=day`);
    const { totals } = report.body;
    expect(totals.requests).toBe(5);
    expect(await page.getByTestId("total-requests").textContent()).toBe(integer(totals.requests));
    expect(await page.getByTestId("total-input-tokens").textContent()).toBe(integer(totals.input_tokens));
    expect(await page.getByTestId("total-output-tokens").textContent()).toBe(integer(totals.output_tokens));
    expect(dollars(await page.getByTestId("total-cost").textContent())).toBe(Number(totals.cost));

    const byModel = page.locator("[data-testid=usage-by-model] tbody tr");
    const modelRows = await byModel.allTextContents();
    expect(modelRows).toHaveLength(2);
    // The Claude row shows its cache writes (the 1-hour part apart) and its web searches, as /api/usage counts them.
    expect(totals.cache_write_tokens).toBe(5);
    expect(totals.cache_write_1h_tokens).toBe(2);
    expect(totals.web_search_requests).toBe(2);
    const claudeCells = await byModel.filter({ hasText: "claude-test" }).locator("td").allTextContents();
    expect(claudeCells).toContain("5 (1h: 2)");
    expect(claudeCells[claudeCells.length - 2]).toBe("2");
    const byKey = await page.locator("[data-testid=usage-by-key] tbody tr").allTextContents();
    expect(byKey.join(" ")).toContain("traffic-a");
    expect(byKey.join(" ")).toContain("traffic-b-with-a-rather-long-name");

    // Another range: the 7-day preset still holds today's traffic.
    await page.getByRole("button", { name: "7 days" }).click();
    await expect.poll(() => page.getByLabel("From (UTC)", { exact: true }).inputValue()).not.toBe(from);
    await expect.poll(() => page.getByTestId("total-requests").textContent()).toBe("5");
  });

  it("finds a request in the log by its x-request-id, and filters by model and status", async () => {
    const { page } = browser;
    await page.getByRole("link", { name: "Requests" }).click();
    await page.getByRole("heading", { name: "Requests" }).waitFor();
    const rows = page.locator("[data-testid=requests-table] tbody tr");
    await expect.poll(() => rows.count()).toBe(5);

    await page.getByLabel("Request id", { exact: true }).fill(requestIds[1]!);
    await page.getByRole("button", { name: "Filter" }).click();
    await expect.poll(() => rows.evaluateAll((found) => found.map((row) => row.getAttribute("data-row")))).toEqual([requestIds[1]]);
    expect(await rows.first().textContent()).toContain("gpt-test");

    await page.getByRole("button", { name: "Clear" }).click();
    await page.getByLabel("Model", { exact: true }).fill("gpt-test");
    await page.getByLabel("Status", { exact: true }).selectOption("error");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.getByText("No requests match these filters.").waitFor();
    await page.getByLabel("Status", { exact: true }).selectOption("ok");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect.poll(() => rows.count()).toBe(4);
    await page.getByLabel("Model", { exact: true }).fill("claude-test");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain("5 (1h: 2)");
  });

  it("lists the server options with their models and prices", async () => {
    const { page } = browser;
    await page.getByRole("link", { name: "Server options" }).click();
    const standard = page.getByRole("region", { name: "standard" });
    const premium = page.getByRole("region", { name: "premium" });
    await standard.waitFor();
    expect(await standard.textContent()).toContain("Everyday models");
    const gptStandard = standard.locator("tbody tr", { hasText: "gpt-test" });
    expect(await gptStandard.textContent()).toContain("$0.15");
    expect(await gptStandard.textContent()).toContain("$0.60");
    // premium doubles the list prices (price_multiplier "2").
    const gptPremium = premium.locator("tbody tr", { hasText: "gpt-test" });
    expect(await gptPremium.textContent()).toContain("$0.30");
    expect(await gptPremium.textContent()).toContain("$1.20");
    // Cache writes default to 1.25x and 2x input; the web search fee and the long-context tier show too.
    const claudeStandard = standard.locator("tbody tr", { hasText: "claude-test" });
    expect(await claudeStandard.textContent()).toContain("$3.75 · $6.00");
    expect(await claudeStandard.textContent()).toContain("$0.01");
    expect(await standard.getByTestId("price-tiers").textContent()).toContain("claude-test above 200,000 input tokens: input $6.00, output $22.50");
  });
});

describe("vendor console: screen sizes", () => {
  for (const screen of SCREENS) {
    it(`fits every page on a ${screen.width}x${screen.height} screen`, async () => {
      const { page } = browser;
      await page.setViewportSize({ width: screen.width, height: screen.height });
      for (const target of PAGES) {
        await page.goto(`${stack.url}/console/${target.path}`);
        await page.getByRole("heading", { name: target.heading, exact: true }).waitFor();
        await page.locator(target.ready).first().waitFor();
        await page.screenshot({ path: `${ARTIFACTS}${target.path}-${screen.name}.png`, fullPage: true });
        const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(scrollWidth, `${target.path} at ${screen.width}px`).toBeLessThanOrEqual(screen.width);
      }
      // A dialog on the same screen: it fits, and Escape closes it with focus back on its button.
      await page.goto(`${stack.url}/console/keys`);
      const create = page.getByRole("button", { name: "Create key" });
      await create.click();
      await page.getByRole("dialog", { name: "Create key" }).getByLabel("Server option", { exact: true }).selectOption("standard");
      await page.screenshot({ path: `${ARTIFACTS}create-key-dialog-${screen.name}.png` });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(screen.width);
      // Tab and Shift+Tab go round inside the dialog (it has 11 controls; 14 presses wrap).
      for (const key of [...Array<string>(14).fill("Tab"), ...Array<string>(14).fill("Shift+Tab")]) {
        await page.keyboard.press(key);
        expect(await page.evaluate(() => Boolean(document.activeElement?.closest("dialog")))).toBe(true);
      }
      await page.keyboard.press("Escape");
      await page.getByRole("dialog").waitFor({ state: "detached" });
      expect(await create.evaluate((button) => button === document.activeElement)).toBe(true);
    });
  }
});
