// The alert rules (infra/observability/alerts.yaml) under promtool: valid (`check rules`), and each
// alert fires on recorded series of the failure it names and stays quiet on healthy ones
// (`test rules alerts.test.yaml`). Also that the test file really has both cases for every alert,
// and that promtool's unit tests can fail (a copy of the rules with one threshold changed).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { OBSERVABILITY_DIR, promtool } from "./promtool.ts";

interface Rule { alert?: string; record?: string; expr: string; for?: string; labels?: Record<string, string>; annotations?: Record<string, string> }
interface RuleFile { groups: { name: string; rules: Rule[] }[] }
interface AlertCase { eval_time: string; alertname: string; exp_alerts?: { exp_labels?: Record<string, string> }[] }
interface TestFile { rule_files: string[]; tests: { name: string; alert_rule_test?: AlertCase[] }[] }

const rulesText = readFileSync(join(OBSERVABILITY_DIR, "alerts.yaml"), "utf8");
const rules = parse(rulesText) as RuleFile;
const tests = parse(readFileSync(join(OBSERVABILITY_DIR, "alerts.test.yaml"), "utf8")) as TestFile;
const alerts = rules.groups.flatMap((group) => group.rules).filter((rule) => rule.alert !== undefined);

const scratch = mkdtempSync(join(tmpdir(), "gw-alerts-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("infra/observability/alerts.yaml", () => {
  it("is valid for promtool check rules", () => {
    const run = promtool(["check", "rules", "alerts.yaml"]);
    expect(run.output).toContain(`SUCCESS: ${rules.groups.flatMap((group) => group.rules).length} rules found`);
    expect(run.status, run.output).toBe(0);
  });

  it("passes promtool test rules alerts.test.yaml: every alert fires on its failure and stays quiet on healthy series", () => {
    const run = promtool(["test", "rules", "alerts.test.yaml"]);
    expect(run.status, run.output).toBe(0);
    expect(run.output).toContain("SUCCESS");
  });

  it("has alerts for each failure of contract section 20, each with a severity, a summary and a runbook in docs/operations.md", () => {
    const names = alerts.map((rule) => rule.alert);
    for (const name of ["GatewayHighErrorRate", "GatewayUpstreamCircuitOpen", "GatewayUpstreamFailing", "GatewayLatencyP99High", "GatewayRedisUnavailable", "BillingQueueBacklog", "BillingLagHigh", "BillingLedgerWriteFailures"]) {
      expect(names).toContain(name);
    }
    const operations = readFileSync(join(OBSERVABILITY_DIR, "../../docs/operations.md"), "utf8");
    for (const rule of alerts) {
      expect(["critical", "warning"]).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary, rule.alert).toBeTruthy();
      expect(rule.annotations?.runbook_url).toBe(`docs/operations.md#${rule.alert!.toLowerCase()}`);
      // The runbook's heading is the alert's name (GitHub's anchor: lower-cased).
      expect(operations, `docs/operations.md has no heading for ${rule.alert}`).toMatch(new RegExp(`^#+ \`?${rule.alert}\`?\\s*$`, "m"));
    }
  });

  it("tests every alert both firing and quiet", () => {
    expect(tests.rule_files).toEqual(["alerts.yaml"]);
    const cases = tests.tests.flatMap((test) => test.alert_rule_test ?? []);
    for (const rule of alerts) {
      const own = cases.filter((entry) => entry.alertname === rule.alert);
      expect(own.some((entry) => (entry.exp_alerts ?? []).length > 0), `${rule.alert} is never expected to fire`).toBe(true);
      expect(own.some((entry) => (entry.exp_alerts ?? []).length === 0), `${rule.alert} is never expected to stay quiet`).toBe(true);
    }
  });

  it("fails promtool's unit tests when a rule is broken (the tests can fail)", () => {
    // The error-rate threshold raised above the recorded 10 %: its firing case must now fail.
    const broken = rulesText.replace(/\n(\s+)> 0\.05\n/, "\n$1> 0.5\n");
    expect(broken).not.toBe(rulesText);
    writeFileSync(join(scratch, "alerts.yaml"), broken);
    writeFileSync(join(scratch, "alerts.test.yaml"), readFileSync(join(OBSERVABILITY_DIR, "alerts.test.yaml")));
    const run = promtool(["test", "rules", "alerts.test.yaml"], scratch);
    expect(run.status).not.toBe(0);
    expect(run.output).toContain("GatewayHighErrorRate fires at 10 % 5xx on model routes");
  });
});
