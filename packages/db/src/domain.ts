import { SHAPES, type Shape } from "@gateway/contracts";

// Values of the string columns the database does not constrain (checked by the application).

/** `upstreams.shape`: the shapes declared once in `@gateway/contracts`. */
export const UPSTREAM_SHAPES = SHAPES;
export type UpstreamShape = Shape;

export const API_KEY_STATUSES = ["active", "disabled", "revoked"] as const;
export type ApiKeyStatus = (typeof API_KEY_STATUSES)[number];

export const USAGE_STATUSES = ["ok", "error", "client_aborted", "interrupted"] as const;
export type UsageStatus = (typeof USAGE_STATUSES)[number];
