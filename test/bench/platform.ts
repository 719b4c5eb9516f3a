/**
 * The platform as an operator runs it: `gep serve --role ingress` and `gep serve --role worker` as separate Node
 * processes on a dedicated database and namespace, tenant and hotels made with the CLI. Everything made here is
 * removed by `cleanup` (processes stopped, streams deleted, database dropped).
 */
import { jetstreamManager } from "@nats-io/jetstream"
import { connect } from "@nats-io/transport-node"
import { execFile, spawn, type ChildProcess } from "node:child_process"
import { createWriteStream } from "node:fs"
import { createServer } from "node:net"
import { fileURLToPath } from "node:url"
import postgres from "postgres"

export const ROOT = fileURLToPath(new URL("../../", import.meta.url))
const CLI = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url))

export interface BenchEnv {
  readonly runId: string
  readonly natsUrl: string
  readonly databaseUrl: string
  readonly databaseName: string
  readonly namespace: string
}

export const makeEnv = (runId: string): BenchEnv => {
  const natsUrl = process.env.NATS_URL ?? "nats://127.0.0.1:4222"
  const base = new URL(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/gep")
  const databaseName = `gep_bench_${runId}`
  base.pathname = `/${databaseName}`
  return { runId, natsUrl, databaseUrl: base.toString(), databaseName, namespace: `bench${runId}` }
}

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer()
    srv.once("error", reject)
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
  })

const baseEnv = (env: BenchEnv): Record<string, string> => ({
  ...(process.env as Record<string, string>),
  DATABASE_URL: env.databaseUrl,
  NATS_URL: env.natsUrl,
  GEP_NAMESPACE: env.namespace,
  GEP_LOG_LEVEL: "warn"
})

/** One CLI command (`gep tenant create ...`): its single JSON line. */
export const gep = (env: BenchEnv, args: ReadonlyArray<string>): Promise<Record<string, unknown>> =>
  new Promise((resolve, reject) => {
    execFile(process.execPath, [CLI, ...args], { env: baseEnv(env), cwd: ROOT, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`gep ${args.join(" ")} failed: ${err.message}\n${stderr}`))
      const line = stdout.trim().split("\n").pop() ?? ""
      try {
        const parsed = JSON.parse(line) as Record<string, unknown>
        if (parsed.error) return reject(new Error(`gep ${args.join(" ")}: ${String(parsed.error)}`))
        resolve(parsed)
      } catch {
        reject(new Error(`gep ${args.join(" ")} printed no JSON: ${stdout}\n${stderr}`))
      }
    })
  })

export interface ServedProcess {
  readonly role: "ingress" | "worker"
  readonly child: ChildProcess
  readonly pid: number
  readonly port: number
  readonly baseUrl: string
  /** ws:// URL of the V8 inspector when started with profiling enabled. */
  readonly inspectorUrl: string | undefined
  readonly stderr: () => string
  readonly stop: (timeoutMs?: number) => Promise<number | null>
}

const live = new Set<ServedProcess>()
/** Every child spawned and not yet exited, tracked from the moment of spawn (a stop during start-up must reach it). */
const children = new Set<ChildProcess>()

/** `gep serve --role <role>` on a free port; resolves once /readyz answers 200. */
export const serve = async (
  env: BenchEnv,
  role: "ingress" | "worker",
  extraEnv: Record<string, string> = {},
  options: { inspect?: boolean } = {}
): Promise<ServedProcess> => {
  const port = await freePort()
  // BENCH_NODE_ARGS: V8 or Node flags for the served processes (an experiment: --trace-gc, --max-semi-space-size=64, ...)
  const nodeArgs = [...(options.inspect ? ["--inspect=127.0.0.1:0"] : []), ...(process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean)]
  const child = spawn(process.execPath, [...nodeArgs, CLI, "serve", "--role", role], {
    env: { ...baseEnv(env), PORT: String(port), ...extraEnv },
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"]
  })
  children.add(child)
  child.once("exit", () => children.delete(child))
  let err = ""
  let out = ""
  child.stderr!.on("data", (d: Buffer) => {
    if (err.length < 200_000) err += d.toString()
  })
  // What the flags make the process print (--trace-gc-nvp, ...) is kept whole, beside the run's profiles, and so are
  // its log lines (the access log: each answer's duration as the server saw it).
  if (process.env.BENCH_NODE_ARGS) {
    child.stdout!.pipe(createWriteStream(`${ROOT}test/bench/results/profiles/${env.runId}-${role}.out`))
    child.stderr!.pipe(createWriteStream(`${ROOT}test/bench/results/profiles/${env.runId}-${role}.err`))
  }
  child.stdout!.on("data", (d: Buffer) => {
    if (out.length < 100_000) out += d.toString()
  })
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code, signal) => resolve(signal ? 128 : code)))
  const baseUrl = `http://127.0.0.1:${port}`
  const started = Date.now()
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${role} exited early: ${err}`)
    if (Date.now() - started > 60_000) {
      child.kill("SIGKILL")
      throw new Error(`${role} did not become ready: ${err}`)
    }
    // Each probe has its own deadline: a connection accepted while the process is still starting must not hold the wait forever.
    const ok = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(2_000) }).then((r) => r.ok, () => false)
    if (ok && out.includes("base_url")) break
    await new Promise((r) => setTimeout(r, 100))
  }
  const inspectorUrl = /Debugger listening on (ws:\/\/\S+)/.exec(err)?.[1]
  const proc: ServedProcess = {
    role,
    child,
    pid: child.pid!,
    port,
    baseUrl,
    inspectorUrl,
    stderr: () => err,
    stop: async (timeoutMs = 20_000) => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
      const code = await exited
      clearTimeout(timer)
      live.delete(proc)
      return code
    }
  }
  live.add(proc)
  return proc
}

/** Stops every process this bench started (SIGTERM, SIGKILL after a grace period). */
export const stopAll = async () => {
  await Promise.all([...live].map((p) => p.stop(15_000)))
  // Still starting up (not in `live` yet): no graceful drain to wait for.
  for (const child of children) child.kill("SIGKILL")
}

/** Kills what is left synchronously (process exit path). */
export const killAllNow = () => {
  for (const child of children) {
    try {
      child.kill("SIGKILL")
    } catch {
      // already gone
    }
  }
}

/** Deletes the run's streams and drops its database. */
export const cleanup = async (env: BenchEnv): Promise<{ streams: Array<string>; database: string }> => {
  const deleted: Array<string> = []
  const nc = await connect({ servers: env.natsUrl.split(",") })
  try {
    const jsm = await jetstreamManager(nc)
    for await (const name of jsm.streams.names()) {
      if (name.startsWith(env.namespace)) {
        await jsm.streams.delete(name)
        deleted.push(name)
      }
    }
  } finally {
    await nc.close()
  }
  const admin = new URL(env.databaseUrl)
  admin.pathname = "/postgres"
  const sql = postgres(admin.toString(), { max: 1, onnotice: () => {} })
  try {
    await sql.unsafe(`DROP DATABASE IF EXISTS "${env.databaseName}" WITH (FORCE)`)
  } finally {
    await sql.end()
  }
  return { streams: deleted, database: env.databaseName }
}
