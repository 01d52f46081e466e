// The part of Kubernetes' strategic merge patch that our overlays use: maps merge key by key, a
// null deletes a key, and the lists Kubernetes merges by a key field (containers and env by name,
// volume mounts by mount path, ports by port) merge item by item; every other list is replaced.
// https://kubernetes.io/docs/tasks/manage-kubernetes-objects/update-api-object-kubectl-patch/

type JsonObject = Record<string, unknown>;

/** Field name -> the item field Kubernetes merges that list by (its `patchMergeKey`). */
const MERGE_KEYS: Record<string, readonly string[]> = {
  containers: ["name"],
  initContainers: ["name"],
  env: ["name"],
  volumes: ["name"],
  volumeMounts: ["mountPath"],
  imagePullSecrets: ["name"],
  // Container ports merge by containerPort, Service ports by port.
  ports: ["containerPort", "port"],
};

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `patch` applied to `target`; neither is changed. */
export function strategicMerge(target: unknown, patch: unknown): unknown {
  if (!isObject(target) || !isObject(patch)) return structuredClone(patch);
  const out: JsonObject = structuredClone(target);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete out[key];
    } else if (Array.isArray(value) && Array.isArray(out[key])) {
      out[key] = mergeList(key, out[key] as unknown[], value);
    } else if (isObject(value) && isObject(out[key])) {
      out[key] = strategicMerge(out[key], value);
    } else {
      out[key] = structuredClone(value);
    }
  }
  return out;
}

function mergeList(field: string, target: unknown[], patch: unknown[]): unknown[] {
  const mergeKey = (MERGE_KEYS[field] ?? []).find((key) => patch.every((item) => isObject(item) && item[key] !== undefined));
  if (!mergeKey) return structuredClone(patch);
  const out = structuredClone(target);
  for (const item of patch as JsonObject[]) {
    const index = out.findIndex((existing) => isObject(existing) && existing[mergeKey] === item[mergeKey]);
    if (index === -1) out.push(structuredClone(item));
    else out[index] = strategicMerge(out[index]!, item);
  }
  return out;
}
