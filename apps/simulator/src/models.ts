/** `GET /v1/models` and `GET /v1/models/{id}`: one body readable by both the OpenAI and Anthropic SDKs. */

export const DEFAULT_MODELS: readonly string[] = [
  'gpt-4o',
  'gpt-4o-mini',
  'gpt-image-1',
  'claude-sonnet-4-5',
  'claude-haiku-4-5',
];

const CREATED = 1_700_000_000;
const CREATED_AT = new Date(CREATED * 1000).toISOString();

export function modelObject(id: string): object {
  return {
    id,
    object: 'model',
    type: 'model',
    created: CREATED,
    created_at: CREATED_AT,
    owned_by: id.startsWith('claude') ? 'anthropic' : 'openai',
    display_name: id,
  };
}

export function modelList(ids: readonly string[]): object {
  return {
    object: 'list',
    data: ids.map(modelObject),
    has_more: false,
    first_id: ids[0] ?? null,
    last_id: ids.at(-1) ?? null,
  };
}

/** Listed by the Gemini routes (`GET /v1beta/models`, `GET /v1/models` with a Google key header). */
export const DEFAULT_GEMINI_MODELS: readonly string[] = [
  'gemini-2.5-flash',
  'gemini-2.5-pro',
  'gemini-3.1-pro-preview',
  'gemini-3.5-flash-lite',
  'text-embedding-004',
  'gemini-embedding-001',
];
