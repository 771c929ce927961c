// Writes README's "Exit codes" table from the one table in src/cli/exit-codes.ts (a test fails when they drift).
import { readFileSync, writeFileSync } from "node:fs";
import { exitCodesMarkdown } from "../src/cli/exit-codes.js";

const README = new URL("../README.md", import.meta.url);
const text = readFileSync(README, "utf8");
const block = /(<!-- exit-codes:begin[^>]*-->\n)[\s\S]*?(<!-- exit-codes:end -->)/;
if (!block.test(text)) throw new Error("README.md has no exit-codes:begin / exit-codes:end markers");
writeFileSync(
  README,
  text.replace(block, (_, begin: string, end: string) => `${begin}${exitCodesMarkdown()}\n${end}`),
);
console.log("README.md: exit codes written");
