import { Clock, Effect, Fiber, Schedule, type Scope } from "effect"
import type { Sql } from "../../core/db/Database.ts"
import { errorText, log } from "../../core/observability/log.ts"
import { ownerOf, slotOf } from "./assignment.ts"
import { LeaseDeadlines } from "./leaseDeadlines.ts"
import { acquire, endFormerOwner, expiredHolder, heartbeat, leave, liveWorkers, release, renew } from "./leases.ts"
import { type PartitionDeps, PartitionConsumer } from "./PartitionConsumer.ts"
import type { AnyActor } from "./Actor.ts"
import { untilDeadline } from "./untilDeadline.ts"

export interface OwnershipOptions {
  readonly workerId: string
  readonly partitions: number
  /** A lease not renewed for this long is free to take; also how long a silent worker counts as alive. */
  readonly leaseTtlMs: number
  readonly tickMs: number
  /** How long a handover or the shutdown waits for a partition to drain before leaving the rest to the next owner. */
  readonly drainLimitMs: number
  /**
   * Whether this worker's NATS connection is up. A worker cut off from NATS but not from PostgreSQL could otherwise
   * renew its leases for as long as the partition lasts while consuming nothing: its partitions would stall.
   */
  readonly natsReachable?: () => boolean
}

/** A lease statement; its failure is the caller's to log (the loops go on). */
const leases = <A>(f: () => Promise<A>) => Effect.tryPromise(f)

/**
 * Shares the partitions of every actor type among the live workers: each worker heartbeats, computes by rendezvous
 * hashing which partitions are its own, takes their leases (consuming only while it holds one), renews them, and
 * drains and releases the ones that now belong to another worker. A crashed worker's leases expire after
 * `leaseTtlMs` and its partitions are taken by the survivors on their next round.
 */
export class PartitionOwnership {
  private readonly sql: Sql
  private readonly deps: PartitionDeps
  private readonly actors: ReadonlyArray<AnyActor>
  private readonly options: OwnershipOptions
  readonly owned = new Map<string, PartitionConsumer>()
  private readonly deadlines: LeaseDeadlines<PartitionConsumer>
  private loops: ReadonlyArray<Fiber.Fiber<unknown>> = []
  private stopping = false
  private cutOff = false

  /**
   * `leaseSql`: a pool of its own for heartbeats and leases, so renewals never queue behind the lanes' transactions
   * (which may all be waiting on row locks): a worker whose lanes are stuck still renews, hands over and stops.
   */
  constructor(deps: PartitionDeps, actors: ReadonlyArray<AnyActor>, options: OwnershipOptions, leaseSql: Sql) {
    this.sql = leaseSql
    this.deps = deps
    this.actors = actors
    this.options = options
    this.deadlines = new LeaseDeadlines(options.leaseTtlMs)
  }

  /**
   * Forks three loops into the caller's scope: renewal (heartbeat + lease renewal, every third of the TTL), balancing
   * (take and hand over partitions) and the watchdog. Renewal and balancing are separate so a slow takeover (NATS or
   * PostgreSQL struggling) never delays renewals and costs the partitions already held. Readiness does not wait for
   * partitions. The watchdog abandons a partition as soon as its lease may have lapsed, even while a renewal hangs on a
   * database that stopped answering. A round of renewal or balancing is never cut short: `stop` waits for it.
   */
  readonly start: Effect.Effect<void, never, Scope.Scope> = Effect.suspend(() => {
    const { leaseTtlMs, tickMs } = this.options
    const every = (round: Effect.Effect<void>, ms: number) => Effect.forkScoped(Effect.repeat(Effect.uninterruptible(round), Schedule.spaced(ms)))
    return Effect.all([
      every(this.renewAll, Math.max(100, Math.floor(leaseTtlMs / 3))),
      every(this.balance, tickMs),
      every(this.watch, Math.max(50, Math.floor(leaseTtlMs / 20)))
    ]).pipe(Effect.map((fibers) => void (this.loops = fibers)))
  })

  private readonly watch = Effect.map(Clock.currentTimeMillis, (now) => {
    for (const c of this.deadlines.lapsed(now)) {
      if (this.owned.get(slotOf(c.fence.actor, c.fence.partition)) !== c) continue
      log("warn", "lease lapsed unrenewed; abandoning partition", { slot: slotOf(c.fence.actor, c.fence.partition), worker_id: this.options.workerId })
      this.lost(c)
    }
  })

  /**
   * False while NATS is unreachable: then neither heartbeat nor leases are renewed, so the membership forgets this
   * worker and its leases lapse, and the other workers take its partitions; nothing is taken either. Once NATS is
   * back, the renewal finds which leases were taken meanwhile (their consumers are abandoned) and the balancing gives
   * this worker its share again.
   */
  private reachable(): boolean {
    const up = this.options.natsReachable?.() ?? true
    if (up === this.cutOff) {
      this.cutOff = !up
      log(up ? "info" : "warn", up ? "NATS reachable again: renewing and balancing" : "NATS unreachable: leases and heartbeat left to lapse for other workers",
        { worker_id: this.options.workerId, partitions: this.owned.size })
    }
    return up
  }

  private readonly renewAll: Effect.Effect<void> = Effect.suspend(() => {
    if (this.stopping || !this.reachable()) return Effect.void
    const { workerId, leaseTtlMs } = this.options
    const self = this
    return Effect.gen(function*() {
      yield* leases(() => heartbeat(self.sql, self.deps.namespace, workerId))
      const consumers = [...self.owned.values()]
      const askedAt = yield* Clock.currentTimeMillis
      const held = yield* leases(() => renew(self.sql, consumers.map((c) => c.fence), leaseTtlMs))
      for (const c of consumers) {
        const slot = slotOf(c.fence.actor, c.fence.partition)
        if (self.owned.get(slot) !== c) continue
        if (held.has(slot)) {
          self.deadlines.held(c, askedAt)
        } else {
          log("warn", "lease not renewed; abandoning partition", { slot, worker_id: workerId })
          self.lost(c)
        }
      }
    }).pipe(Effect.catch((e) => Effect.sync(() => log("warn", "lease renewal failed", { worker_id: workerId, error: errorText(e.cause) }))))
  })

