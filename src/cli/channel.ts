/**
 * The owning gateway's command socket: how `keys`, `import` and `db:migrate`
 * run while a gateway has the embedded database open. The gateway listens
 * on a Unix socket (mode 0600, so only its user may talk to it) and runs the
 * same command functions the command line does, on its own database; the
 * command line sends the arguments and its input, and prints what comes
 * back.
 *
 * `POST /commands/<name>`, header `x-command` = the JSON of
 * `{ args, tty, size }` (`size`: the input's bytes, or null), body = the
 * command's input (empty if it reads none). The answer streams one JSON
 * object a line: `{"out":…}`, `{"err":…}`, `{"progress":<state>}` (drawn by
 * the command line, which keeps drawing while the gateway is busy), and last
 * `{"exit":N}`.
 */
import { chmodSync, rmSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import { connect } from "node:net";
import { createInterface } from "node:readline";
import type { Database } from "../db/driver.js";
import { migrate } from "../db/migrate.js";
import type { ProgressSink, ProgressState } from "../observe/progress.js";
import { type CommandIO, type CommandSpec, guarded, oneLine } from "./command.js";

/** Serves `commands` on `socketPath` against `db`; resolves once listening. */
export async function serveCommands(socketPath: string, db: Database, commands: readonly CommandSpec[]): Promise<Server> {
  rmSync(socketPath, { force: true }); // left by a killed owner; the lock says it is ours now
  const byName = new Map(commands.map((c) => [c.name, c]));
  const server = createServer((req, res) => {
    // A command line that goes away mid-command must not take the gateway with it.
    req.on("error", () => undefined);
    res.on("error", () => undefined);
    const name = /^\/commands\/([\w:-]+)$/.exec(req.url ?? "")?.[1];
    const spec = req.method === "POST" && name ? byName.get(name) : undefined;
    let header: { args: string[]; tty: boolean; size?: unknown };
    try {
      header = JSON.parse(String(req.headers["x-command"] ?? ""));
      if (!Array.isArray(header.args) || !header.args.every((a) => typeof a === "string")) throw new Error("bad args");
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (!spec) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/x-ndjson" });
    const send = (message: object) => res.write(`${JSON.stringify(message)}\n`);
    const io: CommandIO = {
      out: (text) => send({ out: text }),
      err: (text) => send({ err: text }),
      tty: header.tty === true,
      openInput: async () => guarded(req, "the command's input", Number.isSafeInteger(header.size) ? (header.size as number) : null),
      progressSink: () => ({ update: (state) => send({ progress: state }), end: async () => undefined }),
    };
    spec
      .run(header.args, io, async (work, progress) => {
        progress?.phase("migrating");
        return work(db, await migrate(db));
      })
      .catch((error: unknown) => {
        io.err(`${spec.prefix}: ${oneLine(error)}\n`);
        return 1;
      })
      .then((code) => {
        req.resume(); // whatever input the command did not read
        res.end(`${JSON.stringify({ exit: code })}\n`);
      });
  });
  server.on("clientError", (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => {
      server.off("error", reject);
      resolve();
    });
  });
  chmodSync(socketPath, 0o600);
  return server;
}

/** Whether something listens on the Unix socket. */
function listening(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * Waits while the owning gateway is alive but not yet listening (it imports
 * the demo data on its first start before it takes commands).
 */
async function untilListening(socketPath: string, stillOwner: () => boolean, io: CommandIO, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let told = false;
  while (!(await listening(socketPath))) {
    if (!stillOwner()) throw new Error("the gateway that owned the database stopped; run the command again");
    if (Date.now() > deadline) throw new Error(`the gateway that owns the database does not take commands at ${socketPath}`);
    if (!told) io.err("waiting for the gateway to finish starting…\n");
    told = true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Runs a command in the owning gateway; resolves to its exit code. `args` are
 * the command line's: its input is opened here, and the gateway is sent them
 * as `spec.sendArgs` rewrites them.
 */
export async function forward(
  socketPath: string,
  spec: CommandSpec,
  commandLine: string[],
  io: CommandIO,
  stillOwner: () => boolean = () => true,
  startTimeoutMs = 180_000,
): Promise<number> {
  await untilListening(socketPath, stillOwner, io, startTimeoutMs);
  const inputPath = spec.inputOf?.(commandLine);
  const input = inputPath !== undefined ? await io.openInput(inputPath) : undefined;
  const args = spec.sendArgs?.(commandLine) ?? commandLine;
  return new Promise<number>((resolve, reject) => {
    const req = request(
      {
        socketPath,
        method: "POST",
        path: `/commands/${spec.name}`,
        headers: {
          "x-command": JSON.stringify({ args, tty: io.tty, size: input?.size ?? null }),
          "content-type": "application/octet-stream",
        },
      },
      (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`the gateway that owns the database refused the command (HTTP ${res.statusCode})`));
          res.resume();
          return;
        }
        let exit: number | undefined;
        let drawing: ProgressSink | undefined;
        const lines = createInterface({ input: res, crlfDelay: Infinity });
        lines.on("line", (line) => {
          const message = JSON.parse(line) as { out?: string; err?: string; progress?: ProgressState; exit?: number };
          if (message.progress !== undefined) {
            drawing ??= io.progressSink();
            drawing.update(message.progress);
          }
          if (message.out !== undefined) io.out(message.out);
          if (message.err !== undefined) io.err(message.err);
          if (message.exit !== undefined) exit = message.exit;
        });
        lines.on("close", async () => {
          await drawing?.end();
          const failure = input?.readError();
          if (failure) reject(failure);
          else if (exit === undefined) reject(new Error("the gateway that owns the database stopped before the command finished"));
          else resolve(exit);
        });
      },
    );
    req.on("error", (error) => reject(new Error(`cannot reach the gateway that owns the database at ${socketPath}: ${oneLine(error)}`)));
    if (input) input.input.pipe(req);
    else req.end();
  });
}
