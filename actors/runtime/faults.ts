/**
 * Fault injection for tests: a worker started with GEP_FAULT_CRASH_AFTER_COMMIT_KEY dies (SIGKILL) right after
 * committing a group holding a message of that actor key and before acking it, the window the inbox exists for.
 * Unset in any real deployment.
 */
const CRASH_AFTER_COMMIT = process.env.GEP_FAULT_CRASH_AFTER_COMMIT_KEY

export const crashAfterCommit = (keys: ReadonlyArray<string>): void => {
  if (CRASH_AFTER_COMMIT !== undefined && keys.includes(CRASH_AFTER_COMMIT)) process.kill(process.pid, "SIGKILL")
}
