// `kustomize build` for the subset infra/k8s uses, so the tests can render the overlays without
// kubectl: resources (files and folders), configMapGenerator (files, literals, merge), patches
// (strategic merge, by the patch's own kind and name), namespace and images; generated
// ConfigMaps get a content-hash name suffix and every pod reference follows it. Any other field
// in a kustomization.yaml is refused, so the real kustomize never sees something we did not test.
import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { parseAllDocuments } from "yaml";
import { isObject, strategicMerge } from "./strategic-merge.ts";

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [key: string]: unknown };
  [key: string]: unknown;
}

interface ConfigMapGenerator {
  name: string;
  behavior?: "create" | "merge" | "replace";
  files?: string[];
  literals?: string[];
}

interface Kustomization {
  resources?: string[];
  namespace?: string;
  configMapGenerator?: ConfigMapGenerator[];
  generatorOptions?: { disableNameSuffixHash?: boolean };
  patches?: { path?: string; patch?: string }[];
  images?: { name: string; newName?: string; newTag?: string; digest?: string }[];
}

const SUPPORTED = new Set(["apiVersion", "kind", "resources", "namespace", "configMapGenerator", "generatorOptions", "patches", "images"]);

/** Renders the kustomization in `dir`, as `kustomize build dir` would. */
export async function kustomizeBuild(dir: string): Promise<K8sObject[]> {
  const { objects, generated } = await buildLayer(dir);
  return applyNameSuffixes(objects, generated);
}

interface Layer {
  objects: K8sObject[];
  /** ConfigMaps made by a generator (by their unsuffixed name) and whether they get a suffix. */
  generated: Map<string, boolean>;
}

async function buildLayer(dir: string): Promise<Layer> {
  const kustomization = (await readYamlDocuments(join(dir, "kustomization.yaml")))[0] as Kustomization | undefined;
  if (!kustomization) throw new Error(`${dir}: empty kustomization.yaml`);
  const unsupported = Object.keys(kustomization).filter((key) => !SUPPORTED.has(key));
  if (unsupported.length > 0) throw new Error(`${dir}/kustomization.yaml: fields this renderer does not implement: ${unsupported.join(", ")}`);

  let objects: K8sObject[] = [];
  const generated = new Map<string, boolean>();
  for (const resource of kustomization.resources ?? []) {
    const path = join(dir, resource);
    if ((await stat(path)).isDirectory()) {
      const layer = await buildLayer(path);
      objects.push(...layer.objects);
      layer.generated.forEach((suffix, name) => generated.set(name, suffix));
    } else {
      objects.push(...((await readYamlDocuments(path)) as K8sObject[]));
    }
  }
  for (const generator of kustomization.configMapGenerator ?? []) {
    const made = await generateConfigMap(dir, generator);
    const existing = objects.findIndex((object) => object.kind === "ConfigMap" && object.metadata.name === generator.name);
    const behavior = generator.behavior ?? "create";
    if (behavior === "create" && existing !== -1) throw new Error(`${dir}: ConfigMap ${generator.name} exists already (use behavior: merge)`);
    if (behavior !== "create" && existing === -1) throw new Error(`${dir}: no ConfigMap ${generator.name} to ${behavior}`);
    if (existing === -1) objects.push(made);
    else objects[existing] = behavior === "merge" ? (strategicMerge(objects[existing]!, made) as K8sObject) : made;
    generated.set(generator.name, !kustomization.generatorOptions?.disableNameSuffixHash);
  }
  for (const patch of kustomization.patches ?? []) {
    const text = patch.path ? await readFile(join(dir, patch.path), "utf8") : patch.patch;
    if (!text) throw new Error(`${dir}: a patch needs path or patch`);
    for (const document of parseYaml(text, patch.path ?? "inline patch") as K8sObject[]) objects = applyPatch(objects, document, dir);
  }
  if (kustomization.namespace) {
    objects = objects.map((object) => (object.kind === "Namespace" ? object : { ...object, metadata: { ...object.metadata, namespace: kustomization.namespace! } }));
  }
  for (const image of kustomization.images ?? []) objects = objects.map((object) => setImage(object, image));
  return { objects, generated };
}

