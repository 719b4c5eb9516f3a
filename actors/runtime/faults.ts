/**
 * Fault injection for tests: a worker started with GEP_FAULT_CRASH_AFTER_COMMIT_KEY dies (SIGKILL) right after
 * committing a group holding a message of that actor key and before acking it, the window the inbox exists for.
 * Unset in any real deployment.
 */
const CRASH_AFTER_COMMIT = process.env.GEP_FAULT_CRASH_AFTER_COMMIT_KEY

export const crashAfterCommit = (keys: ReadonlyArray<string>): void => {
  if (CRASH_AFTER_COMMIT !== undefined && keys.includes(CRASH_AFTER_COMMIT)) process.kill(process.pid, "SIGKILL")
}

/**
 * Fault injection for the send path's chaos test: with GEP_FAULT_CRASH_BEFORE_SEND (or _AFTER_SEND) set to a
 * probability, a worker dies (SIGKILL) that often between recording a send attempt and calling the provider (or
 * between the provider's answer and recording it). Unset in any real deployment.
 */
const SEND_FAULTS = {
  before_send: Number(process.env.GEP_FAULT_CRASH_BEFORE_SEND ?? 0),
  after_send: Number(process.env.GEP_FAULT_CRASH_AFTER_SEND ?? 0)
}

export const crashAroundSend = (point: keyof typeof SEND_FAULTS): void => {
  const p = SEND_FAULTS[point]
  if (p > 0 && Math.random() < p) process.kill(process.pid, "SIGKILL")
}
