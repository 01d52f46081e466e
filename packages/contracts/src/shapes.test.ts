import { describe, expect, it } from "vitest";
import { billingEventSchema } from "./billing-event.ts";
import { CLIENT_SHAPES, endpointSchema, MODEL_ENDPOINTS, shapeSchema, SHAPES } from "./shapes.ts";
import { UPSTREAM_KINDS } from "./upstream-kinds.ts";
// The places that derive from the lists, read at their source (a test may look up; no source file
// here imports them): each must hold exactly the declared list, never a copy that can drift.
import { gatewayFileSchema } from "../../config/src/gateway-file.ts";
import { upstreamRecordSchema } from "../../redis-store/src/records.ts";
import { UPSTREAM_SHAPES } from "../../db/src/domain.ts";
import { discoverySchema } from "../../../apps/control-plane/src/vendors/openapi/model-api-schemas.ts";
import { SHAPE_ADAPTERS } from "../../../apps/proxy/src/upstreams/index.ts";
import { WIRE_FORMATS } from "../../../apps/proxy/src/shapes/wire-formats.ts";

describe("the shapes, declared once", () => {
  it("are the gateway file's, the Redis record's, the database's and the discovery object's shapes", () => {
    expect(shapeSchema.options).toEqual(SHAPES);
    // The gateway file's `shape` takes the client shapes and the provider kinds (contract section 17), which
    // speak the shapes (bedrock-converse is upstream only: `shape: bedrock` with `api: converse`).
    expect(gatewayFileSchema.in.shape.upstreams.unwrap().element.in.shape.shape.options).toEqual([...CLIENT_SHAPES, ...UPSTREAM_KINDS]);
    expect(upstreamRecordSchema.shape.shape.options).toEqual(SHAPES);
    expect(UPSTREAM_SHAPES).toEqual(SHAPES);
    expect(discoverySchema.shape.compatible_with.element.options).toEqual(CLIENT_SHAPES);
    expect(SHAPES.filter((shape) => !(CLIENT_SHAPES as readonly string[]).includes(shape))).toEqual(["bedrock-converse"]);
  });

  it("each have one upstream adapter in the proxy, of that shape", () => {
    expect(Object.keys(SHAPE_ADAPTERS).sort()).toEqual([...SHAPES].sort());
    for (const shape of SHAPES) expect(SHAPE_ADAPTERS[shape].shape).toBe(shape);
  });
});

describe("the model endpoints, declared once", () => {
  it("are the billing event's endpoints", () => {
    expect(endpointSchema.options).toEqual(MODEL_ENDPOINTS);
    expect(billingEventSchema.shape.endpoint.options).toEqual(MODEL_ENDPOINTS);
  });

  it("each have one wire format in the proxy, of that endpoint", () => {
    expect(Object.keys(WIRE_FORMATS).sort()).toEqual([...MODEL_ENDPOINTS].sort());
    for (const endpoint of MODEL_ENDPOINTS) expect(WIRE_FORMATS[endpoint].endpoint).toBe(endpoint);
  });
});
