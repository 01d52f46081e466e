import { z } from "zod";
import { errorResponses, jsonRequestBody, jsonResponse, queryParameters, type JsonObject, type NamedSchemas } from "./json-schema.ts";
import { operation, pathParameter } from "./model-operation.ts";
import { requestIdHeader } from "./responses.ts";

/**
 * Stored Responses state and the Conversations API (contract section 18), as the proxy serves them
 * (apps/proxy/src/routes/v1-responses-id.ts, v1-conversations.ts; docs/responses-state.md): the
 * key's vendor's records only, another vendor's id being exactly an unknown one (404). Bodies and
 * answers as the proxy builds them, which are OpenAI's.
 */

const item = z.looseObject({ id: z.string().optional().describe("`msg_...` when the client sent none."), type: z.string().optional() }).describe("A Responses item: message, function_call, function_call_output, reasoning, ...");

const itemListSchema = z
  .object({
    object: z.literal("list"),
    data: z.array(item),
    first_id: z.string().nullable(),
    last_id: z.string().nullable(),
    has_more: z.boolean(),
  })
  .describe("One page of items, as OpenAI pages them.");

/** list-page.ts: what a listing takes (`before` and `include` are not read). */
const listQuerySchema = z.object({
  limit: z.number().int().min(1).max(100).optional().describe("Items per page, 1 to 100; 20 when absent."),
  order: z.enum(["asc", "desc"]).optional().describe("`desc` (newest first) when absent."),
  after: z.string().optional().describe("The id of the item the page starts after (`last_id` of the previous page); an id not in the list is a 400."),
});

const metadata = z
  .record(z.string().max(64), z.string().max(512))
  .describe("Up to 16 string values (keys up to 64 characters, values up to 512); absent or null is `{}`.");

const conversationSchema = z.object({
  id: z.string().describe("`conv_...`."),
  object: z.literal("conversation"),
  created_at: z.number().int().describe("Unix seconds."),
  metadata: z.record(z.string(), z.string()),
});

const itemsInput = z.array(z.looseObject({})).max(20).describe("Responses input items (at most 20 at once); each kept with its id, or given a `msg_...` one.");

const deleted = (object: string) => z.object({ id: z.string(), object: z.literal(object), deleted: z.literal(true) });

export const storedStateSchemas: { input: NamedSchemas; output: NamedSchemas } = {
  input: [
    [z.looseObject({ items: itemsInput.optional(), metadata: metadata.nullable().optional() }), "ConversationCreateRequest"],
    [z.looseObject({ metadata: metadata.nullable().optional() }).describe("The new metadata, replacing the old."), "ConversationUpdateRequest"],
    [z.looseObject({ items: itemsInput }), "ConversationItemsRequest"],
  ],
  output: [
    [itemListSchema, "ItemList"],
    [item, "Item"],
    [conversationSchema, "Conversation"],
    [deleted("response"), "ResponseDeleted"],
    [deleted("conversation.deleted"), "ConversationDeleted"],
  ],
};

const READ_ERRORS = ["400", "401", "404", "500", "503"];
const WRITE_ERRORS = ["400", "401", "404", "413", "415", "500", "503"];
const listParameters = queryParameters(listQuerySchema);
const ok = (schemaId: string, description: string) => ({ "200": jsonResponse(schemaId, description, { headers: requestIdHeader }) });

export function storedStatePaths(): Record<string, JsonObject> {
  const responseId = pathParameter("id", "`resp_...`.");
  const conversationId = pathParameter("id", "`conv_...`.");
  const itemId = pathParameter("item_id", "The item's id.");
  return {
    "/v1/responses/{id}": {
      get: operation("getResponse", "A stored response", {
        description:
          "A response your key's vendor stored (`store` defaults to true, on every model), as the client received it. Another vendor's id, or an unknown, deleted or expired one, is a 404.",
        parameters: [responseId],
        responses: { ...ok("Response", "The stored response."), ...errorResponses("401", "404", "500", "503") },
      }),
      delete: operation("deleteResponse", "Delete a stored response", {
        description: "It can no longer be read or continued (`previous_response_id` naming it is then a 400 `previous_response_not_found`).",
        parameters: [responseId],
        responses: { ...ok("ResponseDeleted", "Deleted."), ...errorResponses("401", "404", "500", "503") },
      }),
    },
    "/v1/responses/{id}/input_items": {
      get: operation("listResponseInputItems", "A stored response's input items", {
        description: "The whole input the response was made from (the previous responses it continued resolved), a page at a time.",
        parameters: [responseId, ...listParameters],
        responses: { ...ok("ItemList", "One page."), ...errorResponses(...READ_ERRORS) },
      }),
    },
    "/v1/conversations": {
      post: operation("createConversation", "Create a conversation", {
        description: "With its first items, if any. A Responses request naming it (`conversation`) continues from its items and adds its input and output to them.",
        requestBody: jsonRequestBody("ConversationCreateRequest", true),
        responses: { ...ok("Conversation", "The conversation."), ...errorResponses("400", "401", "413", "415", "500", "503") },
      }),
    },
    "/v1/conversations/{id}": {
      get: operation("getConversation", "A conversation", { parameters: [conversationId], responses: { ...ok("Conversation", "The conversation."), ...errorResponses(...READ_ERRORS) } }),
      post: operation("updateConversation", "Update a conversation's metadata", {
        parameters: [conversationId],
        requestBody: jsonRequestBody("ConversationUpdateRequest", true),
        responses: { ...ok("Conversation", "The conversation."), ...errorResponses(...WRITE_ERRORS) },
      }),
      delete: operation("deleteConversation", "Delete a conversation", { parameters: [conversationId], responses: { ...ok("ConversationDeleted", "Deleted."), ...errorResponses(...READ_ERRORS) } }),
    },
    "/v1/conversations/{id}/items": {
      get: operation("listConversationItems", "A conversation's items", {
        parameters: [conversationId, ...listParameters],
        responses: { ...ok("ItemList", "One page."), ...errorResponses(...READ_ERRORS) },
      }),
      post: operation("createConversationItems", "Add items to a conversation", {
        parameters: [conversationId],
        requestBody: jsonRequestBody("ConversationItemsRequest", true),
        responses: { ...ok("ItemList", "The items added, with their ids (`has_more` false)."), ...errorResponses(...WRITE_ERRORS) },
      }),
    },
    "/v1/conversations/{id}/items/{item_id}": {
      get: operation("getConversationItem", "One item of a conversation", { parameters: [conversationId, itemId], responses: { ...ok("Item", "The item."), ...errorResponses(...READ_ERRORS) } }),
      delete: operation("deleteConversationItem", "Delete an item of a conversation", {
        parameters: [conversationId, itemId],
        responses: { ...ok("Conversation", "The conversation the item was in, as the API answers."), ...errorResponses(...READ_ERRORS) },
      }),
    },
  };
}
