import { pino, type Logger, type DestinationStream } from "pino";

export type { Logger };

/**
 * Every credential a log line could carry, wherever it sits. Headers are logged lower-case by
 * Node, so one spelling each is enough.
 */
export const REDACTED_PATHS = [
  "authorization",
  "x-api-key",
  "api_key",
  "apiKey",
  "key",
  "token",
  "secret",
  "password",
  "plaintext",
  "*.authorization",
  "*.x-api-key",
  "*.apiKey",
  "*.api_key",
  "*.key",
  "*.token",
  "*.secret",
  "*.password",
  "*.plaintext",
  "headers.authorization",
  "headers[\"x-api-key\"]",
  "req.headers.authorization",
  "req.headers[\"x-api-key\"]",
  "*.headers.authorization",
  "*.headers[\"x-api-key\"]",
];

export interface LoggerOptions {
  name: string;
  level?: string;
  destination?: DestinationStream;
}

export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      name: options.name,
      level: options.level ?? "info",
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
      base: { app: options.name },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination,
  );
}
