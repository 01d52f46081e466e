// The translation contract lives in the core (core/pipeline.ts); every pair is built in shapes/index.ts.
export type { StreamTranslator, Translation, TranslationName } from "../core/pipeline.ts";
