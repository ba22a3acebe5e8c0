// PostGraphile v5, the peer a frontend team would pick instead of the gateway
// for GraphQL over PostgreSQL: the amber preset with simplified names and the
// connection-filter plugin, on node:http, one process, a pool of 10 kept
// PEER_POOL_IDLE_MS when idle (the gateway's). bench/http/peer.ts installs it
// into artifacts/postgraphile (on the npm-packaged Node 24, which PostGraphile
// 5 needs), copies this file beside it and runs it as a role that may read
// only what the gateway serves.
// It prints `ready` once it listens on PEER_PORT.
import { createServer } from "node:http";
import { PgSimplifyInflectionPreset } from "@graphile/simplify-inflection";
import { postgraphile } from "postgraphile";
import { makePgService } from "postgraphile/adaptors/pg";
import { grafserv } from "postgraphile/grafserv/node";
import { PostGraphileAmberPreset } from "postgraphile/presets/amber";
import { PostGraphileConnectionFilterPreset } from "postgraphile-plugin-connection-filter";

const port = Number(process.env.PEER_PORT);
const preset = {
  extends: [PostGraphileAmberPreset, PgSimplifyInflectionPreset, PostGraphileConnectionFilterPreset],
  pgServices: [
    makePgService({
      connectionString: process.env.PEER_DATABASE_URL,
      schemas: ["public"],
      poolConfig: { max: 10, idleTimeoutMillis: Number(process.env.PEER_POOL_IDLE_MS) },
    }),
  ],
  grafserv: { port, graphqlPath: "/graphql", graphiql: false },
};
const serv = postgraphile(preset).createServ(grafserv);
const server = createServer();
await serv.addTo(server);
server.listen(port, "127.0.0.1", () => console.log("ready"));
