// The proxy's side of the in-flight journal: what a sweeper would find in Redis if this process
// died now. Entries are written at checkpoints (never on a request's path), follow the request's
// progress, stay while its billing event is not yet queued, and go once it is.
import { randomUUID } from "node:crypto";
import { createServer, type AddressInfo, type Socket } from "node:net";
import fc from "fast-check";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EMPTY_USAGE, GatewayError, type Usage } from "@gateway/contracts";
import { createLogger } from "@gateway/logger";
import { journalKeys, type HeldReservation, type JournalEntry } from "@gateway/redis-store";
import { resolveTestServices } from "@gateway/testing";
import { InFlightRegistry, type InFlightRequest } from "../relay/in-flight.ts";
import { heartbeatMs, InFlightJournal, WRITE_AHEAD_WAIT_MS } from "./in-flight-journal.ts";

let redis: Redis;
const prefix = `test-${randomUUID().slice(0, 8)}`;
const logger = createLogger({ name: "test", level: "silent" });

beforeAll(async () => {
  redis = new Redis((await resolveTestServices()).redisUrl);
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

/** An admitted request whose output grows as the test says. */
function request(requestId: string): InFlightRequest & { output: number } {
  const open = {
    requestId,
    keyId: "key_1",
    vendorId: "vnd_1",
    serverOption: "standard",
    model: "gpt-test",
    endpoint: "chat.completions",
    stream: true,
    startedAt: 1_000,
    upstream: "sim-a" as string | null,
    upstreamModel: "gpt-upstream" as string | null,
    output: 0,
    progress: (): Usage => ({ ...EMPTY_USAGE, inputTokens: 50, outputTokens: open.output }),
    terminate: (_error: GatewayError) => undefined,
  };
  return open;
}

function setup() {
  const inFlight = new InFlightRegistry();
  const held = (requestId: string): HeldReservation => ({ requestId, keyId: "key_1", reservationNano: "1234", tokens: 0, hasQuota: true, budget: null, leaseId: null, processTag: "tag" });
  const journal = new InFlightJournal({ redis, prefix, inFlight, reservation: held, processTag: "tag", checkpointMs: 1_000, logger });
  const stored = async (): Promise<Map<string, JournalEntry>> => {
    const fields = await redis.hgetall(journalKeys(prefix).process(journal.processId));
    return new Map(Object.entries(fields).filter(([field]) => field !== "meta").map(([field, text]) => [field, JSON.parse(text) as JournalEntry]));
  };
  return { inFlight, journal, stored };
}

describe("in-flight journal (proxy)", () => {
  it("writes admitted requests with their reservation and progress at each checkpoint, and heartbeats", async () => {
    const { inFlight, journal, stored } = setup();
    const first = request("req_first");
    inFlight.add(first);
    // Not started: no write ahead, nothing until a checkpoint.
    expect(await stored()).toEqual(new Map());
    await journal.checkpoint();
    expect((await stored()).get("req_first")).toMatchObject({ apiKeyId: "key_1", stream: true, upstream: "sim-a", usage: { inputTokens: 50, outputTokens: 0 }, reservation: { reservationNano: "1234", processTag: "tag" } });
    const deadline = Number(await redis.zscore(journalKeys(prefix).live, journal.processId));
    const [seconds] = await redis.time();
    expect(deadline).toBeGreaterThan(Number(seconds) * 1000 + heartbeatMs(1_000) - 2_000);

    first.output = 321;
    await journal.checkpoint();
    expect((await stored()).get("req_first")?.usage.outputTokens).toBe(321);
    await journal.stop();
  });

  it("writes a new request ahead before its first upstream call: add's promise settles only once Redis holds the entry", async () => {
    const { inFlight } = setup();
    const journal = new InFlightJournal({ redis, prefix, inFlight, reservation: () => null, processTag: "tag", checkpointMs: 600_000, logger });
    journal.start();
    await expect.poll(async () => redis.zscore(journalKeys(prefix).live, journal.processId), { timeout: 5_000, interval: 20 }).not.toBeNull();
    const hash = journalKeys(prefix).process(journal.processId);
    const open = request("req_new");
    open.output = 7;
    const journaled = inFlight.add(open);
    const sameTurn = inFlight.add(request("req_same_turn"));
    inFlight.add(request("req_gone"));
    inFlight.remove("req_gone");
    // One write for the requests of one turn; nothing is in Redis before the turn ends.
    expect(journaled).toBeInstanceOf(Promise);
    expect(sameTurn).toBe(journaled);
    expect(await redis.hget(hash, "req_new")).toBeNull();
    // Read on another connection the moment the promise settles: the entry is there already.
    const observer = redis.duplicate();
    await journaled;
    const [first, second, gone] = await observer.hmget(hash, "req_new", "req_same_turn", "req_gone");
    expect(JSON.parse(first!)).toMatchObject({ requestId: "req_new", apiKeyId: "key_1", usage: { outputTokens: 7 } });
    expect(JSON.parse(second!).requestId).toBe("req_same_turn");
    expect(gone).toBeNull();
    // Requests admitted while a write is out wait for the next write, which carries them all.
    open.output = 99;
    const a = inFlight.add(request("req_newer"));
    await new Promise((resolve) => setImmediate(resolve));
    const b = inFlight.add(request("req_while_out"));
    expect(b).not.toBe(a);
    await b;
    expect(await observer.hmget(hash, "req_newer", "req_while_out")).not.toContain(null);
    // The progress of a written request waits for the checkpoint, which writes it.
    expect(JSON.parse((await observer.hget(hash, "req_new"))!).usage.outputTokens).toBe(7);
    await journal.checkpoint();
    expect(JSON.parse((await observer.hget(hash, "req_new"))!).usage.outputTokens).toBe(99);
    for (const id of ["req_new", "req_same_turn", "req_newer", "req_while_out"]) inFlight.remove(id);
    observer.disconnect();
    await journal.stop();
  });

  it("lets requests go on after WRITE_AHEAD_WAIT_MS when Redis does not answer, and at once when it refuses", async () => {
    // A Redis that takes the connection and never answers (a hung server with its socket open).
    const sockets: Socket[] = [];
    const server = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const hung = new Redis({ port: (server.address() as AddressInfo).port, host: "127.0.0.1", enableReadyCheck: false, maxRetriesPerRequest: 0 });
    const inFlight = new InFlightRegistry();
    const journal = new InFlightJournal({ redis: hung, prefix, inFlight, reservation: () => null, processTag: "tag", checkpointMs: 600_000, logger });
    journal.start();
    const started = Date.now();
    await inFlight.add(request("req_hung"));
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(WRITE_AHEAD_WAIT_MS - 50);
    expect(waited).toBeLessThan(WRITE_AHEAD_WAIT_MS * 3);
    // The connection is gone: a write is refused at once, and the request does not wait for it.
    const ended = new Promise((resolve) => hung.once("end", resolve));
    hung.disconnect();
    await ended;
    const refusedAt = Date.now();
    await inFlight.add(request("req_refused"));
    expect(Date.now() - refusedAt).toBeLessThan(WRITE_AHEAD_WAIT_MS / 2);
    for (const id of ["req_hung", "req_refused"]) inFlight.remove(id);
    await journal.stop();
    for (const socket of sockets) socket.destroy();
    server.close();
  });

  it("keeps an entry while its billing event is recorded but not queued, and drops it once queued", async () => {
    const { inFlight, journal, stored } = setup();
    const open = request("req_billed");
    open.output = 40;
    inFlight.add(open);
    await journal.checkpoint();
    // Recorded: the producer holds the event; a kill now must still bill it from the journal.
    open.output = 90;
    journal.recorded("req_billed");
    inFlight.remove("req_billed");
    await journal.checkpoint();
    expect((await stored()).get("req_billed")?.usage.outputTokens).toBe(40);
    journal.queued([{ requestId: "req_billed" }]);
    await expect.poll(async () => (await stored()).has("req_billed"), { timeout: 5_000, interval: 20 }).toBe(false);
    await journal.stop();
  });

  it("drops an entry whose event was queued while its first write was out", async () => {
    const { inFlight, journal, stored } = setup();
    inFlight.add(request("req_quick"));
    // The write takes the request now and is answered later; meanwhile the request ends and its event is queued.
    const writing = journal.checkpoint();
    journal.recorded("req_quick");
    inFlight.remove("req_quick");
    journal.queued([{ requestId: "req_quick" }]);
    await writing;
    // No further checkpoint: the entry goes on its own.
    await expect.poll(async () => (await stored()).has("req_quick"), { timeout: 5_000, interval: 20 }).toBe(false);
    await journal.stop();
  });

  it("drops a written request that ended without a billing event", async () => {
    const { inFlight, journal, stored } = setup();
    inFlight.add(request("req_refused"));
    await journal.checkpoint();
    inFlight.remove("req_refused");
    await journal.checkpoint();
    expect((await stored()).has("req_refused")).toBe(false);
    await journal.stop();
  });

  it("a graceful stop leaves no journal; one with requests still open leaves them to the sweeper", async () => {
    const clean = setup();
    clean.inFlight.add(request("req_done"));
    await clean.journal.checkpoint();
    clean.journal.recorded("req_done");
    clean.inFlight.remove("req_done");
    clean.journal.queued([{ requestId: "req_done" }]);
    await clean.journal.stop();
    expect(await redis.exists(journalKeys(prefix).process(clean.journal.processId))).toBe(0);
    expect(await redis.zscore(journalKeys(prefix).live, clean.journal.processId)).toBeNull();

    const cut = setup();
    cut.inFlight.add(request("req_open"));
    cut.journal.start();
    await cut.journal.stop();
    expect((await cut.stored()).has("req_open")).toBe(true);
    expect(await redis.zscore(journalKeys(prefix).live, cut.journal.processId)).not.toBeNull();
  });

  it("after any sequence of admissions, progress, billing and checkpoints, Redis holds exactly what a sweeper must bill (property)", async () => {
    type Step =
      | { kind: "admit" }
      | { kind: "grow"; pick: number; tokens: number }
      | { kind: "record"; pick: number }
      | { kind: "queue"; pick: number }
      | { kind: "refuse"; pick: number }
      | { kind: "checkpoint" };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.constant<Step>({ kind: "admit" }),
      fc.record({ kind: fc.constant("grow" as const), pick: fc.nat(), tokens: fc.integer({ min: 1, max: 500 }) }),
      fc.record({ kind: fc.constant("record" as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant("queue" as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant("refuse" as const), pick: fc.nat() }),
      fc.constant<Step>({ kind: "checkpoint" }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
        const { inFlight, journal, stored } = setup();
        const open = new Map<string, ReturnType<typeof request>>();
        /** Recorded, not yet queued: the output last checkpointed while it ran (undefined: never written). */
        const unqueued = new Map<string, number | undefined>();
        const lastWritten = new Map<string, number>();
        let count = 0;
        const pickOf = <T>(items: T[], pick: number): T | undefined => items[pick % Math.max(1, items.length)];
        for (const next of steps) {
          if (next.kind === "admit") {
            const admitted = request(`req_${count++}`);
            open.set(admitted.requestId, admitted);
            inFlight.add(admitted);
          } else if (next.kind === "grow") {
            const running = pickOf([...open.values()], next.pick);
            if (running) running.output += next.tokens;
          } else if (next.kind === "record" || next.kind === "refuse") {
            const running = pickOf([...open.values()], next.pick);
            if (!running) continue;
            // As the relay does: the event is recorded, then the request leaves the registry.
            if (next.kind === "record") {
              journal.recorded(running.requestId);
              unqueued.set(running.requestId, lastWritten.get(running.requestId));
            }
            inFlight.remove(running.requestId);
            open.delete(running.requestId);
          } else if (next.kind === "queue") {
            const requestId = pickOf([...unqueued.keys()], next.pick);
            if (requestId === undefined) continue;
            journal.queued([{ requestId }]);
            unqueued.delete(requestId);
          } else {
            await journal.checkpoint();
            for (const running of open.values()) lastWritten.set(running.requestId, running.output);
          }
        }
        await journal.checkpoint();
        await redis.ping(); // after any delete sent on the journal's connection before it
        const expected = new Map<string, number>();
        for (const running of open.values()) expected.set(running.requestId, running.output);
        for (const [requestId, output] of unqueued) if (output !== undefined) expected.set(requestId, output);
        const found = new Map([...(await stored())].map(([requestId, entry]) => [requestId, entry.usage.outputTokens]));
        expect(found).toEqual(expected);
        await journal.stop();
        await redis.del(journalKeys(prefix).process(journal.processId));
        await redis.zrem(journalKeys(prefix).live, journal.processId);
      }),
      { numRuns: 60 },
    );
  });
});
