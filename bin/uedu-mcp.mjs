#!/usr/bin/env node
// `uedu-mcp`: the MCP server over standard input and output (`uedu mcp:stdio`),
// for MCP clients that launch a command: give them this file's path, or
// `uedu-mcp` after `npm link`, with UEDU_API_KEY in its environment.
process.argv.splice(2, 0, "mcp:stdio");
await import("./uedu.mjs");
