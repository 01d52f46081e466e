import { describe, expect, it } from "vitest";
import { errorOf } from "./test-helpers.ts";
import { parseGatewayFile } from "./gateway-file.ts";

/** One upstream of the given YAML flow mapping, one model on it. */
const file = (upstream: string) => `
upstreams:
  - { name: up, ${upstream} }
models:
  - { name: m, prices: { input: "1", output: "2" }, targets: [ { upstream: up, model: provider-model } ] }
`;

describe("upstream kinds (contract section 17)", () => {
  it("azure: the OpenAI shape with its api-version; the v1 path when none; api-key unless bearer", () => {
    const deployment = parseGatewayFile(file('shape: azure, base_url: "https://res.openai.azure.com", secret_env: AZURE_KEY, api_version: "2024-10-21"')).upstreams[0]!;
    expect(deployment).toMatchObject({ shape: "openai", base_url: "https://res.openai.azure.com", secret_env: "AZURE_KEY", dialect: { kind: "azure", apiVersion: "2024-10-21", auth: "api-key" } });
    const v1 = parseGatewayFile(file('shape: azure, base_url: "https://res.openai.azure.com", secret_env: ENTRA_TOKEN, auth: bearer')).upstreams[0]!;
    expect(v1.dialect).toEqual({ kind: "azure", apiVersion: null, auth: "bearer" });
    // The model's capabilities come from the family of the shape it speaks.
    expect(parseGatewayFile(file('shape: azure, base_url: "https://res.openai.azure.com"')).models[0]!.capabilities.mid_conversation_system).toBe(true);
  });

  it("bedrock: the Anthropic shape, its region's endpoint unless base_url overrides it, credentials by env var name", () => {
    const bedrock = parseGatewayFile(file("shape: bedrock, region: eu-west-1, aws_access_key_id_env: AWS_KEY_ID, aws_secret_access_key_env: AWS_SECRET, aws_session_token_env: AWS_TOKEN")).upstreams[0]!;
    expect(bedrock).toMatchObject({
      shape: "anthropic",
      base_url: "https://bedrock-runtime.eu-west-1.amazonaws.com",
      dialect: { kind: "bedrock", region: "eu-west-1", accessKeyIdEnv: "AWS_KEY_ID", secretAccessKeyEnv: "AWS_SECRET", sessionTokenEnv: "AWS_TOKEN" },
    });
    expect(bedrock).not.toHaveProperty("region");
    const local = parseGatewayFile(file('shape: bedrock, base_url: "http://127.0.0.1:9/", region: us-east-1, aws_access_key_id_env: A, aws_secret_access_key_env: B')).upstreams[0]!;
    expect(local).toMatchObject({ base_url: "http://127.0.0.1:9/", dialect: { sessionTokenEnv: null } });
    expect(parseGatewayFile(file("shape: bedrock, region: us-east-1, aws_access_key_id_env: A, aws_secret_access_key_env: B")).models[0]!.capabilities.reasoning).toBe(true);
    // No keys named: the AWS SDKs' default credential chain (a role).
    expect(parseGatewayFile(file("shape: bedrock, region: us-west-2")).upstreams[0]!.dialect).toEqual({ kind: "bedrock", region: "us-west-2", accessKeyIdEnv: null, secretAccessKeyEnv: null, sessionTokenEnv: null });
  });

  it("bedrock api: converse is the bedrock-converse shape (any model) with its family's capabilities; invoke (the default) stays Anthropic; another value or kind is refused", () => {
    const converse = parseGatewayFile(file("shape: bedrock, region: us-east-1, api: converse"));
    expect(converse.upstreams[0]).toMatchObject({ shape: "bedrock-converse", base_url: "https://bedrock-runtime.us-east-1.amazonaws.com", dialect: { kind: "bedrock", region: "us-east-1", api: "converse" } });
    expect(converse.models[0]!.capabilities).toMatchObject({ reasoning: false, tools: true, vision: true });
    expect(parseGatewayFile(file("shape: bedrock, region: us-east-1, api: invoke")).upstreams[0]).toMatchObject({ shape: "anthropic", dialect: { kind: "bedrock", region: "us-east-1" } });
    expect(errorOf(file("shape: bedrock, region: us-east-1, api: chat"))).toMatch(/upstreams\[0\]\.api/);
    expect(errorOf(file('shape: openai, base_url: "http://x/v1", api: converse'))).toMatch(/upstreams\[0\]\.api: not a field of a openai upstream/);
    // Another provider's model on an InvokeModel upstream is refused at load, naming the target and the fix.
    const nova = (api: string) => `
upstreams:
  - { name: up, shape: bedrock, region: us-east-1${api} }
models:
  - { name: m, prices: { input: "1", output: "2" }, targets: [ { upstream: up, model: "us.amazon.nova-pro-v1:0" } ] }
`;
    expect(errorOf(nova(""))).toMatch(/models\[0\]\.targets\[0\]\.model: "us\.amazon\.nova-pro-v1:0" is not a Claude model: .*api: converse/);
    expect(parseGatewayFile(nova(", api: converse")).upstreams[0]!.shape).toBe("bedrock-converse");
    // bedrock-converse is reached through bedrock only, never named as a shape.
    expect(errorOf(file('shape: bedrock-converse, base_url: "http://x"'))).toMatch(/upstreams\[0\]\.shape/);
  });

  it("vertex: the Anthropic shape on its region's host (global, us and eu have their own); publisher google speaks Gemini", () => {
    const hosts = ["us-east5", "global", "eu"].map((region) => parseGatewayFile(file(`shape: vertex, project: my-project, region: ${region}, service_account_file_env: GOOGLE_KEY_FILE`)).upstreams[0]!);
    expect(hosts.map((u) => u.base_url)).toEqual(["https://us-east5-aiplatform.googleapis.com/v1", "https://aiplatform.googleapis.com/v1", "https://aiplatform.eu.rep.googleapis.com/v1"]);
    expect(hosts[0]).toMatchObject({ shape: "anthropic", dialect: { kind: "vertex", project: "my-project", region: "us-east5", serviceAccountFileEnv: "GOOGLE_KEY_FILE", publisher: "anthropic" } });
    // Gemini on Vertex: the Gemini shape, and the Gemini family's capabilities.
    const gemini = parseGatewayFile(file("shape: vertex, project: p, region: us-central1, service_account_file_env: K, publisher: google"));
    expect(gemini.upstreams[0]).toMatchObject({ shape: "gemini", dialect: { kind: "vertex", publisher: "google" } });
    expect(gemini.models[0]!.capabilities.context_window).toBe(1_048_576);
  });

  it("compat profiles on openai and anthropic; a plain upstream has no dialect", () => {
    expect(parseGatewayFile(file('shape: openai, base_url: "https://api.groq.com/openai/v1", compat: groq')).upstreams[0]!.dialect).toEqual({ kind: "compat", profile: "groq" });
    expect(parseGatewayFile(file('shape: anthropic, base_url: "https://api.deepseek.com/anthropic", compat: deepseek')).upstreams[0]).toMatchObject({ shape: "anthropic", dialect: { kind: "compat", profile: "deepseek" } });
    expect(parseGatewayFile(file('shape: openai, base_url: "http://x/v1"')).upstreams[0]!.dialect).toBeNull();
  });

  it("refuses, naming the path, a kind's missing field, another kind's field, an unknown profile, and a base_url left out where no region gives one", () => {
    expect(errorOf(file("shape: bedrock, region: us-east-1, aws_access_key_id_env: A"))).toMatch(/upstreams\[0\]\.aws_secret_access_key_env: aws_access_key_id_env and aws_secret_access_key_env go together/);
    expect(errorOf(file("shape: bedrock, region: us-east-1, aws_session_token_env: T"))).toMatch(/upstreams\[0\]\.aws_session_token_env: a session token goes with/);
    expect(errorOf(file("shape: bedrock, aws_access_key_id_env: A, aws_secret_access_key_env: B"))).toMatch(/upstreams\[0\]\.region: required for a bedrock upstream/);
    expect(errorOf(file("shape: vertex, project: p, region: us-east5"))).toMatch(/upstreams\[0\]\.service_account_file_env: required for a vertex upstream/);
    expect(errorOf(file('shape: openai, base_url: "http://x/v1", region: us-east-1'))).toMatch(/upstreams\[0\]\.region: not a field of a openai upstream/);
    expect(errorOf(file('shape: azure, base_url: "http://x", compat: groq'))).toMatch(/upstreams\[0\]\.compat: not a field of a azure upstream/);
    expect(errorOf(file('shape: openai, base_url: "http://x/v1", compat: acme'))).toMatch(/upstreams\[0\]\.compat/);
    expect(errorOf(file("shape: azure, api_version: 2024-10-21"))).toMatch(/upstreams\[0\]\.base_url: required for a azure upstream/);
    expect(errorOf(file('shape: bedrock, region: us-east-1, aws_access_key_id_env: "lower", aws_secret_access_key_env: B'))).toMatch(/aws_access_key_id_env: an environment variable name/);
  });
});
