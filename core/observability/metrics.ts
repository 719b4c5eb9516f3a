import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client"

/** One registry per process, served at GET /metrics in the Prometheus text format. */
export const registry = new Registry()
// The process's own figures under their usual names (CPU, memory, heap spaces, event-loop delay, garbage-collection
// pauses by kind, handles): what an SRE's Node dashboards expect, and how a slow answer is told from a paused process.
collectDefaultMetrics({ register: registry })

const counter = (name: string, help: string, labelNames: ReadonlyArray<string>) =>
  new Counter({ name, help, labelNames: [...labelNames], registers: [registry] })

/** Gauges whose value is read when Prometheus scrapes (from the live worker state, or a query). */
type Collect = (set: (labels: Record<string, string | number>, value: number) => void) => void | Promise<void>
const collectors = new Map<string, Array<Collect>>()
const sampledGauge = (name: string, help: string, labelNames: ReadonlyArray<string>) =>
  new Gauge({
    name, help, labelNames: [...labelNames], registers: [registry],
    async collect() {
      this.reset()
      for (const c of collectors.get(name) ?? []) await c((labels, value) => this.set(labels, value))
    }
  })

export const Metrics = {
  httpRequests: counter("gep_http_requests_total", "HTTP requests answered, by route, method and status", ["route", "method", "status"]),
  httpDuration: new Histogram({
    name: "gep_http_request_duration_seconds", help: "HTTP request latency, by route, method and status",
    labelNames: ["route", "method", "status"], buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry]
  }),
  published: counter("gep_envelopes_published_total", "Envelopes published to the ingress stream, by actor type and outcome", ["actor", "result"]),
  processed: counter("gep_messages_processed_total", "Messages handled by workers, by actor type and result (applied, duplicate, failed, dead_lettered)", ["actor", "result"]),
  redelivered: counter("gep_messages_redelivered_total", "Messages delivered more than once, by actor type", ["actor"]),
  deferred: counter("gep_messages_deferred_total", "Messages left unacknowledged for another worker, by actor type and reason (newer_version: written by a newer release)", ["actor", "reason"]),
  webhookPayloadInvalid: counter("gep_webhook_payload_invalid_total", "Webhook commands written whose body is off its event type's schema (a bug: the body is still sent)", ["event_type"]),
  webhookAttempts: counter("gep_webhook_attempts_total", "Outbound webhook delivery attempts, by result", ["result"]),
  consumerPending: sampledGauge("gep_consumer_pending", "Messages waiting or unacked on a partition's consumer (owned partitions)", ["actor", "partition"]),
  ownedPartitions: sampledGauge("gep_owned_partitions", "Partitions this worker holds a lease on", ["actor"]),
  liveActors: sampledGauge("gep_live_actors", "Keys with a non-empty mailbox in this worker", ["actor"]),
  mailboxDepth: sampledGauge("gep_mailbox_depth", "Messages being applied or queued in this worker's mailboxes", ["actor"]),
  retained: counter("gep_rows_removed_total", "Rows the retention sweep removed, by table (inbox: envelopes that cannot arrive again; outbox: rows an earlier release marked published)", ["table"]),
  outboxBacklog: sampledGauge("gep_outbox_backlog", "Outbox rows not yet published to JetStream", []),
  admissionLimit: sampledGauge("gep_admission", "Partners' actor calls this ingress admits at once (limit) and holds now (in_flight); 1 while it takes the load for a flood (flood)", ["measure"]),
  shed: counter("gep_requests_shed_total", "Requests answered 503 at once for overload: where (edge: before the body was read; call: at the first actor call) and why (process limit, tenant share)", ["where", "reason"])
}

/** Registers how a sampled gauge reads its value; returns the function that unregisters it. */
export const sample = (gauge: { name: string } | Gauge, collect: Collect): (() => void) => {
  const name = (gauge as unknown as { name: string }).name
  const list = collectors.get(name) ?? []
  list.push(collect)
  collectors.set(name, list)
  return () => collectors.set(name, (collectors.get(name) ?? []).filter((c) => c !== collect))
}
