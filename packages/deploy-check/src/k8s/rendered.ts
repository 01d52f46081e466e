// A typed view over one rendered overlay: objects by kind and name, and each container's
// environment with envFrom ConfigMaps resolved, as the kubelet would hand it to the process.
import type { IDeployment } from "kubernetes-models/apps/v1/Deployment";
import type { IHorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler";
import type { IPodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import type { IConfigMap } from "kubernetes-models/v1/ConfigMap";
import type { IContainer } from "kubernetes-models/v1/Container";
import type { ISecret } from "kubernetes-models/v1/Secret";
import type { IService } from "kubernetes-models/v1/Service";
import type { K8sObject } from "../kustomize/build.ts";

interface Kinds {
  Deployment: IDeployment;
  Service: IService;
  PodDisruptionBudget: IPodDisruptionBudget;
  HorizontalPodAutoscaler: IHorizontalPodAutoscaler;
  ConfigMap: IConfigMap;
  Secret: ISecret;
}

/** Where one variable's value comes from. */
export type EnvSource = { value: string } | { secret: { name: string; key: string } } | { configMap: { name: string; key: string } };

export class Rendered {
  readonly objects: K8sObject[];

  constructor(objects: K8sObject[]) {
    this.objects = objects;
  }

  all<Kind extends keyof Kinds>(kind: Kind): Kinds[Kind][] {
    return this.objects.filter((object) => object.kind === kind) as unknown as Kinds[Kind][];
  }

  find<Kind extends keyof Kinds>(kind: Kind, name: string): Kinds[Kind] | undefined {
    return this.all(kind).find((object) => object.metadata?.name === name);
  }

  get<Kind extends keyof Kinds>(kind: Kind, name: string): Kinds[Kind] {
    const found = this.find(kind, name);
    if (!found) throw new Error(`no ${kind} ${name} in the render`);
    return found;
  }

  /** The container named like its Deployment (the app), and its init containers. */
  containers(deployment: IDeployment): { app: IContainer; init: IContainer[] } {
    const spec = deployment.spec?.template.spec;
    const app = spec?.containers.find((container) => container.name === deployment.metadata?.name);
    if (!app) throw new Error(`Deployment ${deployment.metadata?.name} has no container of its own name`);
    return { app, init: spec?.initContainers ?? [] };
  }

  /** The container's environment: envFrom ConfigMaps first, then `env` (which wins, as in Kubernetes). */
  env(container: IContainer): Map<string, EnvSource> {
    const env = new Map<string, EnvSource>();
    for (const source of container.envFrom ?? []) {
      if (!source.configMapRef) throw new Error(`${container.name}: only envFrom configMapRef is used here`);
      const configMap = this.get("ConfigMap", source.configMapRef.name!);
      for (const key of Object.keys(configMap.data ?? {})) env.set(key, { configMap: { name: configMap.metadata!.name!, key } });
    }
    for (const variable of container.env ?? []) {
      const secret = variable.valueFrom?.secretKeyRef;
      const configMap = variable.valueFrom?.configMapKeyRef;
      if (secret) env.set(variable.name, { secret: { name: secret.name!, key: secret.key } });
      else if (configMap) env.set(variable.name, { configMap: { name: configMap.name!, key: configMap.key } });
      else env.set(variable.name, { value: variable.value ?? "" });
    }
    return env;
  }

  /** A variable's literal value (inline or from a rendered ConfigMap); undefined for a Secret. */
  literal(source: EnvSource | undefined): string | undefined {
    if (!source) return undefined;
    if ("value" in source) return source.value;
    if ("configMap" in source) return this.get("ConfigMap", source.configMap.name).data?.[source.configMap.key];
    return undefined;
  }

  /** The named container port a probe or Service refers to, as a number. */
  static portNumber(container: IContainer, port: number | string | undefined): number | undefined {
    if (typeof port === "number") return port;
    return container.ports?.find((candidate) => candidate.name === port)?.containerPort;
  }
}
