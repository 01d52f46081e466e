// Renders infra/k8s's overlays without kubectl and checks every object against the Kubernetes
// schemas, then against the repository: Dockerfiles, each app's config loader, the gateway files,
// the migration CLI. No network, no cluster.
import { existsSync, readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { parseGatewayFile } from "@gateway/config";
import { APPS, REPO_ROOT, type AppFacts } from "./apps.ts";
import { kustomizeBuild } from "./kustomize/build.ts";
import { parseQuantity } from "./k8s/quantity.ts";
import { Rendered, type EnvSource } from "./k8s/rendered.ts";
import { schemaErrors, unknownFieldErrors } from "./k8s/validate.ts";

const TIERS = ["proxy", "control-plane", "billing-worker"];
/** The ports the tiers are known by (README, docker-compose), checked against their own defaults. */
const PORTS: Record<string, number> = { proxy: 8080, "control-plane": 8081, "billing-worker": 8082, simulator: 4010 };
const MIGRATE = ["node", "packages/db/src/migrate-cli.ts", "deploy"];
/** Postgres' default max_connections, less a reserve for superusers and operators. */
const CONNECTION_BUDGET = 100 - 10;
/** The deployment guide (docs/deployment.md, linked from the README's Deployment section). */
const deploymentSection = readFileSync(`${REPO_ROOT}docs/deployment.md`, "utf8");

describe.each(["demo", "production"])("infra/k8s/overlays/%s", (overlay) => {
  const dir = `${REPO_ROOT}infra/k8s/overlays/${overlay}`;
  const apps = APPS.filter((app) => TIERS.includes(app.name) || (overlay === "demo" && app.name === "simulator"));
  let rendered: Rendered;
  let gatewayYaml: string;

  beforeAll(async () => {
    rendered = new Rendered(await kustomizeBuild(dir));
    gatewayYaml = readFileSync(`${dir}/gateway.yaml`, "utf8");
  });

  const deployment = (app: AppFacts) => rendered.get("Deployment", app.name);
  const container = (app: AppFacts) => rendered.containers(deployment(app)).app;
  const podLabels = (app: AppFacts) => deployment(app).spec?.template.metadata?.labels ?? {};

  it("renders only objects valid against the Kubernetes schemas", async () => {
    expect(rendered.objects.length).toBeGreaterThan(10);
    expect(await schemaErrors(rendered.objects)).toEqual([]);
  });

  it("uses no field Kubernetes does not define", () => {
    expect(unknownFieldErrors(rendered.objects)).toEqual([]);
  }, 30_000);

  it("gives each tier a Deployment, a Service and a PodDisruptionBudget selecting its pods; the simulator only in the demo", () => {
    expect(rendered.find("Deployment", "simulator") !== undefined).toBe(overlay === "demo");
    for (const app of apps) {
      const labels = podLabels(app);
      expect(labels).toMatchObject(deployment(app).spec!.selector.matchLabels!);
      const service = rendered.get("Service", app.name);
      expect(labels).toMatchObject(service.spec!.selector!);
      for (const port of service.spec!.ports!) expect(Rendered.portNumber(container(app), port.targetPort)).toBe(app.defaultPort);
      expect(labels).toMatchObject(rendered.get("PodDisruptionBudget", app.name).spec!.selector!.matchLabels!);
    }
  });

  it("runs each Dockerfile's command on the app's port, probed on /readyz and /healthz", () => {
    for (const app of apps) {
      const main = container(app);
      // The image's command, Node flags included if it has any: the entry is last.
      expect(main.command).toEqual(app.command);
      expect(app.command[0]).toBe("node");
      const entry = app.command.at(-1)!;
      if (entry.includes("/dist/")) {
        // A production build (the proxy's bundle): made by the app's build script from its sources.
        const scripts = (JSON.parse(readFileSync(`${REPO_ROOT}apps/${app.name}/package.json`, "utf8")) as { scripts?: Record<string, string> }).scripts;
        expect(scripts?.build).toBeTruthy();
        expect(existsSync(`${REPO_ROOT}${entry.replace(/dist\/main\.mjs$/, "src/main.ts")}`)).toBe(true);
      } else {
        expect(existsSync(`${REPO_ROOT}${entry}`)).toBe(true);
      }
      expect(main.image?.replace(/[:@][^/]*$/, "")).toMatch(new RegExp(`(^|/)llm-gateway/${app.name}$`));
      expect([main.ports?.[0]?.containerPort, app.exposedPort, app.defaultPort]).toEqual([PORTS[app.name], PORTS[app.name], PORTS[app.name]]);
      const port = rendered.literal(rendered.env(main).get(app.name === "simulator" ? "SIMULATOR_PORT" : "PORT"));
      expect(port).toBe(String(PORTS[app.name]));
      expect(main.readinessProbe?.httpGet?.path).toBe("/readyz");
      expect(main.livenessProbe?.httpGet?.path).toBe("/healthz");
      for (const probe of [main.readinessProbe, main.livenessProbe, main.startupProbe]) {
        if (probe) expect(Rendered.portNumber(main, probe.httpGet?.port)).toBe(PORTS[app.name]);
      }
      expect(rendered.literal(rendered.env(main).get(app.hostVariable))).toBe("0.0.0.0");
    }
  });

  it("sets only variables each app's config reads (or its gateway file names), and each environment parses", () => {
    const gateway = parseGatewayFile(gatewayYaml, "gateway.yaml", { SIMULATOR_URL: "http://simulator:4010" });
    const upstreamKeys = gateway.upstreams.flatMap((upstream) => (upstream.secret_env ? [upstream.secret_env] : []));
    const placeholders = [...gatewayYaml.matchAll(/\$\{([A-Z_][A-Z0-9_]*)/g)].map((match) => match[1]!);
    const extra: Record<string, string[]> = { proxy: upstreamKeys, "control-plane": placeholders, "billing-worker": [], simulator: [] };
    for (const app of apps) {
      const env = rendered.env(container(app));
      const unknown = [...env.keys()].filter((name) => !app.envNames.has(name) && !extra[app.name]!.includes(name));
      expect(unknown, `${app.name} sets variables it never reads`).toEqual([]);
      expect(() => app.load(sampleEnv(env))).not.toThrow();
    }
    const proxyEnv = rendered.env(container(apps[0]!));
    for (const key of upstreamKeys) expect(proxyEnv.get(key), `proxy needs ${key}`).toMatchObject({ secret: { key } });
  });

  it("gives the three tiers one Redis and one prefix: the proxy's billing queue is the worker's", () => {
    const redisSettings = (app: AppFacts) => {
      const env = rendered.env(container(app));
      return ["REDIS_URL", "REDIS_PREFIX", "REDIS_CLUSTER_NODES", "REDIS_SENTINELS", "REDIS_SENTINEL_NAME"].map((name) => env.get(name) ?? null);
    };
    const [proxy, ...others] = apps.filter((app) => TIERS.includes(app.name)).map(redisSettings);
    for (const settings of others) expect(settings).toEqual(proxy);
    if (overlay === "production") expect(proxy![2]).not.toBeNull();
  });

  it("mounts the gateway file where GATEWAY_CONFIG_FILE points, and the control plane can apply it", () => {
    const controlPlane = rendered.get("Deployment", "control-plane");
    const main = rendered.containers(controlPlane).app;
    const env = rendered.env(main);
    const path = rendered.literal(env.get("GATEWAY_CONFIG_FILE"))!;
    const mount = main.volumeMounts!.find((candidate) => path.startsWith(`${candidate.mountPath}/`))!;
    const volume = controlPlane.spec!.template.spec!.volumes!.find((candidate) => candidate.name === mount.name)!;
    const text = rendered.get("ConfigMap", volume.configMap!.name!).data![path.slice(mount.mountPath.length + 1)]!;
    expect(text).toBe(gatewayYaml);
    const literals = Object.fromEntries([...env].map(([name, source]) => [name, rendered.literal(source)]));
    expect(() => parseGatewayFile(text, path, literals)).not.toThrow();
    if (overlay === "demo") expect(text).toBe(readFileSync(`${REPO_ROOT}infra/demo/gateway.yaml`, "utf8"));
  });

  it("migrates before the control plane serves: an init container with its image runs the migrate CLI", () => {
    const { app, init } = rendered.containers(rendered.get("Deployment", "control-plane"));
    expect(init.map((container) => container.command)).toEqual([MIGRATE]);
    const compose = parseYaml(readFileSync(`${REPO_ROOT}docker-compose.yml`, "utf8")) as { services: { migrate: { command: string[] } } };
    expect(compose.services.migrate.command).toEqual(MIGRATE);
    expect(existsSync(`${REPO_ROOT}${MIGRATE[1]}`)).toBe(true);
    expect(init[0]!.image).toBe(app.image);
    expect(rendered.env(init[0]!).get("DATABASE_URL")).toEqual({ secret: { name: "gateway-secrets", key: "DATABASE_DIRECT_URL" } });
  });

  it("reads every secret from a Secret: rendered with each key in the demo, documented in docs/deployment.md otherwise", () => {
    const references = rendered.all("Deployment").flatMap((item) => {
      const pod = item.spec!.template.spec!;
      return [...pod.containers, ...(pod.initContainers ?? [])].flatMap((one) => [...rendered.env(one).values()]);
    }).flatMap((source) => ("secret" in source ? [source.secret] : []));
    expect(references.length).toBeGreaterThan(5);
    for (const { name, key } of references) {
      if (overlay === "demo") {
        const secret = rendered.get("Secret", name);
        expect({ ...secret.stringData, ...secret.data }, `${name}/${key}`).toHaveProperty([key]);
      } else {
        expect(deploymentSection, `docs/deployment.md names ${name} ${key}`).toContain(name);
        expect(deploymentSection).toContain(key);
      }
    }
    if (overlay === "production") expect(rendered.all("Secret")).toEqual([]);
  });

  it("runs every container as non-root; our apps on a read-only root filesystem without privileges", () => {
    for (const item of rendered.all("Deployment")) {
      const pod = item.spec!.template.spec!;
      expect(pod.securityContext?.runAsNonRoot, item.metadata!.name).toBe(true);
      expect(pod.securityContext?.runAsUser).toBeGreaterThan(0);
    }
    for (const app of apps) {
      const { app: main, init } = rendered.containers(deployment(app));
      for (const one of [main, ...init]) {
        expect(one.securityContext, `${app.name}/${one.name}`).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ["ALL"] } });
        expect(one.volumeMounts?.some((mount) => mount.mountPath === "/tmp")).toBe(true);
      }
    }
  });

  it("bounds every container's CPU and memory; the proxy's from the benchmark targets", () => {
    for (const item of rendered.all("Deployment")) {
      const pod = item.spec!.template.spec!;
      for (const one of [...pod.containers, ...(pod.initContainers ?? [])]) {
        const { requests = {}, limits = {} } = one.resources ?? {};
        for (const resource of ["cpu", "memory"]) {
          expect(requests[resource], `${item.metadata!.name}/${one.name} ${resource}`).toBeDefined();
          expect(parseQuantity(requests[resource]!)).toBeLessThanOrEqual(parseQuantity(limits[resource]!));
        }
      }
    }
    const proxy = container(apps[0]!).resources!;
    expect(proxy.limits!.cpu).toBe("1");
    // The pod's limit sits above the image's V8 heap cap (apps/proxy/Dockerfile NODE_OPTIONS) plus
    // room for the young generation, code and buffers, so V8 hits its own cap before the OOM killer.
    const heapCapMb = Number(/^ENV NODE_OPTIONS=".*--max-old-space-size=(\d+)/m.exec(readFileSync(`${REPO_ROOT}apps/proxy/Dockerfile`, "utf8"))?.[1]);
    expect(heapCapMb).toBeGreaterThan(0);
    expect(parseQuantity(proxy.limits!.memory!)).toBeGreaterThanOrEqual((heapCapMb + 128) * 1024 * 1024);
    // RSS <= 150 MB at concurrency 64 and <= 300 MB with 1,000 streams (the benchmark's targets).
    expect(parseQuantity(proxy.requests!.memory!)).toBeGreaterThanOrEqual(150e6);
    expect(parseQuantity(proxy.limits!.memory!)).toBeGreaterThanOrEqual(300e6);
  });

  it("autoscales the proxy on CPU and the worker on the queue's backlog; their Deployments leave the count to them", () => {
    const hpas = rendered.all("HorizontalPodAutoscaler");
    expect(hpas.map((hpa) => hpa.spec!.scaleTargetRef.name).sort()).toEqual(["billing-worker", "proxy"]);
    for (const hpa of hpas) {
      const target = rendered.get("Deployment", hpa.spec!.scaleTargetRef.name);
      expect(hpa.spec!.scaleTargetRef).toMatchObject({ apiVersion: "apps/v1", kind: "Deployment" });
      expect(target.spec!.replicas).toBeUndefined();
      expect(hpa.spec!.minReplicas).toBeLessThanOrEqual(hpa.spec!.maxReplicas);
    }
    expect(rendered.get("HorizontalPodAutoscaler", "proxy").spec!.metrics).toEqual([
      { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 70 } } },
    ]);
    const [queue] = rendered.get("HorizontalPodAutoscaler", "billing-worker").spec!.metrics!;
    expect(queue).toMatchObject({ type: "External", external: { metric: { name: "billing_queue_waiting" }, target: { type: "AverageValue" } } });
  });

  it("gives each pod time to finish its work on SIGTERM: grace >= preStop pause + SHUTDOWN_DEADLINE_MS", () => {
    for (const app of apps) {
      const pause = container(app).lifecycle?.preStop?.exec?.command;
      const pauseSeconds = pause ? Number(pause[1]) : 0;
      if (pause) expect(pause).toEqual(["sleep", String(pauseSeconds)]);
      const deadline = Number(rendered.literal(rendered.env(container(app)).get("SHUTDOWN_DEADLINE_MS")) ?? app.shutdownDeadlineMs);
      expect(deployment(app).spec!.template.spec!.terminationGracePeriodSeconds ?? 30).toBeGreaterThanOrEqual(pauseSeconds + deadline / 1000);
    }
  });

  it("keeps Postgres connections within max_connections: pool x most replicas, plus migrations", () => {
    let connections = 0;
    for (const app of apps) {
      const pool = rendered.literal(rendered.env(container(app)).get("DB_POOL_SIZE"));
      if (app.name === "proxy") expect(rendered.env(container(app)).has("DATABASE_URL")).toBe(false);
      if (pool === undefined) continue;
      const hpa = rendered.find("HorizontalPodAutoscaler", app.name);
      const replicas = hpa?.spec?.maxReplicas ?? deployment(app).spec!.replicas ?? 1;
      connections += replicas * (Number(pool) + rendered.containers(deployment(app)).init.length);
    }
    expect(connections).toBeGreaterThan(0);
    expect(connections).toBeLessThanOrEqual(CONNECTION_BUDGET);
  });

  /** The environment a pod would get, with each Secret key replaced by a value of its kind. */
  function sampleEnv(env: Map<string, EnvSource>): Record<string, string> {
    return Object.fromEntries(
      [...env].map(([name, source]) => {
        if (!("secret" in source)) return [name, rendered.literal(source) ?? ""];
        const secret = rendered.find("Secret", source.secret.name);
        const value = secret?.stringData?.[source.secret.key];
        if (value !== undefined) return [name, value];
        if (/DATABASE/.test(source.secret.key)) return [name, "postgresql://gateway@postgres:5432/gateway"];
        if (/REDIS/.test(source.secret.key)) return [name, "rediss://default:secret@redis:6379"];
        return [name, "a-secret-of-thirty-two-characters"];
      }),
    );
  }
});
