/**
 * Small hand-written SVG charts for docs/operations (no chart library: three shapes are all they need). Every chart is
 * a list of labelled horizontal bars, so a label is never rotated and a long one never overlaps another.
 */

const FONT = "font-family=\"system-ui, -apple-system, Segoe UI, sans-serif\""
const LABEL_W = 360
const PLOT_W = 380
const ROW_H = 24
const TOP = 46
const WIDTH = LABEL_W + PLOT_W + 90

const escape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")
export const formatNumber = (n: number): string =>
  n >= 100 ? Math.round(n).toLocaleString("en-US") : n >= 10 ? n.toFixed(1) : n.toFixed(2)

const frame = (title: string, rows: number, legend: ReadonlyArray<readonly [string, string]>, body: string) => {
  const height = TOP + rows * ROW_H + 40
  const keys = legend.map(([color, name], i) =>
    `<rect x="${LABEL_W + i * 110}" y="24" width="12" height="12" fill="${color}"/><text x="${LABEL_W + 16 + i * 110}" y="34" font-size="12">${escape(name)}</text>`).join("")
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" ${FONT}>\n` +
    `<rect width="100%" height="100%" fill="#fff"/>\n` +
    `<text x="8" y="18" font-size="14" font-weight="600">${escape(title)}</text>\n${keys}\n${body}</svg>\n`
}

const label = (i: number, text: string) =>
  `<text x="${LABEL_W - 8}" y="${TOP + i * ROW_H + 15}" font-size="12" text-anchor="end">${escape(text)}</text>`

/** A logarithmic axis over whole decades covering the values. */
const logAxis = (values: ReadonlyArray<number>, rows: number, unit: string) => {
  const lo = Math.floor(Math.log10(Math.min(...values)))
  const hi = Math.ceil(Math.log10(Math.max(...values)))
  const x = (v: number) => LABEL_W + ((Math.log10(v) - lo) / Math.max(1, hi - lo)) * PLOT_W
  const bottom = TOP + rows * ROW_H
  const ticks = Array.from({ length: hi - lo + 1 }, (_, k) => 10 ** (lo + k)).map((v) =>
    `<line x1="${x(v).toFixed(1)}" y1="${TOP - 4}" x2="${x(v).toFixed(1)}" y2="${bottom}" stroke="#ddd"/>` +
    `<text x="${x(v).toFixed(1)}" y="${bottom + 16}" font-size="11" text-anchor="middle" fill="#555">${formatNumber(v)}</text>`).join("")
  return { x, grid: ticks + `<text x="${LABEL_W + PLOT_W / 2}" y="${bottom + 32}" font-size="11" text-anchor="middle" fill="#555">${escape(unit)} (log scale)</text>` }
}

export interface Bar {
  readonly label: string
  readonly value: number
}

/** One bar per row on a log scale, the value written after it. */
export const barChart = (title: string, unit: string, bars: ReadonlyArray<Bar>, color = "#3b6ea8"): string => {
  const { x, grid } = logAxis(bars.map((b) => b.value), bars.length, unit)
  const rows = bars.map((b, i) => {
    const y = TOP + i * ROW_H + 4
    const w = Math.max(1, x(b.value) - LABEL_W)
    return label(i, b.label) + `<rect x="${LABEL_W}" y="${y}" width="${w.toFixed(1)}" height="${ROW_H - 8}" fill="${color}"/>` +
      `<text x="${(LABEL_W + w + 4).toFixed(1)}" y="${y + 12}" font-size="11">${formatNumber(b.value)}</text>`
  }).join("\n")
  return frame(title, bars.length, [], grid + "\n" + rows + "\n")
}

export interface Percentiles {
  readonly label: string
  readonly p50: number
  readonly p95: number
  readonly p99: number
}

const SHADES = { p99: "#c6d7ea", p95: "#7fa6d0", p50: "#2f5d8f" } as const

/** p50, p95 and p99 of each row drawn over each other on a log scale (p99 the longest, lightest). */
export const percentileChart = (title: string, unit: string, rows: ReadonlyArray<Percentiles>): string => {
  const { x, grid } = logAxis(rows.flatMap((r) => [r.p50, r.p99]), rows.length, unit)
  const body = rows.map((r, i) => {
    const y = TOP + i * ROW_H + 4
    const bar = (v: number, color: string, inset: number) =>
      `<rect x="${LABEL_W}" y="${y + inset}" width="${Math.max(1, x(v) - LABEL_W).toFixed(1)}" height="${ROW_H - 8 - 2 * inset}" fill="${color}"/>`
    return label(i, r.label) + bar(r.p99, SHADES.p99, 0) + bar(r.p95, SHADES.p95, 2) + bar(r.p50, SHADES.p50, 4) +
      `<text x="${(x(r.p99) + 4).toFixed(1)}" y="${y + 12}" font-size="11">${formatNumber(r.p50)} / ${formatNumber(r.p95)} / ${formatNumber(r.p99)}</text>`
  }).join("\n")
  return frame(title, rows.length, [[SHADES.p50, "p50"], [SHADES.p95, "p95"], [SHADES.p99, "p99"]], grid + "\n" + body + "\n")
}

export interface Stack {
  readonly label: string
  readonly parts: ReadonlyArray<number>
}

const PALETTE = ["#2f5d8f", "#e08a2c", "#4f9a5b", "#9b59b6", "#888"]

/** Stacked bars on a linear scale: each row's parts in the order of `names`, the total after it. */
export const stackedChart = (title: string, unit: string, names: ReadonlyArray<string>, rows: ReadonlyArray<Stack>): string => {
  const max = Math.max(...rows.map((r) => r.parts.reduce((a, b) => a + b, 0)))
  const step = max > 5 ? 2 : max > 2 ? 1 : 0.5
  const top = Math.ceil(max / step) * step
  const x = (v: number) => (v / top) * PLOT_W
  const bottom = TOP + rows.length * ROW_H
  const ticks = Array.from({ length: Math.round(top / step) + 1 }, (_, k) => k * step).map((v) =>
    `<line x1="${(LABEL_W + x(v)).toFixed(1)}" y1="${TOP - 4}" x2="${(LABEL_W + x(v)).toFixed(1)}" y2="${bottom}" stroke="#ddd"/>` +
    `<text x="${(LABEL_W + x(v)).toFixed(1)}" y="${bottom + 16}" font-size="11" text-anchor="middle" fill="#555">${v}</text>`).join("") +
    `<text x="${LABEL_W + PLOT_W / 2}" y="${bottom + 32}" font-size="11" text-anchor="middle" fill="#555">${escape(unit)}</text>`
  const body = rows.map((r, i) => {
    const y = TOP + i * ROW_H + 4
    let at = LABEL_W
    const segments = r.parts.map((p, k) => {
      const rect = `<rect x="${at.toFixed(1)}" y="${y}" width="${x(p).toFixed(1)}" height="${ROW_H - 8}" fill="${PALETTE[k % PALETTE.length]}"/>`
      at += x(p)
      return rect
    }).join("")
    return label(i, r.label) + segments +
      `<text x="${(at + 4).toFixed(1)}" y="${y + 12}" font-size="11">${formatNumber(r.parts.reduce((a, b) => a + b, 0))}</text>`
  }).join("\n")
  return frame(title, rows.length, names.map((n, k) => [PALETTE[k % PALETTE.length]!, n] as const), ticks + "\n" + body + "\n")
}
