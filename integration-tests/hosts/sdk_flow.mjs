// The attention flow as an MCP host built on the official TypeScript SDK runs it against gabs.
//
//   node sdk_flow.mjs '<spec JSON>'
//
// The spec names the transport and the game:
//   {"transport": "stdio", "command": ["gabs", "server", "stdio", "--configDir", "DIR"],
//    "game": "colony", "call": {"tool": ..., "arguments": {...}},
//    "trouble": {"tool": ..., "arguments": {...}}, "deadlineMs": 90000}
// or {"transport": "http", "url": "http://127.0.0.1:PORT/mcp", "token": "...", ...}.
//
// The flow: list the tools, games_start, a call that succeeds, a call that opens blocking
// attention, the same first call again (refused by the gate), games_get_attention,
// games_ack_attention with the id it gave, the retry, games_stop. Every result is written to
// stdout as one JSON report; the checks are made by the test that runs this script. Exit 0 when
// the flow ran to its end (whatever the results said), 1 when the client failed (a transport
// error, a result the SDK refused), 2 when the deadline passed.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const spec = JSON.parse(process.argv[2] ?? "{}");
const report = { transport: spec.transport, steps: [], error: null };

function finish(code) {
  process.stdout.write(JSON.stringify(report) + "\n", () => process.exit(code));
}

const deadline = setTimeout(() => {
  report.error = `the flow did not end within ${spec.deadlineMs} ms`;
  finish(2);
}, spec.deadlineMs ?? 90000);

function transportFor(spec) {
  if (spec.transport === "stdio") {
    const [command, ...args] = spec.command;
    return new StdioClientTransport({ command, args, env: { ...process.env }, stderr: "inherit" });
  }
  if (spec.transport === "http") {
    return new StreamableHTTPClientTransport(new URL(spec.url), {
      requestInit: { headers: { Authorization: `Bearer ${spec.token}` } },
    });
  }
  throw new Error(`unknown transport ${JSON.stringify(spec.transport)}`);
}

function textOf(result) {
  return (result.content ?? [])
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("\n");
}

async function main() {
  const client = new Client({ name: "gabs-host-test", version: "1.0.0" });
  const transport = transportFor(spec);
  const options = { timeout: 60000 };
  await client.connect(transport, options);
  report.serverInfo = client.getServerVersion() ?? null;
  report.sessionId = transport.sessionId ?? null;

  // listTools also teaches the client every tool's outputSchema: from here on the SDK checks
  // each result's structured content against it, as a host does.
  const listed = await client.listTools(undefined, options);
  report.tools = listed.tools.map((tool) => tool.name);

  async function step(name, tool, args) {
    const result = await client.callTool({ name: tool, arguments: args }, undefined, options);
    const entry = {
      name,
      tool,
      arguments: args,
      isError: result.isError === true,
      structuredContent: result.structuredContent ?? null,
      meta: result._meta ?? null,
      text: textOf(result),
    };
    report.steps.push(entry);
    return entry;
  }

  const game = spec.game;
  const call = { gameId: game, tool: spec.call.tool, arguments: spec.call.arguments ?? {} };
  await step("start", "games_start", { gameId: game });
  await step("call", "games_call_tool", call);
  await step("trouble", "games_call_tool", {
    gameId: game,
    tool: spec.trouble.tool,
    arguments: spec.trouble.arguments ?? {},
  });
  await step("blocked", "games_call_tool", call);
  const inspected = await step("inspect", "games_get_attention", { gameId: game });
  const attentionId = inspected.structuredContent?.attention?.attentionId ?? "";
  await step("ack", "games_ack_attention", { gameId: game, attentionId });
  await step("retry", "games_call_tool", call);
  await step("stop", "games_stop", { gameId: game });
  await client.close();
}

main().then(
  () => {
    clearTimeout(deadline);
    finish(0);
  },
  (error) => {
    clearTimeout(deadline);
    report.error = `${error?.name ?? "Error"}: ${error?.message ?? error}`;
    finish(1);
  },
);
