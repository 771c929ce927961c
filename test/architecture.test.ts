/** The floor plan of docs/architecture.md against the imports in src/: no cycle, nothing up or sideways. */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SRC = join(ROOT, "src");

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    return statSync(p).isDirectory() ? files(p) : p.endsWith(".ts") ? [p] : [];
  });
}

/** Relative imports of a module: static ones (cycles) and all, lazy `import()` included (layers). */
function importsOf(file: string): { target: string; lazy: boolean }[] {
  const text = readFileSync(file, "utf8");
  const out: { target: string; lazy: boolean }[] = [];
  const add = (spec: string, lazy: boolean) => {
    if (spec.startsWith(".")) out.push({ target: resolve(dirname(file), spec).replace(/\.js$/, ".ts"), lazy });
  };
  for (const m of text.matchAll(/^\s*(?:import|export)\s[^"';]*?from\s*"([^"]+)"/gm)) add(m[1] as string, false);
  for (const m of text.matchAll(/^\s*import\s*"([^"]+)"/gm)) add(m[1] as string, false);
  for (const m of text.matchAll(/import\(\s*"([^"]+)"\s*\)/g)) add(m[1] as string, true);
  return out;
}

/** The room of a module: its first folder under src/, or the file's own name for files directly in src/. */
const roomOf = (file: string) => relative(SRC, file).split("/")[0] as string;

const plan = /```layers\n([\s\S]*?)```/.exec(readFileSync(join(ROOT, "docs/architecture.md"), "utf8"))?.[1] ?? "";
const floors = plan
  .trim()
  .split("\n")
  .map((l) => l.trim().split(/\s+/));
const floorOf = new Map(floors.flatMap((rooms, i) => rooms.map((r) => [r, floors.length - i] as const)));
const modules = files(SRC);

describe("architecture", () => {
  it("docs/architecture.md names every room of src/", () => {
    expect(floors.length).toBeGreaterThan(3);
    const rooms = [...new Set(modules.map(roomOf))].sort();
    expect(rooms.filter((r) => !floorOf.has(r))).toEqual([]);
  });

  it("imports go to the module's own room or a floor below, never up or sideways", () => {
    const wrong: string[] = [];
    for (const file of modules)
      for (const { target } of importsOf(file)) {
        const [from, to] = [roomOf(file), roomOf(target)];
        if (from === to) continue;
        if ((floorOf.get(to) ?? Infinity) >= (floorOf.get(from) ?? -Infinity))
          wrong.push(`${relative(ROOT, file)} → ${relative(ROOT, target)} (${from} → ${to})`);
      }
    expect(wrong).toEqual([]);
  });

  it("src/ has no import cycle (static imports; a lazy import() is how a table loads what it names)", () => {
    const graph = new Map(
      modules.map((f) => [
        f,
        importsOf(f)
          .filter((i) => !i.lazy)
          .map((i) => i.target),
      ]),
    );
    // Tarjan's strongly connected components: any with more than one module is a cycle.
    let index = 0;
    const idx = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const on = new Set<string>();
    const cycles: string[][] = [];
    const visit = (v: string) => {
      idx.set(v, index);
      low.set(v, index++);
      stack.push(v);
      on.add(v);
      for (const w of graph.get(v) ?? []) {
        if (!graph.has(w)) continue;
        if (!idx.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
        } else if (on.has(w)) low.set(v, Math.min(low.get(v) as number, idx.get(w) as number));
      }
      if (low.get(v) === idx.get(v)) {
        const scc: string[] = [];
        for (let w = stack.pop(); w !== undefined; w = w === v ? undefined : stack.pop()) {
          on.delete(w);
          scc.push(relative(ROOT, w));
        }
        if (scc.length > 1) cycles.push(scc);
      }
    };
    for (const v of graph.keys()) if (!idx.has(v)) visit(v);
    expect(cycles).toEqual([]);
  });

  it("the rooms that were src/pipeline/ hold at most 15 files each", () => {
    const rooms = ["orchestrate", "protocol", "inputs", "task", "calendar", "views", "stac", "report", "outbox", "gc"];
    const crowded = rooms
      .map((r) => [r, readdirSync(join(SRC, r)).filter((f) => f.endsWith(".ts")).length] as const)
      .filter(([, n]) => n > 15);
    expect(crowded).toEqual([]);
  });

  it("test/ is laid out by the rooms of src/, beside the few folders that cross them (test/README.md)", () => {
    const crossing = ["analysts", "engines", "hostile", "infra", "packaging", "helpers", "setup", "fixtures", "types"];
    const rooms = new Set(readdirSync(SRC).filter((e) => statSync(join(SRC, e)).isDirectory()));
    const folders = readdirSync(join(ROOT, "test")).filter(
      (e) => statSync(join(ROOT, "test", e)).isDirectory() && e !== "argo-models" && e !== "node_modules",
    );
    expect(folders.filter((f) => !rooms.has(f) && !crossing.includes(f))).toEqual([]);
    const readme = readFileSync(join(ROOT, "test", "README.md"), "utf8");
    expect(crossing.filter((f) => !readme.includes(`\`${f}/\``))).toEqual([]);
  });

  it("every package src/ imports is a declared dependency, not one that happens to be installed", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    const undeclared = new Set<string>();
    for (const f of modules) {
      const text = readFileSync(f, "utf8");
      // Type-only imports are erased before anything runs (their @types come with the devDependencies).
      const specs = [
        ...text.matchAll(/^\s*(?:import|export)\s(?!type\s)[^"';]*?from\s*"([^"]+)"/gm),
        ...text.matchAll(/import\(\s*"([^"]+)"\s*\)/g),
      ].map((m) => m[1] as string);
      for (const spec of specs) {
        if (spec.startsWith(".") || spec.startsWith("node:")) continue;
        const name = spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : (spec.split("/")[0] as string);
        if (!Object.hasOwn(pkg.dependencies, name)) undeclared.add(`${name} (${relative(ROOT, f)})`);
      }
    }
    expect([...undeclared]).toEqual([]);
  });

  it("one route to an exit code: commands return theirs, and only cli/main.ts hands it to the process", () => {
    const writers = modules
      .filter((f) => f.includes(`${join("src", "cli")}/`))
      .filter((f) => /process\.exitCode\s*=/.test(readFileSync(f, "utf8")))
      .map((f) => relative(ROOT, f));
    expect(writers).toEqual([join("src", "cli", "main.ts")]);
  });

  it("no store scheme is parsed outside store/", () => {
    const found = modules
      .filter((f) => roomOf(f) !== "store")
      .filter((f) =>
        /["'`](memory|file|s3|az|azure):\/\/|startsWith\(["'](memory|file):/.test(readFileSync(f, "utf8")),
      );
    expect(found.map((f) => relative(ROOT, f))).toEqual([]);
  });
});
