/**
 * CPU profiles of the spawned ingress and worker for chosen phases only: the processes run with
 * `--inspect=127.0.0.1:0`, and the bench drives the V8 sampling profiler over the inspector protocol
 * (Profiler.start / Profiler.stop), so start-up and idle time never pollute the profile. The profile is saved as a
 * `.cpuprofile` (open it in Chrome DevTools or speedscope) and summarised: top self-time functions, self time per
 * module (package or project folder), and inclusive time of the project's own functions.
 */
import { writeFileSync } from "node:fs"
import { ROOT } from "./platform.ts"
import { round } from "./load.ts"

interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
}

interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
  readonly hitCount?: number
  readonly children?: ReadonlyArray<number>
}

export interface CpuProfile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly startTime: number
  readonly endTime: number
  readonly samples?: ReadonlyArray<number>
}

/** A minimal Chrome DevTools Protocol session over the global WebSocket. */
export class Inspector {
  private readonly ws: WebSocket
  private nextId = 1
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>()

  private constructor(ws: WebSocket) {
    this.ws = ws
    ws.addEventListener("message", (event) => {
      const msg = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: { message: string } }
      if (msg.id === undefined) return
      const w = this.waiting.get(msg.id)
      if (!w) return
      this.waiting.delete(msg.id)
      if (msg.error) w.reject(new Error(msg.error.message))
      else w.resolve(msg.result)
    })
  }

  static connect(url: string): Promise<Inspector> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url)
      ws.addEventListener("open", () => resolve(new Inspector(ws)), { once: true })
      ws.addEventListener("error", () => reject(new Error(`inspector ${url} unreachable`)), { once: true })
    })
  }

  send<A = unknown>(method: string, params: Record<string, unknown> = {}): Promise<A> {
    const id = this.nextId++
    return new Promise<A>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject })
      this.ws.send(JSON.stringify({ id, method, params }))
    })
  }

  close() {
    this.ws.close()
  }
}

/** Starts sampling (1 ms interval) on a process; `stop` returns its profile. */
export const startProfile = async (inspectorUrl: string) => {
  const session = await Inspector.connect(inspectorUrl)
  await session.send("Profiler.enable")
  await session.send("Profiler.setSamplingInterval", { interval: 1000 })
  await session.send("Profiler.start")
  return {
    stop: async (): Promise<CpuProfile> => {
      const { profile } = await session.send<{ profile: CpuProfile }>("Profiler.stop")
      await session.send("Profiler.disable").catch(() => undefined)
      session.close()
      return profile
    }
  }
}

const projectPrefix = `file://${ROOT}`

/** Where a frame lives: npm package, project folder, node internals, or a V8 pseudo-frame. */
export const moduleOf = (frame: CallFrame): string => {
  const { url, functionName } = frame
  if (url === "") return functionName.startsWith("(") ? functionName : "(native / builtin)"
  const nm = url.lastIndexOf("/node_modules/")
  if (nm >= 0) {
    const rest = url.slice(nm + "/node_modules/".length).split("/")
    return rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!
  }
  if (url.startsWith("node:")) {
    const parts = url.slice(5).split("/")
    return `node:${parts.slice(0, Math.min(2, parts.length - 1) || 1).join("/")}`
  }
  if (url.startsWith(projectPrefix)) {
    const rel = url.slice(projectPrefix.length).split("/")
    return rel.length > 2 ? rel.slice(0, 2).join("/") : rel.join("/")
  }
  return url
}

const where = (frame: CallFrame) => {
  const { url } = frame
  if (url === "") return ""
  const nm = url.lastIndexOf("/node_modules/")
  const short = nm >= 0 ? url.slice(nm + "/node_modules/".length) : url.startsWith(projectPrefix) ? url.slice(projectPrefix.length) : url
  return `${short}:${frame.lineNumber + 1}`
}

