// Values of the string columns the database does not constrain (checked by the application).

export const UPSTREAM_SHAPES = ["openai", "anthropic"] as const;
export type UpstreamShape = (typeof UPSTREAM_SHAPES)[number];

export const API_KEY_STATUSES = ["active", "disabled", "revoked"] as const;
export type ApiKeyStatus = (typeof API_KEY_STATUSES)[number];

export const USAGE_STATUSES = ["ok", "error", "client_aborted", "interrupted"] as const;
export type UsageStatus = (typeof USAGE_STATUSES)[number];
