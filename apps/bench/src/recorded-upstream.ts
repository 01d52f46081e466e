// The scaling step's upstream (scripts/bench.sh starts it on the load core): one answer of the
// simulator, recorded at start, played back to every request as the same bytes. The proxy reads it
// as it reads the simulator's (a chat completion with its usage); the difference is what it costs
// the load core, a buffer search and one write a request instead of the simulator's node:http,
// JSON and text generation. On two cores, the load side (client and upstream) shares a core with
// the proxy's second process: the leaner it is, the more of that core the proxy gets, so the
// scaling step reads the proxy's processes rather than the load's.
// `PORT=8081 RECORD_FROM_URL=http://127.0.0.1:14010 SIMULATOR_API_KEY=... node apps/bench/src/recorded-upstream.ts`
import { createServer, type Socket } from "node:net";
import { ReadBuffer } from "./http-frames.ts";
import { requestTarget, type RequestTarget } from "./request-target.ts";

/** The bytes of one whole response: the recorded body with its content type, kept alive. */
export function responseBytes(status: number, contentType: string, body: Buffer): Buffer {
  const reason = status === 200 ? "OK" : "Recorded";
  const head = `HTTP/1.1 ${status} ${reason}\r\ncontent-type: ${contentType}\r\ncontent-length: ${body.length}\r\nconnection: keep-alive\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, "latin1"), body]);
}

const READY = responseBytes(200, "text/plain", Buffer.from("ok"));
const BAD_REQUEST = responseBytes(400, "text/plain", Buffer.from("not read: send a content-length body"));
/** GET and HEAD requests carry no body; every other method here must say its length. */
const bodyless = (head: string) => head.startsWith("GET ") || head.startsWith("HEAD ");

/**
 * A server answering every request on a connection with `answer` (GET /readyz with "ok"), in order,
 * pipelined requests too: what one read completes is answered with one write.
 */
export function recordedServer(answer: Buffer) {
  return createServer((socket: Socket) => {
    socket.setNoDelay(true);
    const pending = new ReadBuffer();
    socket.on("data", (chunk: Buffer) => {
      pending.push(chunk);
      const replies: Buffer[] = [];
      try {
        for (let request = pending.next(bodyless); request !== null; request = pending.next(bodyless)) {
          replies.push(request.head.startsWith("GET /readyz ") ? READY : answer);
        }
      } catch {
        socket.end(BAD_REQUEST);
        return;
      }
      if (replies.length === 1) socket.write(replies[0]!);
      else if (replies.length > 1) socket.write(Buffer.concat(replies));
    });
    socket.on("error", () => socket.destroy());
  });
}

/** Records the upstream's answer to one request, as the bytes of a whole response. */
export async function record(target: RequestTarget): Promise<Buffer> {
  const response = await fetch(target.url, { method: "POST", headers: target.headers, body: target.body });
  const recorded = Buffer.from(await response.arrayBuffer());
  if (!response.ok) throw new Error(`the upstream to record answered ${response.status}: ${recorded.toString("utf8").slice(0, 200)}`);
  return responseBytes(response.status, response.headers.get("content-type") ?? "application/json", recorded);
}

if (import.meta.main) {
  const { PORT, RECORD_FROM_URL, SIMULATOR_API_KEY } = process.env;
  if (!PORT || !RECORD_FROM_URL || !SIMULATOR_API_KEY) {
    process.stderr.write("recorded-upstream: PORT, RECORD_FROM_URL (the simulator) and SIMULATOR_API_KEY are required\n");
    process.exit(1);
  }
  // The scaling step's request (a chat completion), answered once by the simulator.
  const endpoints = { simulatorUrl: RECORD_FROM_URL.replace(/\/+$/, ""), simulatorKey: SIMULATOR_API_KEY, proxyUrl: "", proxyKey: "" };
  const answer = await record(requestTarget(endpoints, { api: "chat", stream: false }, false));
  recordedServer(answer).listen(Number(PORT), "127.0.0.1");
  process.on("SIGTERM", () => process.exit(0));
}
