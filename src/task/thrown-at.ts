import { fileURLToPath } from "node:url";

/** georefresh's own code (src/ and dist/ of this package): frames there are not where a task's bug is. */
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const OWN = [`${ROOT}src/`, `${ROOT}dist/`];

/**
 * Where in the user's own code an error was thrown: the first stack frame outside georefresh, node's internals
 * and node_modules, as "file:line:column" (a path, not a file:// URL); undefined when the stack shows none (an
 * error of georefresh's own, which says what and where in its message).
 */
export function thrownAt(error: unknown): string | undefined {
  const stack = (error as { stack?: unknown }).stack;
  if (typeof stack !== "string") return undefined;
  for (const line of stack.split("\n").slice(1)) {
    const m = /\(?((?:file:\/\/)?\/[^()\s]+):(\d+):(\d+)\)?\s*$/.exec(line.trim());
    if (!m) continue;
    const found = m[1] as string;
    const path = found.startsWith("/") ? found : fileURLToPath(found); // a plain path, or an ES module's URL
    if (OWN.some((own) => path.startsWith(own))) continue;
    if (path.includes("/node_modules/")) continue;
    return `${path}:${m[2]}:${m[3]}`;
  }
  return undefined;
}
