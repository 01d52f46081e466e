import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { kustomizeBuild, podSpecOf } from "./build.ts";
import { strategicMerge } from "./strategic-merge.ts";

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata: { name: app }
spec:
  template:
    spec:
      containers:
        - name: app
          image: example/app:1.0
          env: [{ name: A, value: "1" }, { name: B, value: "2" }]
          envFrom: [{ configMapRef: { name: shared } }]
          volumeMounts: [{ name: config, mountPath: /etc/app }]
      volumes:
        - { name: config, configMap: { name: app-config } }
`;

let dir: string;
afterEach(() => rm(dir, { recursive: true, force: true }));

async function tree(files: Record<string, string>): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), "kustomize-test-"));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(dir, path, ".."), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

describe("kustomizeBuild", () => {
  it("layers an overlay on a base: resources, generators with merge, patches, namespace, images, hashed names", async () => {
    const root = await tree({
      "base/kustomization.yaml": "resources: [deployment.yaml]\nconfigMapGenerator:\n  - { name: shared, literals: [HOST=0.0.0.0] }\n",
      "base/deployment.yaml": DEPLOYMENT,
      "overlay/kustomization.yaml": [
        "namespace: prod",
        "resources: [../base]",
        "images: [{ name: example/app, newName: registry.test/app, newTag: '2.0' }]",
        "configMapGenerator:",
        "  - { name: shared, behavior: merge, literals: [MODE=cluster] }",
        "  - { name: app-config, files: [settings.yaml] }",
        "patches: [{ path: patch.yaml }]",
      ].join("\n"),
      "overlay/settings.yaml": "a: 1\n",
      "overlay/patch.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: app }\nspec:\n  replicas: 2\n  template:\n    spec:\n      containers:\n        - name: app\n          env: [{ name: B, value: changed }, { name: C, value: \"3\" }]\n",
    });
    const objects = await kustomizeBuild(join(root, "overlay"));
    expect(objects.map((object) => object.metadata.namespace)).toEqual(["prod", "prod", "prod"]);
    const [deployment, shared, config] = objects;
    expect(shared!.data).toEqual({ HOST: "0.0.0.0", MODE: "cluster" });
    expect(config!.data).toEqual({ "settings.yaml": "a: 1\n" });
    expect(shared!.metadata.name).toMatch(/^shared-[0-9a-f]{10}$/);
    expect(config!.metadata.name).toMatch(/^app-config-[0-9a-f]{10}$/);
    expect(deployment!.spec).toMatchObject({ replicas: 2 });
    expect(podSpecOf(deployment!)).toEqual({
      containers: [{
        name: "app",
        image: "registry.test/app:2.0",
        env: [{ name: "A", value: "1" }, { name: "B", value: "changed" }, { name: "C", value: "3" }],
        envFrom: [{ configMapRef: { name: shared!.metadata.name } }],
        volumeMounts: [{ name: "config", mountPath: "/etc/app" }],
      }],
      volumes: [{ name: "config", configMap: { name: config!.metadata.name } }],
    });
  });

  it("changes a generated name when its content changes, and keeps it when disableNameSuffixHash is set", async () => {
    const build = async (value: string, options = "") => {
      const root = await tree({ "kustomization.yaml": `${options}configMapGenerator:\n  - { name: c, literals: [K=${value}] }\n` });
      const [configMap] = await kustomizeBuild(root);
      await rm(root, { recursive: true });
      return configMap!.metadata.name;
    };
    expect(await build("1")).not.toBe(await build("2"));
    expect(await build("1", "generatorOptions: { disableNameSuffixHash: true }\n")).toBe("c");
  });

  it("refuses what it does not implement and patches that match nothing", async () => {
    await expect(kustomizeBuild(await tree({ "kustomization.yaml": "resources: []\nreplicas: [{ name: app, count: 2 }]\n" }))).rejects.toThrow(/does not implement: replicas/);
    await rm(dir, { recursive: true });
    const root = await tree({ "kustomization.yaml": "resources: [d.yaml]\npatches: [{ patch: \"apiVersion: apps/v1\\nkind: Deployment\\nmetadata: { name: other }\" }]\n", "d.yaml": DEPLOYMENT });
    await expect(kustomizeBuild(root)).rejects.toThrow(/Deployment other matches nothing/);
  });
});

describe("strategicMerge", () => {
  it("merges maps, deletes on null, merges keyed lists by their key and replaces other lists", () => {
    const target = { a: { b: 1, c: 2 }, args: ["x"], ports: [{ containerPort: 80, name: "http" }], volumeMounts: [{ mountPath: "/a", name: "a" }] };
    const patch = { a: { c: null, d: 3 }, args: ["y"], ports: [{ containerPort: 80, protocol: "TCP" }, { containerPort: 90 }], volumeMounts: [{ mountPath: "/a", readOnly: true }] };
    expect(strategicMerge(target, patch)).toEqual({
      a: { b: 1, d: 3 },
      args: ["y"],
      ports: [{ containerPort: 80, name: "http", protocol: "TCP" }, { containerPort: 90 }],
      volumeMounts: [{ mountPath: "/a", name: "a", readOnly: true }],
    });
    expect(target.a).toEqual({ b: 1, c: 2 });
  });
});
