/**
 * The server's pages for a browser (OGC API – Features' HTML encoding): what the JSON says, as links and tables
 * a person follows, each page linking to its JSON. Every value is escaped: a dataset's columns are anyone's text.
 */
export const escapeHtml = (v: unknown): string =>
  (typeof v === "string" ? v : typeof v === "bigint" ? v.toString() : (JSON.stringify(v) ?? "")).replace(
    /[&<>"']/g,
    (c) => `&#${c.charCodeAt(0)};`,
  );

/** Does this request want a page: ?f=html, or a browser's Accept (text/html before JSON) without ?f. */
export function wantsHtml(accept: string | undefined, f: string | null): boolean {
  if (f !== null) return f === "html";
  if (!accept) return false;
  const html = accept.indexOf("text/html");
  const json = Math.min(...["application/json", "application/geo+json"].map((t) => accept.indexOf(t) + 1 || Infinity));
  return html >= 0 && html + 1 < json;
}

export function page(title: string, body: string, json: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · georefresh</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:14px system-ui,sans-serif;margin:2em;max-width:72em}table{border-collapse:collapse}
th,td{border-bottom:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}a{color:#2563eb}</style>
</head><body><h1>${escapeHtml(title)}</h1>
${body}
<p><a href="${escapeHtml(json)}">this page as JSON</a></p></body></html>
`;
}

/** Links as a list: [href, text] pairs. */
export const linkList = (links: readonly [string, string][]): string =>
  `<ul>${links.map(([href, text]) => `<li><a href="${escapeHtml(href)}">${escapeHtml(text)}</a></li>`).join("")}</ul>`;

/** Rows of properties as one table, the columns in first-seen order. */
export function propertyTable(rows: readonly Record<string, unknown>[]): string {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const head = columns.map((c) => `<th>${escapeHtml(c)}</th>`).join("");
  const body = rows
    .map((r) => `<tr>${columns.map((c) => `<td>${r[c] === undefined ? "" : escapeHtml(r[c])}</td>`).join("")}</tr>`)
    .join("\n");
  return `<table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}
