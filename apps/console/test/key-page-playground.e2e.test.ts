// A key's own page, the playground and the request log of issue 38 in a real browser against the
// whole stack: the key page's usage and requests (checked against the vendor API), a chat streamed
// through the playground with a pasted key (tokens rendered as they arrive, then usage and the
// request id, which the request log has), the log's key names and shortened ids at 1280 px without
// sideways scrolling, and the CSV exports of Usage and Requests (their totals equal the JSON's);
// at 1280x800 and 390x844, with no console error and no request leaving the gateway's address.
import { mkdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openBrowser, signIn, type ConsoleBrowser } from "./support/browser.ts";
import { eventually } from "./support/eventually.ts";
import { startConsoleStack, type ConsoleStack } from "./support/stack.ts";

interface Totals {
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cost: string;
}
interface LoggedRequest {
  id: string;
  key_id: string;
  input_tokens: number;
  output_tokens: number;
  stream: boolean;
}

/** RFC 4180 rows: quoted fields (with "" for a quote, commas and newlines inside) or bare ones. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let at = 0; at < text.length; at++) {
    const char = text[at]!;
    if (quoted) {
      if (char === '"' && text[at + 1] === '"') {
        field += '"';
        at++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ",") {
      row.push(field);
      field = "";
    } else if (char === "\n" || char === "\r") {
      if (char === "\r" && text[at + 1] === "\n") at++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += char;
  }
  if (field !== "" || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

const ARTIFACTS = fileURLToPath(new URL("../test-artifacts/", import.meta.url));
const SCREENS = [
  { name: "laptop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
];

let stack: ConsoleStack;
let browser: ConsoleBrowser;
let keyId = "";
let secret = "";
let otherKeyId = "";
const requestIds: string[] = [];
const elsewhere: string[] = [];

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  stack = await startConsoleStack();
  const first = await stack.api<{ id: string; key: string }>("POST", "/api/keys", { server_option: "standard", name: "playground-key", quota: "20.00" });
  const second = await stack.api<{ id: string; key: string }>("POST", "/api/keys", { server_option: "premium", name: "another-key-with-a-long-name-for-the-log" });
  keyId = first.body.id;
  secret = first.body.key;
  otherKeyId = second.body.id;
  for (const key of [secret, secret, second.body.key]) {
    const answer = await stack.chat(key);
    expect(answer.status).toBe(200);
    requestIds.push(answer.requestId!);
  }
  await eventually(async () => expect((await stack.api<{ totals: Totals }>("GET", "/api/usage")).body.totals.requests).toBe(3), 10_000);
  browser = await openBrowser(stack.url);
  const origin = new URL(stack.url).origin;
  browser.page.on("request", (request) => {
    if (!["blob:", "data:"].some((scheme) => request.url().startsWith(scheme)) && new URL(request.url()).origin !== origin) elsewhere.push(request.url());
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

const nav = (name: string) => browser.page.getByRole("navigation", { name: "Console" }).getByRole("link", { name, exact: true });

describe("vendor console: a key's page, the playground, the request log and CSV exports", () => {
  it("opens a key's page from the keys list: its settings, usage per day and requests as the API has them", async () => {
    const { page } = browser;
    await page.getByRole("link", { name: "Open playground-key" }).click();
    await page.getByRole("heading", { name: "playground-key" }).waitFor();
    expect(page.url()).toContain(`/console/keys/${keyId}`);
    expect(await page.getByTestId("key-facts").textContent()).toContain(keyId);
    expect(await page.getByTestId("key-quota").textContent()).toBe("$20.00");
    await page.locator("[data-testid=usage-chart] canvas").first().waitFor();
    await expect.poll(() => page.getByTestId("total-requests").textContent()).toBe("2");
    const usage = await stack.api<{ consumption: Totals }>("GET", `/api/keys/${keyId}/usage`);
    expect(await page.getByTestId("total-input-tokens").textContent()).toBe(usage.body.consumption.input_tokens.toLocaleString("en-US"));
    const rows = page.locator("[data-testid=requests-table] tbody tr");
    await expect.poll(() => rows.evaluateAll((found) => found.map((row) => row.getAttribute("data-row")))).toEqual([requestIds[1], requestIds[0]]);
    // A deep link reloads the same page.
    await page.reload();
    await page.getByRole("heading", { name: "playground-key" }).waitFor();
    await page.getByRole("link", { name: "← All keys" }).click();
    await page.getByRole("heading", { name: "Keys" }).waitFor();
  });

  it("streams a chat in the playground with a pasted key, then shows its usage and request id, which the request log has", async () => {
    const { page } = browser;
    await nav("Playground").click();
    await page.getByRole("heading", { name: "Playground" }).waitFor();
    await page.getByLabel("Key", { exact: true }).selectOption(keyId);
    await page.getByLabel("Key secret", { exact: true }).fill(secret);
    const models = await page.getByLabel("Model", { exact: true }).locator("option").allTextContents();
    expect(models).toEqual(expect.arrayContaining(["gpt-test", "claude-test"]));
    await page.getByLabel("Model", { exact: true }).selectOption("gpt-test");
    // Ten chunks 150 ms apart: the answer must grow on screen before the stream ends.
    await page.getByLabel("Message", { exact: true }).fill("Hello playground #sim:chunks=10 #sim:chunk_delay_ms=150");
    await page.getByRole("button", { name: "Send" }).click();
    const streaming = page.getByTestId("playground-streaming");
    await expect.poll(async () => ((await streaming.count()) > 0 ? ((await streaming.textContent()) ?? "").replace("…", "").length : 0)).toBeGreaterThan(0);
    const partial = (await streaming.textContent()) ?? "";
    await page.getByTestId("playground-result").waitFor({ timeout: 10_000 });
    const answer = (await page.locator("[data-role=assistant]").last().textContent()) ?? "";
    expect(answer.length).toBeGreaterThan(partial.length - 1);
    const requestId = (await page.getByTestId("playground-request-id").textContent()) ?? "";
    expect(requestId).toMatch(/^req_/);

    await eventually(async () => expect((await stack.api<{ data: LoggedRequest[] }>("GET", `/api/requests?id=${requestId}`)).body.data).toHaveLength(1), 10_000);
    const logged = (await stack.api<{ data: LoggedRequest[] }>("GET", `/api/requests?id=${requestId}`)).body.data[0]!;
    expect(logged).toMatchObject({ key_id: keyId, stream: true });
    expect(await page.getByTestId("playground-input-tokens").textContent()).toBe(logged.input_tokens.toLocaleString("en-US"));
    expect(await page.getByTestId("playground-output-tokens").textContent()).toBe(logged.output_tokens.toLocaleString("en-US"));
    // The pasted key lives in the page's memory only.
    expect(await page.evaluate(() => [...Object.values(sessionStorage), ...Object.values(localStorage), document.cookie].join(" "))).not.toContain(secret);
    requestIds.push(requestId);
  });

  it("shows a refused key's envelope message in the playground", async () => {
    const { page } = browser;
    await page.getByLabel("Key secret", { exact: true }).fill("sk-not-a-real-key");
    await page.getByLabel("Message", { exact: true }).fill("Hello again");
    await page.getByRole("button", { name: "Send" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/key/i);
    expect(browser.takeErrors()).toEqual([expect.stringContaining("status of 401")]);
  });

  it("names the keys in the request log next to shortened ids (full value on hover and copy), without scrolling sideways at 1280 px", async () => {
    const { page } = browser;
    await nav("Requests").click();
    const rows = page.locator("[data-testid=requests-table] tbody tr");
    await expect.poll(() => rows.count()).toBe(4);
    const other = page.locator(`[data-testid=requests-table] tr[data-row="${requestIds[2]}"]`);
    await expect.poll(() => other.getByTestId("request-key").textContent()).toContain("another-key-with-a-long-name-for-the-log");
    const idButton = page.getByRole("button", { name: `Copy ${requestIds[2]}` });
    expect(await idButton.getAttribute("title")).toContain(requestIds[2]);
    expect(((await idButton.locator("code").textContent()) ?? "").length).toBeLessThan(requestIds[2]!.length);
    await idButton.click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(requestIds[2]);
    expect(await page.getByRole("button", { name: `Copy ${otherKeyId}` }).count()).toBeGreaterThan(0);
    // The key's name links to its page.
    await other.getByRole("link", { name: "another-key-with-a-long-name-for-the-log" }).click();
    await page.getByRole("heading", { name: "another-key-with-a-long-name-for-the-log" }).waitFor();
    await page.goBack();
    await expect.poll(() => rows.count()).toBe(4);
    const rowHeights = await rows.evaluateAll((found) => found.map((row) => row.getBoundingClientRect().height));
    // One key cell is a name over a short id: a row is a few lines, never a dozen.
    for (const height of rowHeights) expect(height).toBeLessThan(100);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
    // The table itself does not scroll sideways either: every column is on screen.
    const table = await page.getByTestId("requests-table").evaluate((element) => ({ scroll: element.parentElement!.scrollWidth, client: element.parentElement!.clientWidth }));
    expect(table.scroll).toBeLessThanOrEqual(table.client);
  });

  it("exports the request log and usage as CSV with the current filters, totals equal to the JSON", async () => {
    const { page } = browser;
    await page.getByLabel("Model", { exact: true }).fill("gpt-test");
    await page.getByRole("button", { name: "Filter" }).click();
    const [requestsFile] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
    expect(requestsFile.suggestedFilename()).toBe("requests.csv");
    const requestsCsv = parseCsv(await readFile((await requestsFile.path())!, "utf8"));
    const header = requestsCsv[0]!;
    expect(header).toEqual(expect.arrayContaining(["id", "key_id", "model", "cost"]));
    const json = await stack.api<{ data: LoggedRequest[] }>("GET", "/api/requests?model=gpt-test&limit=100");
    expect(requestsCsv.length - 1).toBe(json.body.data.length);

    await nav("Usage").click();
    await page.locator("[data-testid=usage-chart] canvas").first().waitFor();
    const from = await page.getByLabel("From (UTC)", { exact: true }).inputValue();
    const to = await page.getByLabel("To (UTC)", { exact: true }).inputValue();
    const end = new Date(Date.parse(`${to}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const [usageFile] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
    const lines = parseCsv(await readFile((await usageFile.path())!, "utf8"));
    const columns = lines[0]!;
    expect(columns[0]).toBe("group");
    const at = (name: string) => columns.indexOf(name);
    const rows = lines.slice(1);
    const report = await stack.api<{ totals: Totals }>("GET", `/api/usage?from=${from}&to=${end}&group_by=day`);
    expect(rows.reduce((sum, row) => sum + Number(row[at("requests")]), 0)).toBe(report.body.totals.requests);
    expect(rows.reduce((sum, row) => sum + Number(row[at("input_tokens")]), 0)).toBe(report.body.totals.input_tokens);
    const nano = (usd: string) => {
      const [whole = "0", fraction = ""] = usd.split(".");
      return BigInt(whole) * 1_000_000_000n + BigInt(`${fraction}000000000`.slice(0, 9));
    };
    expect(rows.reduce((sum, row) => sum + nano(row[at("cost")]!), 0n)).toBe(nano(report.body.totals.cost));
  });
});

describe("vendor console: key page and playground on both screens", () => {
  for (const screen of SCREENS) {
    it(`fits the key page, the playground and the request log on a ${screen.width}x${screen.height} screen`, async () => {
      const { page } = browser;
      await page.setViewportSize({ width: screen.width, height: screen.height });
      for (const target of [
        { path: `keys/${keyId}`, heading: "playground-key", ready: "[data-testid=usage-chart] canvas", name: "key" },
        { path: "playground", heading: "Playground", ready: "[data-testid=playground-conversation]", name: "playground" },
        { path: "requests", heading: "Requests", ready: "[data-testid=requests-table]", name: "requests-log" },
      ]) {
        await page.goto(`${stack.url}/console/${target.path}`);
        await page.getByRole("heading", { name: target.heading, exact: true }).waitFor();
        await page.locator(target.ready).first().waitFor();
        await page.screenshot({ path: `${ARTIFACTS}${target.name}-${screen.name}.png`, fullPage: true });
        expect(await page.evaluate(() => document.documentElement.scrollWidth), `${target.path} at ${screen.width}px`).toBeLessThanOrEqual(screen.width);
      }
    });
  }
});
