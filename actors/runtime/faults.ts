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
 *   The rest of its batch, and the batches of the process already sending, are sent and recorded first, and no new
 *   batch starts its calls, so the crash tests exactly the record-before-send window and nothing else.
 * - GEP_FAULT_CRASH_AFTER_SEND: the worker dies right after a provider answered, with whatever else is in flight.
 */
const SEND_FAULTS = {
  before_send: Number(process.env.GEP_FAULT_CRASH_BEFORE_SEND ?? 0),
  after_send: Number(process.env.GEP_FAULT_CRASH_AFTER_SEND ?? 0)
}
const fires = (p: number) => p > 0 && Math.random() < p

let sending = 0
let dying = false
const never = new Promise<never>(() => {})

/**
 * Before a batch's provider calls: which of its `n` attempts are withheld (the worker dies once the rest is recorded,
 * see `sendsRecorded`); with a crash pending, the batch never starts its calls.
 */
export const beforeSends = async (n: number): Promise<{ readonly withheld: ReadonlyArray<boolean>; readonly dies: boolean }> => {
  if (dying) return never
  const withheld = Array.from({ length: n }, () => fires(SEND_FAULTS.before_send))
  const dies = withheld.includes(true)
  if (dies) dying = true
  if (SEND_FAULTS.before_send > 0) sending++
  return { withheld, dies }
}

/** After the provider answered (maybe killing the process there). */
export const afterSend = (): void => {
  if (fires(SEND_FAULTS.after_send)) process.kill(process.pid, "SIGKILL")
}

/** Once a batch's outcomes are recorded: the batch that withheld an attempt kills the worker when no other is sending. */
export const sendsRecorded = async (dies: boolean): Promise<void> => {
  if (SEND_FAULTS.before_send > 0) sending--
  if (!dies) return
  while (sending > 0) await new Promise((r) => setTimeout(r, 1))
  process.kill(process.pid, "SIGKILL")
  return never
}
