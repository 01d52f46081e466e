import type { Logger } from "@gateway/logger";

/**
 * SIGTERM or SIGINT runs the app's graceful `close` once, then exits 0 (1 if closing failed). The
 * one shutdown sequence of every app's main.
 */
export function shutdownOnSignals(close: () => Promise<void>, logger: Logger): void {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      logger.info({ signal }, "shutting down");
      close().then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, "shutdown failed");
          process.exit(1);
        },
      );
    });
  }
}
