import type { Request, Response } from "express";
import { buildOpenApiDocument } from "../vendors/openapi-document.ts";

/** GET /api/openapi.json: the OpenAPI 3.1 document of `/v1` and `/api`; public, built once. */
export function openApiRoute() {
  let document: string | undefined;
  return (_request: Request, response: Response): void => {
    document ??= JSON.stringify(buildOpenApiDocument());
    response.type("application/json").send(document);
  };
}
