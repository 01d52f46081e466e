/** Gemini API `GET /{v}/models` and `GET /{v}/models/{model}`: model resources in Google's form. */
import { capabilitiesFor } from './model-capabilities.ts';

export function isEmbeddingModel(model: string): boolean {
  return model.includes('embedding');
}

/** The bare id: `models/gemini-2.5-flash` -> `gemini-2.5-flash`. */
export function bareModel(model: string): string {
  return model.startsWith('models/') ? model.slice('models/'.length) : model;
}

function displayName(id: string): string {
  return id
    .split('-')
    .map((word) => (word.length === 0 ? word : word[0]!.toUpperCase() + word.slice(1)))
    .join(' ');
}

/**
 * A Model resource as Google lists it (`name`, `version`, `displayName`, limits,
 * `supportedGenerationMethods`, sampling defaults, `thinking`).
 */
export function geminiModelResource(model: string): object {
  const id = bareModel(model);
  const name = `models/${id}`;
  if (isEmbeddingModel(id)) {
    return {
      name,
      version: id === 'text-embedding-004' ? '004' : '001',
      displayName: displayName(id),
      description: 'Obtain a distributed representation of a text.',
      inputTokenLimit: 2048,
      outputTokenLimit: 1,
      supportedGenerationMethods: ['embedContent', 'countTextTokens', 'countTokens', 'asyncBatchEmbedContent'],
    };
  }
  const caps = capabilitiesFor(id);
  return {
    name,
    baseModelId: id,
    version: '001',
    displayName: displayName(id),
    description: `Simulated ${displayName(id)}.`,
    inputTokenLimit: 1_048_576,
    outputTokenLimit: caps?.maxOutputTokens ?? 65_536,
    supportedGenerationMethods: ['generateContent', 'countTokens', 'createCachedContent', 'batchGenerateContent'],
    temperature: 1,
    topP: 0.95,
    topK: 64,
    maxTemperature: 2,
    thinking: caps?.reasoning ?? true,
  };
}

/** `{"models":[…],"nextPageToken"?}`: `pageSize` (default 50, at most 1000) per page, `pageToken` an offset. */
export function geminiModelList(ids: readonly string[], pageSize: string | null, pageToken: string | null): object {
  const size = Math.min(1000, Math.max(1, Number.parseInt(pageSize ?? '', 10) || 50));
  const start = Math.max(0, Number.parseInt(pageToken ?? '', 10) || 0);
  const page = ids.slice(start, start + size);
  const next = start + size < ids.length ? String(start + size) : null;
  return { models: page.map(geminiModelResource), ...(next === null ? {} : { nextPageToken: next }) };
}
