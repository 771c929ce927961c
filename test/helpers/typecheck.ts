import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

/**
 * Type-checks plain data against TypeScript types, as an object literal assigned to a declared type: literal
 * unions (enums) are checked and unknown fields are excess-property errors, which a JSON schema of required
 * fields alone would let through. One program for all documents. Returns each document's errors.
 */
export function typecheck(
  docs: { name: string; importFrom: string; type: string; value: unknown }[],
  root: string,
): Record<string, string[]> {
  const dir = mkdtempSync(join(root, ".typecheck-"));
  try {
    const files = docs.map((d, i) => {
      const file = join(dir, `doc${i}.ts`);
      writeFileSync(
        file,
        `import type { ${d.type} } from ${JSON.stringify(d.importFrom)};\nexport const doc: ${d.type} = ${JSON.stringify(d.value, null, 1)};\n`,
      );
      return file;
    });
    const program = ts.createProgram(files, {
      strict: true,
      noEmit: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      skipLibCheck: true,
      types: [],
    });
    const out: Record<string, string[]> = {};
    docs.forEach((d, i) => {
      const source = program.getSourceFile(files[i] as string);
      out[d.name] = ts
        .getPreEmitDiagnostics(program, source)
        .map((x) => ts.flattenDiagnosticMessageText(x.messageText, "\n"));
    });
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
