// A client process of the end-to-end benchmarks on the official TypeScript MCP SDK, the client
// most MCP hosts are built on. It speaks the same JSON-line commands as e2e_client.py's MCP
// kinds (see that file): a "ready" line, then "run", "once" and "quit".
//
//   node e2e_client_ts.cjs --modules DIR mcp-stdio --command '["gabs", "serve", ...]' \
//       [--start GAME ...] [--probe CALL] [--bridge-log FILE] [--call-timeout S] [--start-timeout S]
//   node e2e_client_ts.cjs --modules DIR mcp-http --url URL ...   (token: $BENCH_HTTP_TOKEN)
//
// DIR is a node_modules folder holding @modelcontextprotocol/sdk (the host tests' pinned copy).

"use strict";

const fs = require("node:fs");
const path = require("node:path");
const readline = require("node:readline");
const { createRequire } = require("node:module");

function parseArguments(argv) {
  const options = { start: [], callTimeout: 60, startTimeout: 120, startConcurrency: 1 };
  const rest = [...argv];
  while (rest.length > 0) {
    const word = rest.shift();
    const value = () => {
      if (rest.length === 0) throw new Error(`${word} needs a value`);
      return rest.shift();
    };
    if (word === "--modules") options.modules = value();
    else if (word === "--command") options.command = JSON.parse(value());
    else if (word === "--url") options.url = value();
    else if (word === "--start") options.start.push(value());
    else if (word === "--start-concurrency") options.startConcurrency = Number(value());
    else if (word === "--probe") options.probe = JSON.parse(value());
    else if (word === "--bridge-log") options.bridgeLog = value();
    else if (word === "--call-timeout") options.callTimeout = Number(value());
    else if (word === "--start-timeout") options.startTimeout = Number(value());
    else if (word === "--mcp-mode") value(); // the Python SDK's option; this client has one mode
    else if (word.startsWith("--")) throw new Error(`unknown option ${word}`);
    else options.kind = word;
  }
  if (!options.modules) throw new Error("--modules is required");
  if (options.kind !== "mcp-stdio" && options.kind !== "mcp-http") {
    throw new Error(`unknown kind ${JSON.stringify(options.kind)}`);
  }
  return options;
}

function emit(message) {
  return new Promise((resolve) => process.stdout.write(JSON.stringify(message) + "\n", resolve));
}

function errorOf(result) {
  if (!result.isError) return null;
  const text = (result.content ?? [])
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join(" ");
  return text.slice(0, 500) || "isError without text";
}

async function runLoad(call, command) {
  const calls = command.calls;
  const inFlight = Number(command.in_flight);
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(Math.round(Number(command.seconds) * 1e9));
  const latencies = [];
  let errors = 0;
  let firstError = null;

  async function worker(index) {
    let position = index % calls.length;
    while (process.hrtime.bigint() < deadline) {
      const begin = process.hrtime.bigint();
      const problem = await call(calls[position]);
      latencies.push(Number((process.hrtime.bigint() - begin) / 1000n));
      if (problem !== null) {
        errors += 1;
        firstError = firstError ?? problem;
      }
      position = (position + 1) % calls.length;
    }
  }

  await Promise.all(Array.from({ length: inFlight }, (_, index) => worker(index)));
  const elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  return { calls: latencies.length, elapsed, errors, first_error: firstError, lat_us: latencies };
}

async function runOnce(call, calls, concurrency) {
  const errors = [];
  const start = process.hrtime.bigint();
  let next = 0;
  async function lane() {
    while (next < calls.length) {
      const spec = calls[next++];
      const problem = await call(spec);
      if (problem !== null) errors.push(`${JSON.stringify(spec)}: ${problem}`.slice(0, 1000));
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, lane));
  const elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  return { calls: calls.length, elapsed, errors: errors.length, first_error: errors[0] ?? null };
}

async function firstSuccess(call, spec, withinSeconds) {
  const deadline = Date.now() + withinSeconds * 1000;
  for (;;) {
    const problem = await call(spec);
    if (problem === null || Date.now() > deadline) return problem;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function transportFor(options, sdk) {
  if (options.kind === "mcp-stdio") {
    const [command, ...args] = options.command;
    const stderr = options.bridgeLog ? fs.openSync(options.bridgeLog, "a") : "inherit";
    return new sdk.StdioClientTransport({ command, args, env: { ...process.env }, stderr });
  }
  const token = process.env.BENCH_HTTP_TOKEN ?? "";
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  return new sdk.StreamableHTTPClientTransport(new URL(options.url), {
    requestInit: { headers },
  });
}

async function main() {
  const options = parseArguments(process.argv.slice(2));
  const load = createRequire(path.join(path.resolve(options.modules), "index.js"));
  const sdk = {
    ...load("@modelcontextprotocol/sdk/client/index.js"),
    ...load("@modelcontextprotocol/sdk/client/stdio.js"),
    ...load("@modelcontextprotocol/sdk/client/streamableHttp.js"),
  };
  const client = new sdk.Client({ name: "gabs-bench", version: "1.0.0" });
  const transport = transportFor(options, sdk);
  await client.connect(transport, { timeout: options.startTimeout * 1000 });
  await client.listTools();

  const call = async (spec, withinSeconds = options.callTimeout) => {
    try {
      const result = await client.callTool(
        { name: spec.tool, arguments: spec.arguments ?? {} },
        undefined,
        { timeout: withinSeconds * 1000 },
      );
      return errorOf(result);
    } catch (error) {
      return `${error?.name ?? "Error"}: ${error?.message ?? error}`.slice(0, 500);
    }
  };
  const startCall = (spec) => call(spec, options.startTimeout);

  const starts = options.start.map((gameId) => ({ tool: "games_start", arguments: { gameId } }));
  const started = await runOnce(startCall, starts, options.startConcurrency);
  if (started.errors > 0) {
    await emit({ ready: false, error: `games_start: ${started.first_error}` });
    return client.close();
  }
  if (options.probe) {
    const problem = await firstSuccess(call, options.probe, options.startTimeout);
    if (problem !== null) {
      await emit({ ready: false, error: `probe call failed: ${problem}` });
      return client.close();
    }
  }
  await emit({ ready: true, pid: process.pid, protocol: client.getServerVersion()?.version ?? null });

  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    const command = JSON.parse(line);
    if (command.op === "quit") break;
    if (command.op === "run") await emit(await runLoad(call, command));
    else if (command.op === "once") {
      await emit(await runOnce(call, command.calls, Number(command.concurrency ?? 1)));
    } else await emit({ error: `unknown op ${JSON.stringify(command.op)}` });
  }
  lines.close();
  const stops = options.start.map((gameId) => ({ tool: "games_stop", arguments: { gameId } }));
  await runOnce(call, stops, 8);
  await client.close();
}

main().then(
  () => process.exit(0),
  async (error) => {
    await emit({ ready: false, error: `${error?.name ?? "Error"}: ${error?.message ?? error}`.slice(0, 2000) });
    process.exit(1);
  },
);
