/**
 * Retries `check` until it passes or `timeoutMs` runs out (a change reaches every proxy within
 * 1 s by contract): never a fixed sleep.
 */
export async function eventually(check: () => Promise<void>, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
