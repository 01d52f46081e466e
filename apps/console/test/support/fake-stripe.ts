// A local stand-in for Stripe's API (the official SDK is pointed at it with STRIPE_API_BASE): it
// answers the calls a Checkout payment makes with Stripe's shapes, so no test reaches the internet.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeStripe {
  url: string;
  /** Every form body of POST /v1/checkout/sessions, decoded. */
  sessions: Record<string, string>[];
  close(): Promise<void>;
}

async function formOf(request: IncomingMessage): Promise<Record<string, string>> {
  let text = "";
  for await (const chunk of request) text += String(chunk);
  return Object.fromEntries(new URLSearchParams(text));
}

export async function startFakeStripe(): Promise<FakeStripe> {
  const sessions: Record<string, string>[] = [];
  const server = createServer((request, response) => {
    void (async () => {
      const path = (request.url ?? "").split("?")[0] ?? "";
      const form = request.method === "POST" ? await formOf(request) : {};
      response.setHeader("content-type", "application/json");
      response.setHeader("request-id", `req_fake_${randomUUID().slice(0, 8)}`);
      if (request.method === "POST" && path === "/v1/checkout/sessions") {
        sessions.push(form);
        const id = `cs_test_${randomUUID().replaceAll("-", "")}`;
        const amount = Number(form["line_items[0][price_data][unit_amount]"] ?? form["amount_total"] ?? 0);
        response.end(
          JSON.stringify({
            id,
            object: "checkout.session",
            url: `https://checkout.stripe.test/c/pay/${id}`,
            amount_total: amount,
            currency: "usd",
            mode: form["mode"] ?? "payment",
            payment_status: "unpaid",
            status: "open",
            customer: form["customer"] ?? null,
            metadata: Object.fromEntries(Object.entries(form).filter(([name]) => name.startsWith("metadata[")).map(([name, value]) => [name.slice(9, -1), value])),
            client_reference_id: form["client_reference_id"] ?? null,
            success_url: form["success_url"] ?? null,
            cancel_url: form["cancel_url"] ?? null,
          }),
        );
        return;
      }
      if (request.method === "POST" && path === "/v1/customers") {
        response.end(JSON.stringify({ id: `cus_fake_${randomUUID().slice(0, 8)}`, object: "customer", email: form["email"] ?? null, metadata: {} }));
        return;
      }
      response.statusCode = 404;
      response.end(JSON.stringify({ error: { type: "invalid_request_error", message: `The fake Stripe has no ${request.method} ${path}.` } }));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    sessions,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
