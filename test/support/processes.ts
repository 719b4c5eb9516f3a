import { spawn, type ChildProcess } from "node:child_process"
import { fileURLToPath } from "node:url"
import type { AppConfigShape } from "../../core/config/AppConfig.ts"
import { freePort } from "./platform.ts"

const CLI = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url))

export interface WorkerProcess {
  readonly child: ChildProcess
  readonly stderr: () => string
  readonly exited: Promise<number | null>
  readonly stop: () => Promise<void>
}

export interface IngressProcess extends WorkerProcess {
  readonly baseUrl: string
}

/** Where a process runs: the host's network (the default), or a network namespace of a test's own (test/support/netns.ts). */
export interface Placement {
  readonly netns: string
  /** The namespace's address its HTTP port answers on, from the host. */
  readonly address: string
}

export interface SpawnOptions {
  readonly placement?: Placement | undefined
  /** The CLI to run: this checkout's by default, another release's (a worktree) for upgrade tests. */
  readonly cli?: string | undefined
}

/**
 * `gep serve --role <role>` on the given configuration, as operators run it, once its /readyz answers (and, for a
 * worker, it logged its start). A loaded machine (the fault tests run beside other work) can take many seconds to load
 * and start a process, hence the minute; a process that exits (a signal included) before that fails at once.
 */
const spawnRole = async (
  role: "worker" | "ingress", config: AppConfigShape, roleEnv: Record<string, string>, env: Record<string, string>, options: SpawnOptions
) => {
  const { placement } = options
  const port = await freePort()
  const command = [process.execPath, options.cli ?? CLI, "serve", "--role", role]
  // `ip netns exec` execs the command in place: the child's pid is the platform's, so signals reach it directly.
  const [file, ...args] = placement === undefined ? command : ["ip", "netns", "exec", placement.netns, ...command]
  const child = spawn(file!, args, {
    env: {
      ...process.env,
      DATABASE_URL: config.databaseUrl,
      NATS_URL: config.natsUrl,
      GEP_NAMESPACE: config.namespace,
      GEP_PARTITIONS: String(config.partitions),
      GEP_DB_POOL_SIZE: String(config.dbPoolSize),
      ...roleEnv,
      PORT: String(port),
      GEP_LOG_LEVEL: "info",
      ...env
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let err = ""
  child.stderr!.on("data", (d) => (err += d.toString()))
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code, signal) => resolve(signal ? 128 : code)))
  const baseUrl = `http://${placement?.address ?? "127.0.0.1"}:${port}`
  const started = Date.now()
  // Each probe has its own deadline, as an orchestrator's has: a connection the process accepts while still starting
  // must not hold the wait forever.
  const ready = () => fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(2_000) })
    .then((r) => r.ok && (role !== "worker" || err.includes("worker started")), () => false)
  while (!(await ready())) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${role} exited early (${child.exitCode ?? child.signalCode}): ${err}`)
    if (Date.now() - started > 60_000) throw new Error(`${role} did not start: ${err}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    baseUrl,
    child,
    stderr: () => err,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
      await exited
    }
  }
}

/** A `gep serve --role worker` process. */
/** The id a worker process logged at start ("worker started"), from its stderr. */
export const workerIdOf = (stderr: string) => /"msg":"worker started","worker_id":"([^"]+)"/.exec(stderr)?.[1]

export const spawnWorker = (config: AppConfigShape, env: Record<string, string> = {}, options: SpawnOptions = {}): Promise<IngressProcess> =>
  spawnRole("worker", config, {
    GEP_ACK_WAIT_MS: String(config.ackWaitMs),
    GEP_LEASE_TTL_MS: String(config.leaseTtlMs),
    GEP_APPLY_LANES: String(config.applyLanes),
    GEP_INBOX_RETENTION_MS: String(config.inboxRetentionMs)
  }, env, options)

/** A `gep serve --role ingress` process (its own logger, at the level given), for tests that read its log lines. */
export const spawnIngress = (config: AppConfigShape, env: Record<string, string> = {}, options: SpawnOptions = {}): Promise<IngressProcess> =>
  spawnRole("ingress", config, { GEP_RATE_LIMIT_PER_MINUTE: String(config.defaultRateLimitPerMinute) }, env, options)

/**
 * Kills one of the workers (chosen at random) with SIGKILL every `everyMs` and puts a fresh one in its place, until
 * stopped: the fault tests' steady rhythm of worker deaths. A fresh worker takes seconds to start (many on a loaded
 * machine), so the next death does not wait for it: the rhythm holds however slow starts are, where waiting for each
 * start let a fast run end after one death. One worker is always left running (a victim is never a slot still being
 * replaced, nor the last one up). `stop` returns once every replacement has started.
 */
export const killOneEvery = (workers: Array<WorkerProcess>, everyMs: number, respawn: () => Promise<WorkerProcess>) => {
  let kills = 0
  let stopping = false
  const replacing = new Set<number>()
  const replacements: Array<Promise<void>> = []
  const loop = (async () => {
    while (!stopping) {
      await new Promise((r) => setTimeout(r, everyMs))
      if (stopping) break
      const up = workers.map((_, i) => i).filter((i) => !replacing.has(i))
      if (up.length <= 1) continue
      const victim = up[Math.floor(Math.random() * up.length)]!
      workers[victim]!.child.kill("SIGKILL")
      kills++
      replacing.add(victim)
      replacements.push(respawn().then((w) => {
        workers[victim] = w
        replacing.delete(victim)
      }))
    }
  })()
  return {
    kills: () => kills,
    stop: async () => {
      stopping = true
      await loop
      await Promise.all(replacements)
    }
  }
}
