// The console's view of what an SRE sees (contract section 20) in a real browser against the whole
// stack: the Upstreams page (from the proxies' health reports: the real proxy's own, plus a fresh and
// a stale report written as a proxy writes them) compared with GET /api/upstreams, and a failed-over
// request's attempts in the request log; at 1280x800 and 390x844, with no console error and no
// request leaving the gateway's address.
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openBrowser, signIn, type ConsoleBrowser } from "./support/browser.ts";
import { eventually } from "./support/eventually.ts";
import { startConsoleStack, type ConsoleStack } from "./support/stack.ts";

interface ApiUpstream {
  name: string;
  state: string;
  circuit: string | null;
  attempts: number;
  failures: Record<string, number>;
  p99_ms: number | null;
}
interface ApiRequest {
  id: string;
  attempts: { upstream: string; cause: string; status: number | null }[];
}

const ARTIFACTS = fileURLToPath(new URL("../test-artifacts/", import.meta.url));
const SCREENS = [
  { name: "laptop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
];

let stack: ConsoleStack;
let browser: ConsoleBrowser;
let failoverId = "";
let plainId = "";
const elsewhere: string[] = [];

/** A report from a proxy process nobody runs: fresh for sim-spare, and one that stopped 40 s ago for sim-idle. */
async function publishReports(): Promise<void> {
  await stack.publishUpstreamHealth("e2e-proxy-fresh:1", {
    at: Date.now(),
    upstreams: { "sim-spare": { attempts: 30, failures: { http_5xx: 4, timeout: 2 }, circuit: "open", p50Ms: 150, p99Ms: 1200, ttfbP50Ms: 90 } },
  });
  await stack.publishUpstreamHealth("e2e-proxy-stale:2", {
    at: Date.now() - 40_000,
    upstreams: { "sim-idle": { attempts: 8, failures: {}, circuit: "closed", p50Ms: 100, p99Ms: 200, ttfbP50Ms: 50 } },
  });
}

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  stack = await startConsoleStack();
  const key = (await stack.api<{ key: string }>("POST", "/api/keys", { server_option: "standard", name: "sre" })).body.key;
  const failover = await stack.chat(key, { model: "gpt-failover" });
  expect(failover.status).toBe(200);
  failoverId = failover.requestId!;
  const plain = await stack.chat(key);
  expect(plain.status).toBe(200);
  plainId = plain.requestId!;
  await eventually(async () => expect((await stack.api<{ data: unknown[] }>("GET", "/api/requests")).body.data).toHaveLength(2), 10_000);
  browser = await openBrowser(stack.url);
  const origin = new URL(stack.url).origin;
  browser.page.on("request", (request) => {
    if (new URL(request.url()).origin !== origin) elsewhere.push(request.url());
  });
  await signIn(browser.page, stack.url, stack.tokens.full);
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

afterEach(() => {
  expect(browser.takeErrors()).toEqual([]);
  expect(elsewhere).toEqual([]);
});

const upstreamRow = (name: string) => browser.page.locator("[data-testid=upstreams-table] tbody tr", { hasText: name }).filter({ has: browser.page.locator(`code:text-is("${name}")`) });

describe("vendor console: upstreams and attempts", () => {
  it("shows each upstream's circuit, traffic, failures by cause and latency as GET /api/upstreams has them; stale and silent ones as such", async () => {
    const { page } = browser;
    // The proxy publishes every 5 s: its report of the failover below's connect error comes within one.
    await eventually(async () => {
      const { data } = (await stack.api<{ data: ApiUpstream[] }>("GET", "/api/upstreams")).body;
      expect(data.find((upstream) => upstream.name === "sim-down")).toMatchObject({ state: "reporting", failures: { connect_error: 1 } });
    }, 12_000);
    await publishReports();
    await page.getByRole("link", { name: "Upstreams" }).click();
    await page.getByRole("heading", { name: "Upstreams" }).waitFor();
    await page.locator("[data-testid=upstreams-table]").waitFor();

    const spare = upstreamRow("sim-spare");
    await expect.poll(() => spare.textContent()).toContain("open");
    const spareText = await spare.textContent();
    for (const shown of ["30", "http_5xx 4 · timeout 2", "150 ms", "1,200 ms", "90 ms", "gpt-failover"]) expect(spareText).toContain(shown);
    const idle = await upstreamRow("sim-idle").textContent();
    expect(idle).toMatch(/stale.*last report \d+ s ago/);
    // Stale figures are not today's: dashes, never the old report's numbers.
    expect(idle).not.toContain("200 ms");
    expect(await upstreamRow("sim-anthropic").textContent()).toContain("No data");
    expect(await page.getByTestId("upstreams-summary").textContent()).toMatch(/reporting, 1 stale\./);

    // Every row as the API has it, the real proxy's own reports (sim-down, sim-openai) included.
    const report = (await stack.api<{ data: ApiUpstream[] }>("GET", "/api/upstreams")).body;
    expect(report.data.map((upstream) => upstream.name)).toEqual(["sim-anthropic", "sim-down", "sim-idle", "sim-openai", "sim-spare"]);
    for (const upstream of report.data) {
      const text = await upstreamRow(upstream.name).textContent();
      if (upstream.state === "reporting") {
        expect(text, upstream.name).toContain(upstream.circuit!.replace("_", " "));
        expect(text, upstream.name).toContain(upstream.attempts.toLocaleString("en-US"));
        for (const [cause, failed] of Object.entries(upstream.failures)) if (failed > 0) expect(text, upstream.name).toContain(`${cause} ${failed}`);
      } else {
        expect(text, upstream.name).toContain(upstream.state === "stale" ? "stale" : "No data");
      }
    }
  });

  it("shows a failed-over request's attempts in order: the upstream, cause, status, duration and first byte of each", async () => {
    const { page } = browser;
    const logged = (await stack.api<{ data: ApiRequest[] }>("GET", `/api/requests?id=${failoverId}`)).body.data[0]!;
    expect(logged.attempts).toEqual([expect.objectContaining({ upstream: "sim-down", cause: "connect_error", status: null }), expect.objectContaining({ upstream: "sim-openai", cause: "ok", status: 200 })]);

    await page.getByRole("link", { name: "Requests" }).click();
    const rows = page.locator("[data-testid=requests-table] tbody tr");
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.filter({ hasText: plainId }).textContent()).toContain("1 attempt");
    const opener = page.getByRole("button", { name: `Attempts of ${failoverId}` });
    expect(await opener.textContent()).toBe("2 attempts (failover)");
    await opener.click();
    const dialog = page.getByRole("dialog", { name: "Upstream attempts" });
    const attempts = dialog.locator("[data-testid=request-attempts] tbody tr");
    await expect.poll(() => attempts.count()).toBe(2);
    const [first, second] = await attempts.allTextContents();
    expect(first).toMatch(/sim-down.*gpt-upstream.*connect error.*none.*ms/);
    expect(second).toMatch(/sim-openai.*gpt-upstream.*ok.*200.*ms.*ms/);
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    expect(await opener.evaluate((button) => button === document.activeElement)).toBe(true);
  });
});

