import { createHash } from "node:crypto";
import type { Redis } from "ioredis";

/**
 * For tests: counts the calls of one Lua script on a connection (EVALSHA by its SHA, or EVAL with
 * the script itself). Connect first: a command queued before the connection is ready goes through
 * `sendCommand` twice.
 */
export function countScriptCalls(client: Redis, script: string): () => number {
  const sha = createHash("sha1").update(script).digest("hex");
  let calls = 0;
  const original = client.sendCommand.bind(client);
  client.sendCommand = ((command: { name: string; args: unknown[] }) => {
    if ((command.name === "evalsha" && String(command.args[0]) === sha) || (command.name === "eval" && String(command.args[0]) === script)) calls += 1;
    return original(command as never);
  }) as typeof client.sendCommand;
  return () => calls;
}
