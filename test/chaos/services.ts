import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

const run = promisify(execFile)
const SCRIPT = fileURLToPath(new URL("../../infra/services.sh", import.meta.url))

/** Runs infra/services.sh with extra environment; returns its stdout. */
export const services = async (command: string, env: Record<string, string> = {}): Promise<string> => {
  const { stdout } = await run("bash", [SCRIPT, command], { env: { ...process.env, ...env }, timeout: 120_000 })
  return stdout.trim()
}
