import { registry } from "../../../core/observability/metrics.ts"
import { code, header, table } from "./markdown.ts"

interface Registered {
  readonly name: string
  readonly help: string
  readonly labelNames?: ReadonlyArray<string>
  readonly upperBounds?: ReadonlyArray<number>
}

/** docs/reference/metrics.md: every metric of the process's prom-client registry (core/observability/metrics.ts). */
export const metricsPage = (): string => {
  // The objects registered, read without collecting (a sampled gauge's collect would query the live worker).
  const metrics = registry.getMetricsAsArray() as unknown as ReadonlyArray<Registered & { constructor: { name: string } }>
  const ours = metrics.filter((m) => m.name.startsWith("gep_")).sort((a, b) => a.name.localeCompare(b.name))
  const defaults = metrics.filter((m) => !m.name.startsWith("gep_"))
  const prefixes = [...new Set(defaults.map((m) => m.name.split("_")[0]))].sort()
  const rows = ours.map((m) => [
    code(m.name),
    m.constructor.name.toLowerCase(),
    (m.labelNames ?? []).map(code).join(", "),
    m.help + (m.upperBounds ? ` (buckets, seconds: ${m.upperBounds.join(", ")})` : "")
  ])
  return header("Metrics", "the prom-client registry of core/observability/metrics.ts") +
    "Every process (ingress and worker alike) serves its metrics at `GET /metrics` in the Prometheus text format. " +
    "Its gauges are read from the live process (or a query) when Prometheus scrapes; what to alert on is in " +
    "[Observability](../operations/observability.md).\n\n" +
    table(["metric", "type", "labels", "help"], rows) + "\n\n" +
    `Besides these, prom-client's default metrics of the process (${prefixes.map((p) => code(`${p}_*`)).join(", ")}): ` +
    "CPU, memory, heap spaces, event-loop delay, garbage-collection pauses by kind, handles.\n"
}
