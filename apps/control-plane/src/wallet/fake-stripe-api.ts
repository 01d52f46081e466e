// A local fake of the few Stripe API endpoints the gateway calls (tests only): the official SDK is
// pointed at it with STRIPE_API_BASE (its host/port/protocol options), never at the internet.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeStripeRequest {
  method: string;
  path: string;
  /** The form-encoded body as the SDK sent it (`line_items[0][price_data][unit_amount]` ...). */
  params: URLSearchParams;
  authorization: string | undefined;
  idempotencyKey: string | undefined;
}

export interface FakeStripeApi {
  url: string;
  requests: FakeStripeRequest[];
  /** The status the next PaymentIntents are created with (`succeeded`, `processing`, `requires_action`). */
  paymentIntentStatus: string;
  /** The card a checkout's PaymentIntent was paid with (read back by the webhook handler). */
  savedPaymentMethod: string;
  close(): Promise<void>;
}

const id = (prefix: string) => `${prefix}_test_${randomBytes(12).toString("hex")}`;

async function readForm(request: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

function metadataOf(params: URLSearchParams, prefix = "metadata"): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of params) {
    const match = new RegExp(`^${prefix.replace(/[[\]]/g, "\\$&")}\\[(\\w+)\\]$`).exec(name);
    if (match) out[match[1]!] = value;
  }
  return out;
}

export async function startFakeStripeApi(): Promise<FakeStripeApi> {
  const requests: FakeStripeRequest[] = [];
  const byIdempotencyKey = new Map<string, unknown>();
  const intents = new Map<string, Record<string, unknown>>();
  const fake = { paymentIntentStatus: "succeeded", savedPaymentMethod: "pm_test_card_visa" };

  const answer = (method: string, path: string, params: URLSearchParams): { status: number; body: unknown } => {
    if (method === "POST" && path === "/v1/checkout/sessions") {
      const sessionId = id("cs");
      const unitAmount = Number(params.get("line_items[0][price_data][unit_amount]"));
      const quantity = Number(params.get("line_items[0][quantity]") ?? "1");
      return {
        status: 200,
        body: {
          id: sessionId,
          object: "checkout.session",
          mode: params.get("mode"),
          url: `https://checkout.stripe.test/c/pay/${sessionId}`,
          amount_total: unitAmount * quantity,
          currency: params.get("line_items[0][price_data][currency]"),
          client_reference_id: params.get("client_reference_id"),
          customer: params.get("customer"),
          metadata: metadataOf(params),
          payment_status: "unpaid",
          status: "open",
          success_url: params.get("success_url"),
          cancel_url: params.get("cancel_url"),
        },
      };
    }
    if (method === "POST" && path === "/v1/payment_intents") {
      const amount = Number(params.get("amount"));
      const status = fake.paymentIntentStatus;
      const intent = {
        id: id("pi"),
        object: "payment_intent",
        amount,
        amount_received: status === "succeeded" ? amount : 0,
        currency: params.get("currency"),
        customer: params.get("customer"),
        payment_method: params.get("payment_method"),
        metadata: metadataOf(params),
        status,
      };
      intents.set(intent.id, intent);
      return { status: 200, body: intent };
    }
    const read = /^\/v1\/payment_intents\/([\w-]+)$/.exec(path);
    if (method === "GET" && read) {
      const known = intents.get(read[1]!);
      return { status: 200, body: known ?? { id: read[1], object: "payment_intent", status: "succeeded", payment_method: fake.savedPaymentMethod, metadata: {} } };
    }
    return { status: 404, body: { error: { type: "invalid_request_error", message: `Unrecognized request URL (${method}: ${path}).` } } };
  };

  const server: Server = createServer((request, response) => {
    void (async () => {
      const params = await readForm(request);
      const url = new URL(request.url ?? "/", "http://stripe.test");
      const idempotencyKey = request.headers["idempotency-key"] as string | undefined;
      requests.push({ method: request.method ?? "GET", path: url.pathname, params, authorization: request.headers.authorization, idempotencyKey });
      // Stripe answers a retried key with the first response.
      const key = idempotencyKey && `${request.method} ${url.pathname} ${idempotencyKey}`;
      let result = key ? (byIdempotencyKey.get(key) as ReturnType<typeof answer> | undefined) : undefined;
      if (!result) {
        result = answer(request.method ?? "GET", url.pathname, params);
        if (key) byIdempotencyKey.set(key, result);
      }
      response.writeHead(result.status, { "content-type": "application/json", "request-id": id("req") });
      response.end(JSON.stringify(result.body));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