describe("vendor console: upstreams and attempts on both screens", () => {
  for (const screen of SCREENS) {
    it(`fits the Upstreams page and a request's attempts on a ${screen.width}x${screen.height} screen`, async () => {
      const { page } = browser;
      await page.setViewportSize({ width: screen.width, height: screen.height });
      await publishReports();
      await page.goto(`${stack.url}/console/upstreams`);
      await page.getByRole("heading", { name: "Upstreams", exact: true }).waitFor();
      await upstreamRow("sim-spare").waitFor();
      await page.screenshot({ path: `${ARTIFACTS}upstreams-${screen.name}.png`, fullPage: true });
      expect(await page.evaluate(() => document.documentElement.scrollWidth), `upstreams at ${screen.width}px`).toBeLessThanOrEqual(screen.width);
      // Every figure of a row is on screen, not cut off: each cell's right edge within the viewport.
      const cells = await upstreamRow("sim-spare").locator("td").evaluateAll((found) => found.map((cell) => cell.getBoundingClientRect().right));
      for (const right of cells) expect(right).toBeLessThanOrEqual(screen.width);

      await page.goto(`${stack.url}/console/requests`);
      const opener = page.getByRole("button", { name: `Attempts of ${failoverId}` });
      // On screen as the page opens, without scrolling the table sideways.
      const openerBox = await opener.boundingBox();
      expect(openerBox!.x + openerBox!.width).toBeLessThanOrEqual(screen.width);
      await opener.click();
      const dialog = page.getByRole("dialog", { name: "Upstream attempts" });
      await dialog.locator("[data-testid=request-attempts]").waitFor();
      await page.screenshot({ path: `${ARTIFACTS}request-attempts-${screen.name}.png` });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(screen.width);
      const box = await dialog.boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(screen.width);
      await dialog.getByRole("button", { name: "Done" }).click();
      await dialog.waitFor({ state: "detached" });
    });
  }
});
