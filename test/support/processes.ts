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

/** A `gep serve --role worker` process on the given configuration, as operators run it. */
export const spawnWorker = async (config: AppConfigShape, env: Record<string, string> = {}): Promise<WorkerProcess> => {
  const port = await freePort()
  const child = spawn(process.execPath, [CLI, "serve", "--role", "worker"], {
    env: {
      ...process.env,
      DATABASE_URL: config.databaseUrl,
      NATS_URL: config.natsUrl,
      GEP_NAMESPACE: config.namespace,
      GEP_PARTITIONS: String(config.partitions),
      GEP_ACK_WAIT_MS: String(config.ackWaitMs),
      GEP_LEASE_TTL_MS: String(config.leaseTtlMs),
      GEP_DB_POOL_SIZE: String(config.dbPoolSize),
      GEP_APPLY_LANES: String(config.applyLanes),
      PORT: String(port),
      GEP_LOG_LEVEL: "info",
      ...env
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let err = ""
  child.stderr!.on("data", (d) => (err += d.toString()))
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code, signal) => resolve(signal ? 128 : code)))
  const started = Date.now()
  const ready = () => fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok && err.includes("worker started"), () => false)
  while (!(await ready())) {
    if (child.exitCode !== null) throw new Error(`worker exited early: ${err}`)
    // A loaded machine (the fault tests run beside other work) can take many seconds to load and start a process.
    if (Date.now() - started > 60_000) throw new Error(`worker did not start: ${err}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    child,
    stderr: () => err,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
      await exited
    }
  }
}

export interface IngressProcess {
  readonly baseUrl: string
  readonly child: ChildProcess
  readonly stderr: () => string
  readonly stop: () => Promise<void>
}

/** A `gep serve --role ingress` process (its own logger, at the level given), for tests that read its log lines. */
export const spawnIngress = async (config: AppConfigShape, env: Record<string, string> = {}): Promise<IngressProcess> => {
  const port = await freePort()
  const child = spawn(process.execPath, [CLI, "serve", "--role", "ingress"], {
    env: {
      ...process.env,
      DATABASE_URL: config.databaseUrl,
      NATS_URL: config.natsUrl,
      GEP_NAMESPACE: config.namespace,
      GEP_PARTITIONS: String(config.partitions),
      GEP_DB_POOL_SIZE: String(config.dbPoolSize),
      GEP_RATE_LIMIT_PER_MINUTE: String(config.defaultRateLimitPerMinute),
      PORT: String(port),
      GEP_LOG_LEVEL: "info",
      ...env
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let err = ""
  child.stderr!.on("data", (d) => (err += d.toString()))
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()))
  const baseUrl = `http://127.0.0.1:${port}`
  const started = Date.now()
  while (!(await fetch(`${baseUrl}/readyz`).then((r) => r.ok, () => false))) {
    if (child.exitCode !== null) throw new Error(`ingress exited early: ${err}`)
    if (Date.now() - started > 20_000) throw new Error(`ingress did not start: ${err}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    baseUrl,
    child,
    stderr: () => err,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
      await exited
    }
  }
}
