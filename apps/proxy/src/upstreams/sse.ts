/** The one SSE frame writer. `event` is omitted for OpenAI chat chunks, which are unnamed. */
export function sseFrame(data: string, event?: string): string {
  return event ? `event: ${event}\ndata: ${data}\n\n` : `data: ${data}\n\n`;
}
