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
 * long as the partition lasts (test/chaos/natsPeers.chaos.ts). Stream info is answered through the stream's leader,
 * stream names through the JetStream meta leader; a few probes in a row with either unanswered (timeout, no
 * responders, "temporarily unavailable") move the connection to another server of its pool: the pool is set to the
 * others (a plain forced reconnect dialled the same server again; the cluster's gossip adds it back once it rejoins).
 * With one server there is nowhere to go: nothing is done. Any other answer (the stream not created yet) says
 * JetStream is reachable.
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
    // Neither may end the probe: a pool refused (no valid entry) stays as it was, a reconnect refused (the connection
    // draining at shutdown) is the shutdown's business.
    const pooled = yield* Effect.try(() => nc.setServers(others)).pipe(Effect.as(true), Effect.orElseSucceed(() => false))
    if (pooled) yield* Effect.tryPromise(() => nc.reconnect()).pipe(Effect.ignore)
  })
  // Both: the stream's info (its leader) and the stream names filtered to it (the meta leader). A cut node that led
  // the stream, or the meta group, may go on answering one of them from its own state for a while.
  const ask = () => Promise.all([jsm.streams.info(stream), jsm.streams.names(stream).next()])
  const probe = Effect.tryPromise({ try: ask, catch: (e) => e }).pipe(
    Effect.match({ onSuccess: () => 0, onFailure: (e) => (isNatsUnavailable(e) && !nc.isClosed() ? failures + 1 : 0) }),
    Effect.flatMap((n) => {
      failures = n
      return n >= FAILURES_TO_MOVE ? move : Effect.void
    })
  )
  return yield* Effect.repeat(probe, Schedule.spaced(PROBE_EVERY))
})
