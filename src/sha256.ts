/** The lowercase hex SHA-256 of a text's UTF-8 bytes: how keys, sign-in tokens and persisted documents are named by hash. */
import { createHash } from "node:crypto";

export const sha256Hex = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");
