/**
 * The README's report screenshot: `npx tsx scripts/report-screenshot.ts REPORT.html OUT.png` renders a report
 * written by `georefresh report` in Debian's chromium (headless) and keeps the first 1100 × 1000 pixels.
 */
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";
import { chromium } from "playwright-core";

const [html, png] = process.argv.slice(2);
if (!html || !png) throw new Error("usage: tsx scripts/report-screenshot.ts REPORT.html OUT.png");
const browser = await chromium.launch({
  executablePath: process.env.GEOREFRESH_CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 1000 } });
  await page.goto(pathToFileURL(resolve(html)).href);
  await page.screenshot({ path: png });
} finally {
  await browser.close();
}
