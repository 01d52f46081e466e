/**
 * Bedrock Converse / ConverseStream against the simulator with the official
 * `@aws-sdk/client-bedrock-runtime` (issue 40): the SDK signs (SigV4, verified), percent-encodes the
 * model id, and parses the JSON answer and the binary event stream, which proves the simulator
 * speaks Converse's wire for a non-Claude model id.
 */
import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand, type Message } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, SIM_AWS_ACCESS_KEY_ID, SIM_AWS_SECRET_ACCESS_KEY, type Simulator } from './index.ts';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, apiKey: 'sk-converse-test' });
});
afterAll(() => sim.close());

const NOVA = 'amazon.nova-pro-v1:0';
const client = (secretAccessKey = SIM_AWS_SECRET_ACCESS_KEY) =>
  new BedrockRuntimeClient({ region: 'us-east-1', endpoint: sim.url, credentials: { accessKeyId: SIM_AWS_ACCESS_KEY_ID, secretAccessKey }, requestHandler: new NodeHttpHandler(), maxAttempts: 1 });
const weather = { toolSpec: { name: 'weather', description: 'Weather of a city', inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } } };

describe('Bedrock Converse (any model, SigV4)', () => {
  it('ConverseCommand: text with usage, system and inferenceConfig taken; a wrong secret is refused', async () => {
    const answer = await client().send(new ConverseCommand({ modelId: NOVA, system: [{ text: 'Be brief.' }], messages: [{ role: 'user', content: [{ text: 'Hello there' }] }], inferenceConfig: { maxTokens: 64, temperature: 0.2 } }));
    expect(answer.stopReason).toBe('end_turn');
    expect(answer.output?.message?.content?.[0]?.text?.length).toBeGreaterThan(0);
    expect(answer.usage?.inputTokens).toBeGreaterThan(0);
    expect(answer.usage?.outputTokens).toBeGreaterThan(0);
    expect(answer.usage?.totalTokens).toBe(answer.usage!.inputTokens! + answer.usage!.outputTokens!);
    await expect(client('wrong').send(new ConverseCommand({ modelId: NOVA, messages: [{ role: 'user', content: [{ text: 'hi' }] }] }))).rejects.toMatchObject({ name: 'InvalidSignatureException' });
    // A content block with two members is Bedrock's ValidationException.
    await expect(client().send(new ConverseCommand({ modelId: NOVA, messages: [{ role: 'user', content: [{ text: 'hi', image: { format: 'png', source: { bytes: new Uint8Array([1]) } } } as never] }] }))).rejects.toMatchObject({ name: 'ValidationException' });
  });

  it('tool use over two steps: a toolUse with its input, then the toolResult answered with text', async () => {
    const messages: Message[] = [{ role: 'user', content: [{ text: 'Weather in Paris?' }] }];
    const first = await client().send(new ConverseCommand({ modelId: NOVA, messages, toolConfig: { tools: [weather], toolChoice: { any: {} } } }));
    expect(first.stopReason).toBe('tool_use');
    const call = first.output!.message!.content!.find((block) => block.toolUse)!.toolUse!;
    expect(call.name).toBe('weather');
    expect(typeof (call.input as { city?: unknown }).city).toBe('string');
    messages.push(first.output!.message!, { role: 'user', content: [{ toolResult: { toolUseId: call.toolUseId!, content: [{ json: { sky: 'sunny' } }], status: 'success' } }] });
    const second = await client().send(new ConverseCommand({ modelId: NOVA, messages, toolConfig: { tools: [weather] } }));
    expect(second.stopReason).toBe('end_turn');
    expect(second.output!.message!.content![0]!.text!.length).toBeGreaterThan(0);
  });

  it('ConverseStreamCommand: text deltas, a tool use in pieces, messageStop and usage in metadata; a throttle after the 200 is thrown', async () => {
    const streamed = await client().send(new ConverseStreamCommand({ modelId: NOVA, messages: [{ role: 'user', content: [{ text: 'Hello there' }] }] }));
    let text = '';
    let stop: string | undefined;
    let usage: { inputTokens?: number; outputTokens?: number } | undefined;
    for await (const event of streamed.stream!) {
      if (event.contentBlockDelta?.delta?.text) text += event.contentBlockDelta.delta.text;
      if (event.messageStop) stop = event.messageStop.stopReason;
      if (event.metadata) usage = event.metadata.usage;
    }
    expect(text.length).toBeGreaterThan(0);
    expect(stop).toBe('end_turn');
    expect(usage?.outputTokens).toBeGreaterThan(0);

    const tools = await client().send(new ConverseStreamCommand({ modelId: NOVA, messages: [{ role: 'user', content: [{ text: 'Weather in Paris?' }] }], toolConfig: { tools: [weather], toolChoice: { tool: { name: 'weather' } } } }));
    let input = '';
    let started: string | undefined;
    for await (const event of tools.stream!) {
      if (event.contentBlockStart?.start?.toolUse) started = event.contentBlockStart.start.toolUse.name;
      if (event.contentBlockDelta?.delta?.toolUse) input += event.contentBlockDelta.delta.toolUse.input ?? '';
      if (event.messageStop) stop = event.messageStop.stopReason;
    }
    expect(started).toBe('weather');
    expect(typeof (JSON.parse(input) as { city?: unknown }).city).toBe('string');
    expect(stop).toBe('tool_use');

    sim.cloud.bedrockStreamExceptions.push('throttlingException');
    // The SDK reads the first event before send resolves: the exception is thrown there.
    await expect((async () => {
      const throttled = await client().send(new ConverseStreamCommand({ modelId: NOVA, messages: [{ role: 'user', content: [{ text: 'hi' }] }] }));
      for await (const _event of throttled.stream!) { /* drained */ }
    })()).rejects.toMatchObject({ name: 'ThrottlingException' });
  });
});
