// Validates rendered objects against the Kubernetes OpenAPI schemas, offline, twice over:
// 1. kubernetes-models' validators (JSON Schema from the Kubernetes API, compiled with ajv):
//    types, required fields, enums and formats such as quantities;
// 2. its TypeScript interfaces, through the compiler: each object becomes a typed object literal,
//    so TypeScript's excess-property check refuses any field Kubernetes does not define (a
//    misspelt `readinesProbe` would otherwise pass the schema, which allows extra fields).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import type { K8sObject } from "../kustomize/build.ts";

/** Every kind the manifests may use: API version and kubernetes-models module. */
export const KINDS: Record<string, { apiVersion: string; module: string }> = {
  Deployment: { apiVersion: "apps/v1", module: "kubernetes-models/apps/v1/Deployment" },
  Service: { apiVersion: "v1", module: "kubernetes-models/v1/Service" },
  PodDisruptionBudget: { apiVersion: "policy/v1", module: "kubernetes-models/policy/v1/PodDisruptionBudget" },
  HorizontalPodAutoscaler: { apiVersion: "autoscaling/v2", module: "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler" },
  Job: { apiVersion: "batch/v1", module: "kubernetes-models/batch/v1/Job" },
  ConfigMap: { apiVersion: "v1", module: "kubernetes-models/v1/ConfigMap" },
  Secret: { apiVersion: "v1", module: "kubernetes-models/v1/Secret" },
  Namespace: { apiVersion: "v1", module: "kubernetes-models/v1/Namespace" },
};

type Validating = new (data: unknown) => { validate(): void };

/** Schema errors per object (`Kind/name: message`); empty when all are valid. */
export async function schemaErrors(objects: K8sObject[]): Promise<string[]> {
  const errors: string[] = [];
  for (const object of objects) {
    const kind = KINDS[object.kind];
    const label = `${object.kind}/${object.metadata?.name}`;
    if (!kind) {
      errors.push(`${label}: kind not in the validated set`);
      continue;
    }
    if (object.apiVersion !== kind.apiVersion) errors.push(`${label}: apiVersion ${object.apiVersion}, expected ${kind.apiVersion}`);
    const Model = ((await import(kind.module)) as Record<string, Validating>)[object.kind]!;
    try {
      new Model(object).validate();
    } catch (error) {
      errors.push(`${label}: ${(error as Error).message}`);
    }
  }
  return errors;
}

/** Fields the Kubernetes types do not have (or of the wrong type), per object. */
export function unknownFieldErrors(objects: K8sObject[]): string[] {
  // The file must sit inside this package so `kubernetes-models` resolves from it.
  const dir = mkdtempSync(join(dirname(fileURLToPath(import.meta.url)), "../../.fields-"));
  const file = join(dir, "manifests.ts");
  try {
    const kinds = [...new Set(objects.map((object) => object.kind))].filter((kind) => KINDS[kind]);
    const lines = kinds.map((kind) => `import type { I${kind} } from "${KINDS[kind]!.module}";`);
    // One line per object (a placeholder for kinds schemaErrors refuses), so a line names its object.
    objects.forEach((object, index) => {
      lines.push(KINDS[object.kind] ? `export const o${index}: I${object.kind} = ${JSON.stringify(object)};` : "// not validated");
    });
    writeFileSync(file, `${lines.join("\n")}\n`);
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      types: [],
    });
    return ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((diagnostic) => {
      const line = diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line : -1;
      const object = objects[line - kinds.length];
      const where = object ? `${object.kind}/${object.metadata.name}` : "manifests";
      return `${where}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
