/**
 * A process that owns private servers, for `servers.test.ts`. It prints
 * `{"pids":[…],"dirs":[…],"urls":[…]}` on one line once they answer, then:
 *
 * - `hold-servers.ts hold`: waits to be killed, cleaning up nothing, as an
 *   interrupted test run would;
 * - `hold-servers.ts setup`: runs the suite's global setup, then its teardown,
 *   and ends on its own, as a finished test run does.
 */
import { startTestServers } from "./global-setup.js";
import { type PrivateServer, startPostgres, startRedis } from "./servers.js";

const mode = process.argv[2];
const describe = (servers: PrivateServer[]) =>
  `${JSON.stringify({ pids: servers.map((s) => s.pid), dirs: servers.map((s) => s.dir), urls: servers.map((s) => s.url) })}\n`;

if (mode === "hold") {
  const servers = await Promise.all([startPostgres(), startRedis()]);
  process.stdout.write(describe(servers));
  setInterval(() => undefined, 60_000);
} else if (mode === "setup") {
  const { started, teardown } = await startTestServers({});
  process.stdout.write(describe(started));
  await teardown();
} else {
  throw new Error("usage: hold-servers.ts hold|setup");
}
