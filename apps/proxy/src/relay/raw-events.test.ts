import { describe, expect, it } from "vitest";
import { RawEvents } from "./raw-events.ts";

const text = (bytes: Buffer | null | undefined) => (bytes == null ? null : bytes.toString("utf8"));

/** Feeds one chunk whose events (as the parser gives them) are `events`, each changed or not; returns what is written. */
function relay(raw: RawEvents, chunk: string, events: { frame: string; changed?: boolean }[]): string {
  raw.begin(Buffer.from(chunk));
  let out = "";
  let changed = "";
  for (const event of events) {
    raw.event();
    if (event.changed) raw.changed();
    out += event.frame;
    if (raw.changing) changed += event.frame;
  }
  const plan = raw.plan();
  if (plan === null) return `frames:${out}`;
  if (!plan.changed) return `raw:${text(plan.raw) ?? ""}`;
  return `raw:${text(plan.raw) ?? ""}|frames:${changed}`;
}

describe("RawEvents", () => {
  it("gives the bytes of the whole events of each chunk; a cut event waits for the rest", () => {
    const raw = new RawEvents(true);
    raw.begin(Buffer.from('data: {"a":1}\n\ndata: {"b"'));
    expect(text(raw.plan()?.raw)).toBe('data: {"a":1}\n\n');
    raw.begin(Buffer.from(":2}\n\n: ping\n\nid: 7\ndata: x"));
    expect(text(raw.plan()?.raw)).toBe('data: {"b":2}\n\n: ping\n\n');
    raw.begin(Buffer.from("\n"));
    expect(raw.plan()).toBeNull();
    raw.begin(Buffer.from("\n"));
    expect(text(raw.plan()?.raw)).toBe("id: 7\ndata: x\n\n");
  });

  it("a boundary split across chunks is still found", () => {
    const raw = new RawEvents(true);
    raw.begin(Buffer.from("event: ping\ndata: {}\n"));
    expect(raw.plan()).toBeNull();
    raw.begin(Buffer.from("\nevent: x"));
    expect(text(raw.plan()?.raw)).toBe("event: ping\ndata: {}\n\n");
  });

  it("the events before the first changed one go out as their bytes, the frames from it on", () => {
    const raw = new RawEvents(true);
    // The usage-only chunk a client did not ask for is left out: the rest of the chunk is raw.
    expect(relay(raw, "data: 1\n\ndata: 2\n\ndata: usage\n\ndata: [DONE]\n\n", [{ frame: "F1" }, { frame: "F2" }, { frame: "", changed: true }, { frame: "FD" }])).toBe(
      "raw:data: 1\n\ndata: 2\n\n|frames:FD",
    );
    // Changed first: frames only.
    expect(relay(raw, "data: 1\n\ndata: 2\n\n", [{ frame: "G1", changed: true }, { frame: "G2" }])).toBe("raw:|frames:G1G2");
    // Changed last and left out: only the bytes before it.
    expect(relay(raw, "data: 1\n\ndata: 2\n\n", [{ frame: "H1" }, { frame: "", changed: true }])).toBe("raw:data: 1\n\n|frames:");
    // Unchanged: all raw.
    expect(relay(raw, "data: 3\n\n", [{ frame: "I3" }])).toBe("raw:data: 3\n\n");
  });

  it("frames only when a block of the chunk was not one event (a comment, a block without data)", () => {
    const raw = new RawEvents(true);
    expect(relay(raw, "data: 1\n\n: ping\n\ndata: 2\n\n", [{ frame: "F1" }, { frame: "", changed: true }])).toBe("frames:F1");
    expect(relay(raw, "data: 1\n\n\n\ndata: 2\n\n", [{ frame: "F1" }, { frame: "F2", changed: true }])).toBe("frames:F1F2");
    // An extra newline between events is still one block each.
    expect(relay(raw, "data: 1\n\n\ndata: 2\n\n", [{ frame: "F1" }, { frame: "F2", changed: true }])).toBe("raw:data: 1\n\n|frames:F2");
  });

  it("frames only when disabled (across shapes), or once CR line endings show up", () => {
    const translated = new RawEvents(false);
    translated.begin(Buffer.from("data: 1\n\n"));
    expect(translated.plan()).toBeNull();

    const crlf = new RawEvents(true);
    crlf.begin(Buffer.from("data: 1\r\n\r\n"));
    expect(crlf.plan()).toBeNull();
    crlf.begin(Buffer.from("data: 2\n\n"));
    expect(crlf.plan()).toBeNull();
  });

  it("multi-byte characters split across chunks come out whole", () => {
    const raw = new RawEvents(true);
    const bytes = Buffer.from("data: héllo\n\n");
    raw.begin(bytes.subarray(0, 8));
    expect(raw.plan()).toBeNull();
    raw.begin(bytes.subarray(8));
    expect(text(raw.plan()?.raw)).toBe("data: héllo\n\n");
  });
});
