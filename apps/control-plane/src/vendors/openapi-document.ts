import { componentSchemas, type JsonObject } from "./openapi/json-schema.ts";
import { apiKeySchemes, modelApiPaths, modelApiSchemas, MODELS_TAG } from "./openapi/model-api.ts";
import { errorResponseComponents, RESPONSE_HEADERS } from "./openapi/responses.ts";
import { vendorApiParameters, vendorApiPaths, vendorApiSchemas, vendorTokenScheme, VENDOR_TAG } from "./openapi/vendor-api.ts";

/**
 * The OpenAPI 3.1 document of the gateway's public address: the model API (`/v1`, served by the
 * proxy) and the vendor API (`/api`, relayed by the proxy to the control plane, which serves this
 * document). Every body the control plane validates comes from the zod schema its route uses
 * (api-schemas.ts, report-schemas.ts); the `/v1` bodies are described loosely in
 * openapi/model-api-schemas.ts, as the proxy passes them through.
 *
 * The one server is relative: `/v1` and `/api` answer on the address this document was fetched
 * from (contract section 8). An absolute URL cannot be derived here: the proxy relays /api with
 * its own connection's Host and no x-forwarded-host, so the control plane only sees its internal
 * address.
 */
export function buildOpenApiDocument(): JsonObject {
  return {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: {
      title: "Gateway API",
      version: "1.0.0",
      description: "One address for the OpenAI-, Anthropic- and Gemini-compatible model API (`/v1`, `/v1beta`) and the vendor API (`/api`). Every error is the one envelope `Error`, except on the Gemini routes, which answer in Google's (`GoogleError`).",
    },
    servers: [{ url: "/", description: "this gateway" }],
    tags: [MODELS_TAG, VENDOR_TAG],
    paths: { ...modelApiPaths(), ...vendorApiPaths() },
    components: {
      securitySchemes: { ...apiKeySchemes, vendorToken: vendorTokenScheme },
      schemas: {
        ...componentSchemas([...modelApiSchemas.input, ...vendorApiSchemas.input], "input"),
        ...componentSchemas([...modelApiSchemas.output, ...vendorApiSchemas.output], "output"),
      },
      parameters: vendorApiParameters,
      headers: RESPONSE_HEADERS,
      responses: errorResponseComponents(),
    },
  };
}
