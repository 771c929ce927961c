#!/usr/bin/env node
import { runCommandLine } from "./program.js";

// `georefresh urls … | head` closes the pipe early: that is not an error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

process.exitCode = await runCommandLine(process.argv.slice(2));
