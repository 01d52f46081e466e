import { asRecord } from "../../upstreams/request-fields.ts";
import { invalid, unsupported } from "../../core/fields.ts";

/** The media types Anthropic accepts in a base64 image source. */
const ANTHROPIC_IMAGE_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/** An OpenAI image URL (a data URL or http(s)) -> an Anthropic image source. */
export function anthropicImageSource(url: unknown, field: string): Record<string, unknown> {
  if (typeof url !== "string" || url.length === 0) throw invalid(field, "expected an image URL");
  const data = DATA_URL.exec(url);
  if (data) {
    const mediaType = data[1]!.toLowerCase();
    if (!ANTHROPIC_IMAGE_TYPES.has(mediaType)) {
      throw unsupported(field, `image type ${mediaType} is not accepted by Anthropic-shape models (jpeg, png, gif, webp)`);
    }
    return { type: "base64", media_type: mediaType, data: data[2] };
  }
  if (/^https?:\/\//i.test(url)) return { type: "url", url };
  throw unsupported(field, "only data: and http(s) image URLs can be sent to an Anthropic-shape model");
}

/** An Anthropic image source -> the URL an OpenAI `image_url` / `input_image` part takes. */
export function imageUrlFromSource(source: unknown, field: string): string {
  const record = asRecord(source);
  switch (record?.type) {
    case "base64":
      if (typeof record.media_type !== "string" || typeof record.data !== "string") throw invalid(field, "expected media_type and data");
      return `data:${record.media_type};base64,${record.data}`;
    case "url":
      if (typeof record.url !== "string") throw invalid(field, "expected a url");
      return record.url;
    case "file":
      throw unsupported(field, "file-id image sources have no OpenAI Chat Completions equivalent");
    default:
      throw invalid(field, "expected an image source of type base64 or url");
  }
}
