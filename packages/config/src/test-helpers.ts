import { expect } from "vitest";
import { ConfigError } from "./env.ts";
import { parseGatewayFile } from "./gateway-file.ts";

/** The message of the ConfigError a gateway file is refused with (the test fails when it is accepted). */
export function errorOf(text: string, fileName = "test.yaml"): string {
  try {
    parseGatewayFile(text, fileName);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected the file to be refused");
}
