import { code, header, table } from "../reference/markdown.ts"
import { at, CPU, CPU_PARTS, LATENCY, number, percentiles, runOf, THROUGHPUT } from "./figures.ts"
import { barChart, formatNumber, percentileChart, stackedChart } from "./svg.ts"

const CHARTS = "docs/operations/charts"

/** The run a figure comes from, as a table cell: date, commit, load at start. */
const runCell = (file: string) => {
  const r = runOf(file)
  return `[${file}](../../test/bench/results/${file}) (${r.started_at.slice(0, 10)}, ${code(r.commit)}, load ${r.load[0]})`
}

/** docs/operations/charts/*.svg and docs/operations/performance-figures.md, from the committed bench results. */
export const performanceFiles = (): ReadonlyMap<string, string> => {
  const throughput = THROUGHPUT.map((f) => ({ ...f, value: number(f.file, f.path) }))
  const latency = LATENCY.map((f) => ({ ...f, ...percentiles(f) }))
  const cpu = CPU.map((f) => {
    const parts = at(f.file, f.path) as Record<string, number> | null
    if (parts === null || parts === undefined) throw new Error(`bench figure ${f.file} ${f.path} is missing`)
    return { ...f, parts: CPU_PARTS.map((p) => number(f.file, `${f.path}.${p}`)), total: number(f.file, `${f.path}.platform_total`) }
  })

  const files = new Map<string, string>()
  files.set(`${CHARTS}/throughput.svg`, barChart("Throughput per family (one ingress, one worker, 2 shared cores)", "per second",
    throughput.map((f) => ({ label: `${f.family}: ${f.label}`, value: f.value }))))
  files.set(`${CHARTS}/latency.svg`, percentileChart("Answer latency: p50 / p95 / p99", "milliseconds",
    latency.map((f) => ({ label: `${f.family}: ${f.label}`, p50: f.p50, p95: f.p95, p99: f.p99 }))))
  files.set(`${CHARTS}/cpu-per-reservation.svg`, stackedChart("Platform CPU per reservation, by process", "CPU milliseconds per reservation",
    CPU_PARTS, cpu.map((f) => ({ label: f.label, parts: f.parts }))))

  files.set("docs/operations/performance-figures.md",
    header("Performance figures", "test/bench/results/latest-*.json (the figures chosen in test/docs/performance/figures.ts)") +
    "The numbers behind the charts of [Performance](performance.md), each with the bench result it comes from " +
    "(`npm run bench` writes them; the date, the commit measured and the machine's load average when the run started). " +
    "Everything ran on one 2-core machine shared by NATS, PostgreSQL, one ingress, one worker and the load " +
    "generator, often beside other work: compare runs with the load in mind.\n\n" +
    "## Throughput\n\n![Throughput per family](charts/throughput.svg)\n\n" +
    table(["family", "figure", "per second", "run"], throughput.map((f) => [f.family, f.label, formatNumber(f.value), runCell(f.file)])) +
    "\n\n## Latency\n\n![Latency percentiles](charts/latency.svg)\n\n" +
    table(["family", "figure", "p50 ms", "p95 ms", "p99 ms", "run"],
      latency.map((f) => [f.family, f.label, formatNumber(f.p50), formatNumber(f.p95), formatNumber(f.p99), runCell(f.file)])) +
    "\n\n## CPU per operation\n\nRecorded for the reservation phases (the bench's cost model: each process's CPU time over " +
    "the phase divided by the reservations it completed).\n\n![CPU per reservation](charts/cpu-per-reservation.svg)\n\n" +
    table(["phase", ...CPU_PARTS.map((p) => `${p} ms`), "platform ms", "run"],
      cpu.map((f) => [f.label, ...f.parts.map(formatNumber), formatNumber(f.total), runCell(f.file)])) + "\n")
  return files
}
