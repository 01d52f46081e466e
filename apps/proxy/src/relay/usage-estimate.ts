import { EMPTY_USAGE, type Usage } from "@gateway/contracts";

/**
 * The flagged estimate of a request whose upstream never sent its final usage (a client that left
 * and a drain that ran out, a stream cut, a key revoked mid-stream). Never less than any usage the
 * upstream did send (a `message_start`'s input and output), nor than `outputTokens`: the output
 * relayed, counted with the model family's tokenizer (output-meter.ts). Without any reported
 * usage, the input is about four bytes of request per token.
 */
export function estimateUsage(requestBytes: number, reported: Usage | null, outputTokens: number): Usage {
  const floor = reported ?? { ...EMPTY_USAGE, inputTokens: Math.ceil(requestBytes / 4) };
  return outputTokens > floor.outputTokens ? { ...floor, outputTokens } : floor;
}
