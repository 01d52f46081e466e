import { describe, expect, it } from "vitest";
import OpenAI from "openai";
import { z } from "zod";
import { Agent, OpenAIResponsesModel, run, setTracingDisabled, tool } from "@openai/agents";
import { carriesToolResult, completed, ctx, expectBilled, marker, mintKey, toolDirective, upstream } from "./support/suite.ts";

/**
 * The OpenAI Agents SDK continuing a run from the gateway's stored state (contract section 18, issue
 * 37), against the demo gateway with the simulator in strict mode: a two-turn agent with a function
 * tool whose second run continues the first by `previousResponseId`, and one kept in a
 * conversation (`conversationId`), on a Claude model (Responses to Messages) and an OpenAI-shape
 * one. The upstream of the second run gets the whole first run: its question, the tool's result
 * and its answer.
 */
setTracingDisabled(true);

const MODELS = ["claude-sonnet-5-5", "gpt-4o-mini"] as const;

describe.concurrent("OpenAI Agents SDK with stored state", () => {
  it.each(MODELS.flatMap((model) => [{ model, via: "previousResponseId" as const }, { model, via: "conversationId" as const }]))(
    "$model, a two-turn agent continued by $via",
    async ({ model, via }) => {
      const { id, key } = await mintKey(`agents-state ${model} ${via}`);
      const mark = marker();
      const client = new OpenAI({ baseURL: `${ctx().proxyUrl}/v1`, apiKey: key, maxRetries: 0 });
      const getWord = tool({
        name: "get_word",
        description: "Returns the secret word of a topic.",
        parameters: z.object({ topic: z.string() }),
        execute: async ({ topic }) => `the word for ${topic} is quince-${mark}`,
      });
      const agent = new Agent({ name: "tester", instructions: "Answer briefly.", tools: [getWord], model: new OpenAIResponsesModel(client, model) });
      const conversationId = via === "conversationId" ? (await client.conversations.create({})).id : undefined;
      const first = await run(agent, `What is the secret word of fruit? ${mark} ${toolDirective("get_word", { topic: "fruit" })}`, { conversationId });
      expect(first.finalOutput).toBeTruthy();
      expect(first.lastResponseId).toMatch(/^resp_/);
      const second = await run(agent, `Repeat that word, please. ${mark}`, via === "previousResponseId" ? { previousResponseId: first.lastResponseId } : { conversationId });
      expect(second.finalOutput).toBeTruthy();
      const records = completed(await upstream(mark));
      const last = records.at(-1)!;
      const sent = JSON.stringify(last.body);
      expect(sent).toContain("What is the secret word of fruit?");
      expect(carriesToolResult(last, `quince-${mark}`), "the first run's tool result reached the second run's upstream").toBe(true);
      expect(sent).toContain(String(first.finalOutput).slice(0, 20));
      expect(sent).toContain("Repeat that word, please.");
      await expectBilled(id, mark);
    },
  );
});
