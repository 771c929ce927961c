const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
export { esc };

/** A sparkline of values over the dates (gaps where a date has none). */
export function sparkline(values: (number | undefined)[], label: string, width = 160, height = 26): string {
  const present = values.filter((v): v is number => v !== undefined);
  if (!present.length) return `<svg class="spark" width="${width}" height="${height}"></svg>`;
  const lo = Math.min(...present);
  const hi = Math.max(...present);
  const x = (i: number) => (values.length === 1 ? width / 2 : (i / (values.length - 1)) * (width - 4) + 2);
  const y = (v: number) => (hi === lo ? height / 2 : height - 3 - ((v - lo) / (hi - lo)) * (height - 6));
  const segments: string[] = [];
  let run: string[] = [];
  values.forEach((v, i) => {
    if (v === undefined) {
      if (run.length) segments.push(run.join(" "));
      run = [];
    } else run.push(`${x(i).toFixed(1)},${y(v).toFixed(1)}`);
  });
  if (run.length) segments.push(run.join(" "));
  const lines = segments.map((s) => `<polyline points="${s}"/>`).join("");
  return `<svg class="spark" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}"><title>${esc(label)}: ${lo.toLocaleString("en-US")} – ${hi.toLocaleString("en-US")}</title>${lines}</svg>`;
}
