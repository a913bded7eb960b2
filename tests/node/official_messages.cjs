// The message list the official TypeScript client (@ag-ui/client 1.0.0) keeps after one run.
//
// stdin: {"input": <the RunAgentInput the run answered>, "events": [<the run's events>]}.
// An AbstractAgent whose run() replays the events is run with the client's own pipeline (its
// event verification, chunk expansion and default reducer), starting from the request's
// messages and state; stdout: the agent's `messages` afterwards, as JSON.
const { AbstractAgent } = require("@ag-ui/client");
const { from } = require("rxjs");

class ReplayAgent extends AbstractAgent {
  constructor(config, events) {
    super(config);
    this.events = events;
  }
  run() {
    return from(this.events);
  }
}

let raw = "";
process.stdin.on("data", (chunk) => (raw += chunk));
process.stdin.on("end", async () => {
  const { input, events } = JSON.parse(raw);
  const agent = new ReplayAgent(
    { threadId: input.threadId, initialMessages: input.messages, initialState: input.state || {} },
    events,
  );
  try {
    await agent.runAgent({ runId: input.runId, tools: input.tools || [], context: input.context || [],
                           forwardedProps: input.forwardedProps || {} });
  } catch (error) {
    process.stderr.write(`the official client refused the run: ${error && error.message}\n`);
  }
  process.stdout.write(JSON.stringify(agent.messages));
});
