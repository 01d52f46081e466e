import type { Express } from "express";
import type { ControlPlaneServices } from "../services.ts";

/** The vendor (reseller) API under /api (contract section 6). */
export function mountVendorApi(_app: Express, _services: ControlPlaneServices): void {}
