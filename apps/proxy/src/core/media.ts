import type { Part } from "./neutral-request.ts";

type FilePart = Extract<Part, { type: "file" }>;

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/** An image URL as a client sent it (a base64 data URL, or any other URL) -> a neutral file part. */
export function fileFromUrl(url: string, path: string, detail?: string): FilePart {
  const data = DATA_URL.exec(url);
  const part: FilePart = data ? { type: "file", mediaType: data[1]!, data: { base64: data[2]! }, path } : { type: "file", mediaType: "", data: { url }, path };
  if (detail !== undefined) part.detail = detail;
  return part;
}

/** A neutral file part as one URL: a data URL for inline bytes (`mediaType` as the client wrote it). */
export function urlOfFile(part: FilePart): string | null {
  if ("url" in part.data) return part.data.url;
  if ("base64" in part.data) return `data:${part.mediaType};base64,${part.data.base64}`;
  return null;
}
