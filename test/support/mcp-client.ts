/** An MCP client (the SDK's own) connected to a gateway's /mcp through `gateway.fetch`, without a socket. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Gateway } from "../../src/server.js";

export async function mcpClient(gateway: Pick<Gateway, "fetch">): Promise<Client> {
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("http://gateway.test/mcp"), {
      fetch: async (url, init) => gateway.fetch(String(url), init as RequestInit),
    }),
  );
  return client;
}
