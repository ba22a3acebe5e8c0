/**
 * The thread that draws a task's progress (./progress.ts): it keeps the
 * last state it was sent and draws it on its own timer, writing straight to
 * the file descriptor, so the drawing goes on while the main thread is held.
 */
import { writeSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { DRAW_EVERY_MS, type ProgressMode, type ProgressState, progressJson, progressLine, type ToDrawer } from "./progress.js";

const { fd, mode, columns } = workerData as { fd: number; mode: ProgressMode; columns: number };
let state: ProgressState | undefined;
let drawn: ProgressState | undefined;

function write(text: string): void {
  try {
    writeSync(fd, text);
  } catch {
    // A full pipe (EAGAIN) or a closed one: this line is dropped, the next one is drawn.
  }
}

function draw(): void {
  if (!state) return;
  drawn = state;
  if (mode === "json") write(`${progressJson(state, Date.now())}\n`);
  else write(`\r${progressLine(state, Date.now(), columns)}\x1b[K`);
}

const timer = setInterval(draw, DRAW_EVERY_MS[mode]);

parentPort!.on("message", (message: ToDrawer) => {
  if ("update" in message) {
    const phaseChanged = state?.phase !== message.update.phase;
    state = message.update;
    if (phaseChanged) draw();
    return;
  }
  clearInterval(timer);
  if (mode === "bar") write("\r\x1b[K");
  else if (state !== drawn) draw();
  parentPort!.postMessage("ended");
});
