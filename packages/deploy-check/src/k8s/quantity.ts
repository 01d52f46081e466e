// Kubernetes resource quantities ("250m", "1", "192Mi", "1G") as plain numbers, for comparisons.
// https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/quantity/

const SUFFIXES: Record<string, number> = {
  m: 1e-3,
  "": 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
};

/** CPU in cores, memory in bytes. */
export function parseQuantity(quantity: string | number): number {
  if (typeof quantity === "number") return quantity;
  const match = /^(\d+(?:\.\d+)?)(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/.exec(quantity);
  if (!match) throw new Error(`not a quantity this check reads: ${quantity}`);
  return Number(match[1]) * SUFFIXES[match[2] ?? ""]!;
}
