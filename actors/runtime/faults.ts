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
 * Fault injection for the send path's chaos tests, by probability per attempt (unset in any real deployment):
 * - GEP_FAULT_CRASH_BEFORE_SEND: the worker dies (SIGKILL) with this attempt recorded and its provider call not made.
 *   Other attempts of the process are let finish first (no new call starts, calls under way are answered and
 *   recorded), so the crash tests exactly the record-before-send window and nothing else.
 * - GEP_FAULT_CRASH_AFTER_SEND: the worker dies right after a provider answered, with whatever else is in flight.
 */
const SEND_FAULTS = {
  before_send: Number(process.env.GEP_FAULT_CRASH_BEFORE_SEND ?? 0),
  after_send: Number(process.env.GEP_FAULT_CRASH_AFTER_SEND ?? 0)
}
const fires = (p: number) => p > 0 && Math.random() < p

let inFlight = 0
let dying = false
const never = new Promise<never>(() => {})

/** Before a provider call: may kill the process (see above); with a crash pending, no new call starts. */
export const beforeSend = async (): Promise<void> => {
  if (dying) return never
  if (!fires(SEND_FAULTS.before_send)) {
    if (SEND_FAULTS.before_send > 0) inFlight++
    return
  }
  dying = true
  while (inFlight > 0) await new Promise((r) => setTimeout(r, 1))
  process.kill(process.pid, "SIGKILL")
  return never
}

/** After the provider answered (maybe killing the process there), and again once the outcome is recorded. */
export const afterSend = (): void => {
  if (fires(SEND_FAULTS.after_send)) process.kill(process.pid, "SIGKILL")
}
export const sendRecorded = (): void => {
  if (SEND_FAULTS.before_send > 0) inFlight--
}