  private lost = (c: PartitionConsumer): void => {
    const slot = slotOf(c.fence.actor, c.fence.partition)
    if (this.owned.get(slot) === c) this.owned.delete(slot)
    this.deadlines.forget(c)
    Effect.runFork(c.stop("abandon"))
  }

  private readonly balance: Effect.Effect<void> = Effect.suspend(() => {
    if (this.stopping || !this.reachable()) return Effect.void
    const { workerId, partitions, leaseTtlMs } = this.options
    const self = this
    return Effect.gen(function*() {
      const workers = yield* leases(() => liveWorkers(self.sql, self.deps.namespace, leaseTtlMs))
      if (!workers.includes(workerId)) workers.push(workerId)
      let taken = 0
      let handedOver = 0
      for (const actor of self.actors) {
        for (let p = 0; p < partitions && !self.stopping; p++) {
          const slot = slotOf(actor.protocol.name, p)
          const mine = ownerOf(slot, workers) === workerId
          const current = self.owned.get(slot)
          if (mine && !current) {
            if (yield* self.take(actor, p).pipe(Effect.catch((e) => self.moveFailed(slot, e.cause)))) taken++
          } else if (!mine && current) {
            if (yield* self.handOver(slot, current).pipe(Effect.as(true), Effect.catch((e) => self.moveFailed(slot, e.cause)))) handedOver++
          }
        }
      }
      // One line per round that moved anything (each partition's own line is at debug level): a start takes every
      // partition of every actor type at once, and a line each buried what a person starting the platform must read.
      if (taken + handedOver > 0) {
        log("info", "partitions rebalanced", { worker_id: workerId, taken, handed_over: handedOver, owned: self.owned.size, workers: workers.length })
      }
    }).pipe(Effect.catch((e) => Effect.sync(() => log("warn", "ownership round failed", { worker_id: workerId, error: errorText(e.cause) }))))
  })

  private moveFailed(slot: string, cause: unknown) {
    return Effect.sync(() => {
      log("warn", "partition move failed; retried next round", { slot, worker_id: this.options.workerId, error: errorText(cause) })
      return false
    })
  }

  private take(actor: AnyActor, partition: number) {
    const self = this
    const name = actor.protocol.name
    const { workerId, leaseTtlMs } = this.options
    return Effect.gen(function*() {
      const expired = yield* leases(() => expiredHolder(self.sql, self.deps.namespace, name, partition, workerId))
      if (expired !== undefined) yield* endFormerOwner(self.sql, expired, workerId)
      const askedAt = yield* Clock.currentTimeMillis
      const fence = yield* leases(() => acquire(self.sql, self.deps.namespace, name, partition, workerId, leaseTtlMs))
      if (!fence) return false // still held by its previous owner (draining, or not yet expired): next round
      const consumer = new PartitionConsumer(self.deps, actor, fence, self.lost)
      self.owned.set(slotOf(name, partition), consumer)
      self.deadlines.held(consumer, askedAt)
      yield* leases(() => consumer.start()).pipe(Effect.tapError(() => Effect.gen(function*() {
        self.owned.delete(slotOf(name, partition))
        self.deadlines.forget(consumer)
        yield* consumer.stop("abandon")
        yield* Effect.ignore(leases(() => release(self.sql, fence)))
      })))
      log("debug", "partition taken", { actor: name, partition, epoch: fence.epoch, worker_id: workerId })
      return true
    })
  }

  private handOver(slot: string, consumer: PartitionConsumer) {
    const self = this
    return Effect.gen(function*() {
      self.owned.delete(slot)
      self.deadlines.forget(consumer)
      yield* consumer.stop("drain", (yield* Clock.currentTimeMillis) + self.options.drainLimitMs)
      yield* leases(() => release(self.sql, consumer.fence))
      log("debug", "partition handed over", { slot, worker_id: self.options.workerId })
    })
  }

  /**
   * Graceful: stop taking, drain and ack what is in flight, release every lease, leave the membership. Bounded: what
   * has not drained by `deadline` (epoch ms) is left unacked for the next owner, so a stop always completes.
   */
  stop(deadline: number): Effect.Effect<void> {
    const self = this
    return Effect.gen(function*() {
      self.stopping = true
      // Each loop ends after its round in flight (rounds are uninterruptible), or is left to finish it past the deadline.
      yield* untilDeadline(Fiber.interruptAll(self.loops), deadline)
      const consumers = [...self.owned.values()]
      self.owned.clear()
      log("info", "draining partitions", { worker_id: self.options.workerId, partitions: consumers.length })
      yield* Effect.forEach(consumers, (c) => Effect.andThen(
        c.stop("drain", deadline),
        leases(() => release(self.sql, c.fence)).pipe(Effect.catch((e) => Effect.sync(() =>
          log("warn", "lease release failed (it will expire)", { error: errorText(e.cause) }))))
      ), { concurrency: "unbounded", discard: true })
      yield* leases(() => leave(self.sql, self.deps.namespace, self.options.workerId)).pipe(Effect.catch((e) => Effect.sync(() =>
        log("warn", "leaving the membership failed (the heartbeat will expire)", { error: errorText(e.cause) }))))
      log("info", "partitions released", { worker_id: self.options.workerId })
    })
  }
}
