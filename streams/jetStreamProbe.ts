import { jetstreamManager } from "@nats-io/jetstream"
import type { NatsConnection } from "@nats-io/transport-node"
import { Effect, Schedule } from "effect"
import { isNatsUnavailable } from "./natsErrors.ts"

/** Probes failed in a row before the connection is moved: a stream's leader election (seconds) is not a partition. */
const FAILURES_TO_MOVE = 3
const PROBE_EVERY = "2 seconds"
const PROBE_TIMEOUT_MS = 2_000

/**
 * Keeps a connection on a server through which JetStream answers. A NATS node cut from its peers still answers its
 * clients' pings and even JetStream account info (it serves that alone), so the client sees a healthy connection
 * while no stream can be reached through it: an ingress there answers 503 and a worker there consumes nothing for as
 * long as the partition lasts (test/chaos/natsPeers.chaos.ts). Stream info is answered only through the stream's
 * leader, so a few unanswered in a row move the connection to another server of its pool: the pool is set to the
 * others (a plain forced reconnect dialled the same server again; the cluster's gossip adds it back once it rejoins).
 * With one server there is nowhere to go: nothing is done.
 * Any other answer (the stream not created yet) says JetStream is reachable.
 */
export const keepOnJetStream = Effect.fn("Nats.keepOnJetStream")(function*(nc: NatsConnection, stream: string) {
  const jsm = yield* Effect.promise(() => jetstreamManager(nc, { timeout: PROBE_TIMEOUT_MS, checkAPI: false }))
  let failures = 0
  const move = Effect.gen(function*() {
    failures = 0
    const current = nc.getServer()
    const others = nc.getServers().map((s) => s.listen).filter((s) => s !== current)
    if (others.length === 0) return
    yield* Effect.logWarning("JetStream unreachable through this NATS server; moving to another").pipe(
      Effect.annotateLogs({ server: current, probes_failed: FAILURES_TO_MOVE })
    )
    nc.setServers(others)
    yield* Effect.promise(() => nc.reconnect())
  })
  const probe = Effect.tryPromise({ try: () => jsm.streams.info(stream), catch: (e) => e }).pipe(
    Effect.match({ onSuccess: () => 0, onFailure: (e) => (isNatsUnavailable(e) && !nc.isClosed() ? failures + 1 : 0) }),
    Effect.flatMap((n) => {
      failures = n
      return n >= FAILURES_TO_MOVE ? move : Effect.void
    })
  )
  return yield* Effect.repeat(probe, Schedule.spaced(PROBE_EVERY))
})