/** Libraries and layers whose inclusive share (time in them or below them) says what a process spends its CPU on. */
const CATEGORIES: ReadonlyArray<readonly [string, (f: CallFrame) => boolean]> = [
  ["Effect Schema (decode / encode)", (f) => /\/effect\/dist\/(Schema|internal\/schema\/)/.test(f.url)],
  ["Effect HttpApi / router / middleware", (f) => /\/effect\/dist\/http(-api)?\//.test(f.url)],
  ["node:http server", (f) => f.url.startsWith("node:_http")],
  // A write on a loopback socket also wakes the reader (PostgreSQL, nats-server, the client): on busy cores the writer
  // often loses its CPU inside the call, and the profiler still counts that wait here.
  ["socket writes (any connection)", (f) => f.url === "" && ["writeBuffer", "writev", "writeUtf8String", "writeLatin1String"].includes(f.functionName)],
  ["libphonenumber-js", (f) => f.url.includes("/libphonenumber-js/")],
  ["msgpackr", (f) => f.url.includes("/msgpackr/")],
  ["NATS client", (f) => f.url.includes("/@nats-io/")],
  ["postgres.js", (f) => f.url.includes("/postgres/src/")],
  ["prom-client (metrics)", (f) => f.url.includes("/prom-client/")],
  ["identity resolution (actors/shared)", (f) => f.url.includes("/actors/shared/")],
  ["reservation actor (actors/reservation)", (f) => f.url.includes("/actors/reservation/")]
]

export interface ProfileSummary {
  readonly file: string
  readonly duration_s: number
  readonly samples: number
  /** Share of the wall time the process was on a CPU (not idle): ~ cores used by its main thread. */
  readonly busy_share: number
  readonly gc_share_of_busy: number
  readonly top_self: ReadonlyArray<{ fn: string; where: string; pct: number }>
  readonly by_module: ReadonlyArray<{ module: string; pct: number }>
  readonly project_inclusive: ReadonlyArray<{ fn: string; where: string; pct: number }>
  /** Inclusive share of busy samples per library / layer (overlapping: a sample counts for each one on its stack). */
  readonly categories: ReadonlyArray<{ category: string; pct: number }>
}

/** Summary of a profile; percentages are of busy samples (idle excluded). */
export const summarise = (profile: CpuProfile, file: string, top = 20): ProfileSummary => {
  writeFileSync(file, JSON.stringify(profile))
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const hits = new Map<number, number>()
  if (profile.samples) for (const s of profile.samples) hits.set(s, (hits.get(s) ?? 0) + 1)
  else for (const n of profile.nodes) hits.set(n.id, n.hitCount ?? 0)
  let total = 0, idle = 0, gc = 0
  const self = new Map<string, { fn: string; where: string; n: number }>()
  const modules = new Map<string, number>()
  const inclusive = new Map<string, { fn: string; where: string; n: number }>()
  const categories = new Map<string, number>()
  for (const [id, n] of hits) {
    const node = byId.get(id)
    if (!node || n === 0) continue
    total += n
    const f = node.callFrame
    if (f.functionName === "(idle)") {
      idle += n
      continue
    }
    if (f.functionName === "(garbage collector)") gc += n
    const key = `${f.functionName}|${f.url}|${f.lineNumber}`
    const e = self.get(key) ?? { fn: f.functionName || "(anonymous)", where: where(f), n: 0 }
    e.n += n
    self.set(key, e)
    const m = moduleOf(f)
    modules.set(m, (modules.get(m) ?? 0) + n)
    // Inclusive time of project functions and categories: each once per stack.
    const seen = new Set<string>()
    const inCategory = new Set<string>()
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const cf = byId.get(cur)!.callFrame
      for (const [name, test] of CATEGORIES) if (!inCategory.has(name) && test(cf)) inCategory.add(name)
      if (!cf.url.startsWith(projectPrefix) || cf.url.includes("/node_modules/")) continue
      const k = `${cf.functionName}|${cf.url}|${cf.lineNumber}`
      if (seen.has(k)) continue
      seen.add(k)
      const ie = inclusive.get(k) ?? { fn: cf.functionName || "(anonymous)", where: where(cf), n: 0 }
      ie.n += n
      inclusive.set(k, ie)
    }
    for (const name of inCategory) categories.set(name, (categories.get(name) ?? 0) + n)
  }
  const busy = Math.max(1, total - idle)
  const pct = (n: number) => round((100 * n) / busy, 1)
  const seconds = (profile.endTime - profile.startTime) / 1e6
  return {
    file: file.startsWith(ROOT) ? file.slice(ROOT.length) : file,
    duration_s: round(seconds),
    samples: total,
    busy_share: round((total - idle) / Math.max(1, total), 3),
    gc_share_of_busy: round(gc / busy, 3),
    top_self: [...self.values()].sort((a, b) => b.n - a.n).slice(0, top).map((e) => ({ fn: e.fn, where: e.where, pct: pct(e.n) })),
    by_module: [...modules.entries()].sort((a, b) => b[1] - a[1]).slice(0, top).map(([module, n]) => ({ module, pct: pct(n) })),
    project_inclusive: [...inclusive.values()].sort((a, b) => b.n - a.n).slice(0, top).map((e) => ({ fn: e.fn, where: e.where, pct: pct(e.n) })),
    categories: [...categories.entries()].sort((a, b) => b[1] - a[1]).map(([category, n]) => ({ category, pct: pct(n) }))
  }
}

const mb = (bytes: number) => round(bytes / 2 ** 20, 1)

/**
 * `process.memoryUsage()` of an inspected process, optionally after a full garbage collection
 * (HeapProfiler.collectGarbage): how much of its RSS is live JavaScript data, and how much the heap just kept.
 */
export const inspectMemory = async (inspectorUrl: string, collectGarbage: boolean) => {
  const session = await Inspector.connect(inspectorUrl)
  try {
    if (collectGarbage) {
      await session.send("HeapProfiler.enable")
      await session.send("HeapProfiler.collectGarbage")
      await session.send("HeapProfiler.disable")
    }
    const { result } = await session.send<{ result: { value: string } }>("Runtime.evaluate", {
      expression: "JSON.stringify(process.memoryUsage())",
      returnByValue: true
    })
    const m = JSON.parse(result.value) as { rss: number; heapTotal: number; heapUsed: number; external: number; arrayBuffers: number }
    return { rss_mb: mb(m.rss), heap_total_mb: mb(m.heapTotal), heap_used_mb: mb(m.heapUsed), external_mb: mb(m.external), array_buffers_mb: mb(m.arrayBuffers) }
  } finally {
    session.close()
  }
}
