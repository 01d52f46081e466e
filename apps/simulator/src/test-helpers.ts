/** Shared test setup: a simulator plus SDK clients pointed at it. */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { startSimulator, type Simulator, type SimulatorOptions } from './index.ts';

export interface Harness {
  sim: Simulator;
  openai: OpenAI;
  anthropic: Anthropic;
}

export async function startHarness(options: SimulatorOptions = {}, apiKey = 'sk-test'): Promise<Harness> {
  const sim = await startSimulator({ port: 0, ...options });
  const openai = new OpenAI({ apiKey, baseURL: `${sim.url}/v1`, maxRetries: 0, timeout: 5000 });
  const anthropic = new Anthropic({ apiKey, baseURL: sim.url, maxRetries: 0, timeout: 5000 });
  return { sim, openai, anthropic };
}

export const WEATHER_SCHEMA = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    days: { type: 'integer' },
    metric: { type: 'boolean' },
    note: { type: 'string' },
  },
  required: ['city', 'days', 'metric'],
};

export const WEATHER_ARGS = { city: 'test', days: 1, metric: true };

/** Raw POST returning status, headers and text. */
export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}
