import { connect, type Socket } from "node:net";
import { ReadBuffer, statusOf } from "./http-frames.ts";
import { Samples } from "./percentiles.ts";
import { runFigures, type RunFigures } from "./results.ts";
import type { RequestTarget } from "./request-target.ts";

/** The request's bytes as sent on a kept-alive connection: the same for every request. */
export function requestBytes(target: RequestTarget): Buffer {
  const url = new URL(target.url);
  const body = Buffer.from(target.body, "utf8");
  let head = `POST ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\nconnection: keep-alive\r\ncontent-length: ${body.length}\r\n`;
  for (const [name, value] of Object.entries(target.headers)) head += `${name}: ${value}\r\n`;
  return Buffer.concat([Buffer.from(`${head}\r\n`, "latin1"), body]);
}

/** A response's head says whether it has a body: here every answer must give its length. */
const neverBodyless = () => false;

/**
 * Non-streaming load for the scaling step: `connections` kept-alive sockets, each sending the same
 * prepared bytes again as soon as the last answer is whole (one request in flight per connection,
 * as autocannon), for `durationS` seconds. Each answer is read only as far as its head's status and
 * `content-length`. autocannon parses every response and keeps its own histograms, about as much
 * CPU a request as the proxy's work on this path; on two cores that CPU is taken from the proxy's
 * second process, and the step would measure the load generator. Any connection error or a
 * response it cannot frame ends that connection and counts as an error.
 */
export async function runLeanLoad(target: RequestTarget, connections: number, durationS: number): Promise<RunFigures> {
  const url = new URL(target.url);
  const request = requestBytes(target);
  const latencies = new Samples();
  let errors = 0;
  const startedAt = performance.now();
  const deadline = startedAt + durationS * 1000;

  const connection = () =>
    new Promise<void>((resolve) => {
      const socket: Socket = connect({ host: url.hostname, port: Number(url.port), noDelay: true });
      const pending = new ReadBuffer();
      let sentAt = 0;
      let done = false;
      const finish = (failed: boolean) => {
        if (done) return;
        done = true;
        if (failed) errors += 1;
        socket.destroy();
        resolve();
      };
      const send = () => {
        sentAt = performance.now();
        socket.write(request);
      };
      socket.on("connect", send);
      socket.on("data", (chunk: Buffer) => {
        pending.push(chunk);
        let response;
        try {
          response = pending.next(neverBodyless);
        } catch {
          finish(true);
          return;
        }
        if (response === null) return;
        const now = performance.now();
        const status = statusOf(response.head);
        if (status >= 200 && status < 300) latencies.push(now - sentAt);
        else errors += 1;
        if (now >= deadline) finish(false);
        else send();
      });
      socket.on("error", () => finish(true));
      socket.on("close", () => finish(sentAt !== 0 && performance.now() < deadline));
    });

  await Promise.all(Array.from({ length: connections }, connection));
  return runFigures(latencies, errors, startedAt);
}