async function generateConfigMap(dir: string, generator: ConfigMapGenerator): Promise<K8sObject> {
  const data: Record<string, string> = {};
  for (const entry of generator.files ?? []) {
    const [key, path] = entry.includes("=") ? entry.split("=", 2) as [string, string] : [basename(entry), entry];
    data[key] = await readFile(join(dir, path), "utf8");
  }
  for (const literal of generator.literals ?? []) {
    const at = literal.indexOf("=");
    if (at < 1) throw new Error(`${dir}: literal "${literal}" is not KEY=VALUE`);
    data[literal.slice(0, at)] = literal.slice(at + 1);
  }
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name: generator.name }, data };
}

function applyPatch(objects: K8sObject[], patch: K8sObject, dir: string): K8sObject[] {
  const index = objects.findIndex((object) => object.kind === patch.kind && object.metadata.name === patch.metadata?.name);
  if (index === -1) throw new Error(`${dir}: the patch for ${patch.kind} ${patch.metadata?.name} matches nothing`);
  const out = [...objects];
  out[index] = strategicMerge(objects[index]!, patch) as K8sObject;
  return out;
}

/** The images transformer: `name` is the image without tag or digest. */
function setImage(object: K8sObject, image: NonNullable<Kustomization["images"]>[number]): K8sObject {
  return mapPodSpec(object, (spec) => {
    for (const container of [...((spec.initContainers as unknown[]) ?? []), ...((spec.containers as unknown[]) ?? [])]) {
      if (!isObject(container) || typeof container.image !== "string") continue;
      const name = container.image.split("@")[0]!.replace(/:[^/:]+$/, "");
      if (name !== image.name) continue;
      const tag = image.digest ? `@${image.digest}` : `:${image.newTag ?? (container.image.match(/:([^/:@]+)$/)?.[1] ?? "latest")}`;
      container.image = `${image.newName ?? name}${tag}`;
    }
  });
}

/**
 * A generated ConfigMap's name gets `-<hash of its content>`, so changing it rolls the pods that
 * use it; every reference from a pod template follows. (kustomize's own hash function differs;
 * only the behaviour matters here.)
 */
function applyNameSuffixes(objects: K8sObject[], generated: Map<string, boolean>): K8sObject[] {
  const renamed = new Map<string, string>();
  const out = objects.map((object) => {
    if (object.kind !== "ConfigMap" || !generated.get(object.metadata.name)) return object;
    const hash = createHash("sha256").update(JSON.stringify({ data: object.data ?? {} })).digest("hex").slice(0, 10);
    const name = `${object.metadata.name}-${hash}`;
    renamed.set(object.metadata.name, name);
    return { ...object, metadata: { ...object.metadata, name } };
  });
  const rename = (name: unknown) => (typeof name === "string" ? (renamed.get(name) ?? name) : name);
  return out.map((object) =>
    mapPodSpec(object, (spec) => {
      for (const volume of (spec.volumes as unknown[]) ?? []) {
        if (isObject(volume) && isObject(volume.configMap)) volume.configMap.name = rename(volume.configMap.name) as string;
      }
      for (const container of [...((spec.initContainers as unknown[]) ?? []), ...((spec.containers as unknown[]) ?? [])]) {
        if (!isObject(container)) continue;
        for (const source of (container.envFrom as unknown[]) ?? []) {
          if (isObject(source) && isObject(source.configMapRef)) source.configMapRef.name = rename(source.configMapRef.name) as string;
        }
        for (const variable of (container.env as unknown[]) ?? []) {
          const ref = isObject(variable) && isObject(variable.valueFrom) ? variable.valueFrom.configMapKeyRef : undefined;
          if (isObject(ref)) ref.name = rename(ref.name) as string;
        }
      }
    }),
  );
}

/** A copy of `object` with `edit` run on its pod spec (Deployments and Jobs), if it has one. */
export function mapPodSpec(object: K8sObject, edit: (spec: Record<string, unknown>) => void): K8sObject {
  const copy = structuredClone(object);
  const spec = podSpecOf(copy);
  if (spec) edit(spec);
  return copy;
}

export function podSpecOf(object: K8sObject): Record<string, unknown> | undefined {
  const spec = object.spec;
  if (!isObject(spec) || !isObject(spec.template) || !isObject(spec.template.spec)) return undefined;
  return spec.template.spec;
}

async function readYamlDocuments(path: string): Promise<unknown[]> {
  return parseYaml(await readFile(path, "utf8"), path);
}

function parseYaml(text: string, source: string): unknown[] {
  return parseAllDocuments(text).flatMap((document) => {
    if (document.errors.length > 0) throw new Error(`${source}: ${document.errors[0]!.message}`);
    const value = document.toJS() as unknown;
    return value === null ? [] : [value];
  });
}
