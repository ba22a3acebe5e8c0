/**
 * axe-core's accessibility check of a page in the browser tests. Its script
 * is evaluated by the test driver, so the page's Content-Security-Policy
 * stays as the gateway serves it.
 */
import axe from "axe-core";
import type { Page } from "playwright-core";

/** The serious and critical violations on `page` as it is now, one line each (rule, impact, first elements). */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axe.source);
  const result = await page.evaluate(() => (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ["violations"] }));
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${v.id} (${v.impact}, ${v.nodes.length}): ${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(" "))
          .join("; ")}`,
    );
}
