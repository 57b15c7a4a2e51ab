// A second, independent MCP client: the official TypeScript SDK drives `reckoner serve` over
// stdio or streamable HTTP. It reads a plan from stdin ({server: {command, args, env}} or
// {url}, then calls: [[tool, args]]), makes the calls in order and prints what the SDK handed
// back as one JSON document, so the Python test owns every assertion and this file owns only
// the SDK's side of the wire.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

async function main() {
  const plan = await readStdin();
  let stderr = "";
  let transport;
  if (plan.url) {
    transport = new StreamableHTTPClientTransport(new URL(plan.url));
  } else {
    transport = new StdioClientTransport({
      command: plan.server.command,
      args: plan.server.args,
      env: plan.server.env,
      stderr: "pipe",
    });
    transport.stderr?.on("data", (chunk) => (stderr += chunk.toString("utf8")));
  }
  const client = new Client({ name: "reckoner-ts-interop", version: "1.0.0" });
  await client.connect(transport);

  const tools = (await client.listTools()).tools;
  const prompts = (await client.listPrompts()).prompts;
  const resources = (await client.listResources()).resources;
  const prompt = prompts.length
    ? await client.getPrompt({ name: prompts[0].name, arguments: {} })
    : null;
  const resource = resources.length
    ? await client.readResource({ uri: resources[0].uri })
    : null;

  const results = [];
  for (const [name, args] of plan.calls) {
    try {
      results.push({ result: await client.callTool({ name, arguments: args }) });
    } catch (error) {
      // A protocol-level error (an unknown tool, say): the SDK raises McpError.
      results.push({ error: { code: error.code ?? null, message: String(error.message) } });
    }
  }
  const output = {
    serverVersion: client.getServerVersion(),
    capabilities: client.getServerCapabilities(),
    instructions: client.getInstructions() ?? null,
    tools,
    prompts,
    prompt,
    resources,
    resource,
    results,
  };
  await client.close();
  process.stdout.write(JSON.stringify({ ...output, stderr }));
}

main().catch((error) => {
  process.stderr.write(`typescript client failed: ${error?.stack ?? error}\n`);
  process.exit(1);
});
