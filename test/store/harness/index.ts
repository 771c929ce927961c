/**
 * Every store backend the suites run on. A new store is one harness file beside these and one line here; every
 * suite written with `describeEachStore` then runs on it.
 */
import { describe } from "vitest";
import { azuriteHarness } from "./azurite.js";
import { fsHarness } from "./fs.js";
import type { StoreHarness } from "./harness.js";
import { memoryHarness } from "./memory.js";
import { rgwHarness } from "./rgw.js";

export const storeHarnesses: readonly StoreHarness[] = [fsHarness, memoryHarness, rgwHarness, azuriteHarness];

export type { StoreCapabilities, StoreFixture, StoreHarness, UploadsInParts } from "./harness.js";
export { listingStore } from "./harness.js";

/**
 * Runs `suite` once per registered store that `applies` to (all by default), each in a describe block named after
 * the store. A backend whose server was left out on purpose outside CI is skipped, and says why; in CI none is.
 */
export function describeEachStore(
  title: string,
  suite: (harness: StoreHarness) => void,
  applies: (harness: StoreHarness) => boolean = () => true,
): void {
  for (const harness of storeHarnesses.filter(applies)) {
    const why = harness.unavailable();
    describe.skipIf(why !== undefined)(`${title} (${harness.name}${why ? `: skipped, ${why}` : ""})`, () =>
      suite(harness),
    );
  }
}
