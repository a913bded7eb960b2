// Runs every `tandem serve-demo` scenario with the official TypeScript client (@ag-ui/client).
//
//   node tests/node/demo_scenarios.mjs http://127.0.0.1:PORT/
//
// For each scenario the server lists (GET /), a fresh HttpAgent sends `/demo NAME` (chat: with
// "theme", so it calls the client tool) and keeps the conversation going the way an app would:
// a pending client-tool call gets a tool result, open interrupts get `resume[]` (approve a tool
// call, otherwise the smallest payload the response schema accepts). The client verifies every
// event it applies (ordering, ids, protocol version), so a protocol error rejects the run.
// Prints one JSON object: {scenario: {runs, types, error, runError, text}}.
import { HttpAgent } from "@ag-ui/client";

const url = process.argv[2];
const TOOLS = [
  { name: "change_theme", description: "Switch the colour theme.", parameters: { type: "object", properties: { theme: { type: "string" } }, required: ["theme"] } },
  { name: "generate_task_steps", description: "Let the user pick steps.", parameters: { type: "object", properties: { steps: { type: "array" } }, required: ["steps"] } },
  { name: "generate_haiku", description: "Show a haiku.", parameters: { type: "object", properties: { japanese: { type: "array" }, english: { type: "array" } } } },
];
const RESULTS = {
  change_theme: { theme: "light", applied: true },
  generate_task_steps: { accepted: true, steps: [] },
  generate_haiku: { shown: true },
};

function minimal(schema) {
  // The smallest value a JSON schema accepts, for the demo's input requests.
  if (!schema || typeof schema !== "object") return {};
  if (schema.enum) return schema.enum[0];
  switch (schema.type) {
    case "string": return "x";
    case "boolean": return true;
    case "number": case "integer": return 1;
    case "array": return [];
    default: {
      const value = {};
      for (const key of schema.required || []) value[key] = minimal((schema.properties || {})[key]);
      return value;
    }
  }
}

function unansweredCalls(messages) {
  const answered = new Set(messages.filter((m) => m.role === "tool").map((m) => m.toolCallId));
  return messages.flatMap((m) => m.toolCalls || []).filter((c) => RESULTS[c.function.name] && !answered.has(c.id));
}

async function play(name) {
  const agent = new HttpAgent({ url });
  const types = [];
  let runError = null;
  const subscriber = {
    onEvent: ({ event }) => { types.push(event.type); },
    onRunErrorEvent: ({ event }) => { runError = event.message; },
  };
  agent.addMessage({ id: `user-${name}`, role: "user", content: name === "chat" ? "/demo chat switch the theme" : `/demo ${name}` });
  let params = { tools: TOOLS };
  let runs = 0;
  try {
    for (; runs < 6; ) {
      runs += 1;
      await agent.runAgent(params, subscriber);
      if (agent.pendingInterrupts.length) {
        params = {
          tools: TOOLS,
          resume: agent.pendingInterrupts.map((i) => ({
            interruptId: i.id,
            status: "resolved",
            payload: i.reason === "tool_call" ? { approved: true } : minimal(i.responseSchema),
          })),
        };
        continue;
      }
      const calls = unansweredCalls(agent.messages);
      if (!calls.length) break;
      for (const call of calls) {
        agent.addMessage({ id: `tool-${call.id}`, role: "tool", toolCallId: call.id, content: JSON.stringify(RESULTS[call.function.name]) });
      }
      params = { tools: TOOLS };
    }
    return { runs, types, error: null, runError, text: lastText(agent.messages) };
  } catch (error) {
    return { runs, types, error: runError ? null : String(error && error.message ? error.message : error), runError, text: lastText(agent.messages) };
  }
}

function lastText(messages) {
  const texts = messages.filter((m) => m.role === "assistant" && typeof m.content === "string" && m.content);
  return texts.length ? texts[texts.length - 1].content : "";
}

const listing = await (await fetch(url)).json();
const report = {};
for (const scenario of listing.scenarios) report[scenario.name] = await play(scenario.name);
process.stdout.write(JSON.stringify(report));
