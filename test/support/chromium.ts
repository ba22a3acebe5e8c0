/**
 * Debian's Chromium, driven by playwright-core, on a machine with no
 * internet: `.ci/run` installs it; elsewhere a browser test is skipped when
 * it is missing, unless REQUIRE_BROWSER is set (as CI sets it).
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";

const CHROMIUM = "/usr/bin/chromium";

/** Whether the browser tests can run here. */
export const chromiumPresent = existsSync(CHROMIUM);
if (!chromiumPresent && process.env.REQUIRE_BROWSER) throw new Error(`REQUIRE_BROWSER is set but ${CHROMIUM} is missing`);

/** Where the browser tests' screenshots go (git-ignored). */
export const SCREENSHOTS = join(import.meta.dirname, "..", "..", "artifacts", "screenshots");

/** Starts headless Chromium with no way off the machine: no name resolves but 127.0.0.1, nothing runs in the background. */
export function launchChromium(): Promise<Browser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      // No name resolves but the gateway's own address: nothing can leave the machine.
      "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    ],
  });
}
