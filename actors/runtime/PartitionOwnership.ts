import type { Sql } from "../../core/db/Database.ts"
import { errorText, log } from "../../core/observability/log.ts"
import { ownerOf, slotOf } from "./assignment.ts"
import { LeaseDeadlines } from "./leaseDeadlines.ts"
import { acquire, expiredHolder, fenceOut, heartbeat, leave, liveWorkers, release, renew } from "./leases.ts"
import { type PartitionDeps, PartitionConsumer } from "./PartitionConsumer.ts"
import type { AnyActor } from "./Actor.ts"
import { settlesBy } from "./settlesBy.ts"

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

/**
 * Shares the partitions of every actor type among the live workers: each worker heartbeats, computes by rendezvous
 * hashing which partitions are its own, takes their leases (consuming only while it holds one), renews them, and
 * drains and releases the ones that now belong to another worker. A crashed worker's leases expire after
 * `leaseTtlMs` and its partitions are taken by the survivors on their next tick.
 */
export class PartitionOwnership {
  private readonly sql: Sql
  private readonly deps: PartitionDeps
  private readonly actors: ReadonlyArray<AnyActor>
  private readonly options: OwnershipOptions
  readonly owned = new Map<string, PartitionConsumer>()
  private timer: NodeJS.Timeout | undefined
  private renewTimer: NodeJS.Timeout | undefined
  private watchdog: NodeJS.Timeout | undefined
  private readonly deadlines: LeaseDeadlines<PartitionConsumer>
  private ticking: Promise<void> = Promise.resolve()
  private renewing: Promise<void> = Promise.resolve()
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
   * Starts two loops: renewal (heartbeat + lease renewal, every third of the TTL) and balancing (take and hand over
   * partitions). They are separate so a slow takeover (NATS or PostgreSQL struggling) never delays renewals and
   * costs the partitions already held. Readiness does not wait for partitions. A third, the watchdog, abandons a
   * partition as soon as its lease may have lapsed, even while a renewal hangs on a database that stopped answering.
   */
  start(): void {
    this.renewing = this.renewAll().finally(() => this.scheduleRenew())
    this.ticking = this.tick().finally(() => this.schedule())
    this.watchdog = setInterval(() => {
      for (const c of this.deadlines.lapsed(Date.now())) {
        if (this.owned.get(slotOf(c.fence.actor, c.fence.partition)) !== c) continue
        log("warn", "lease lapsed unrenewed; abandoning partition", { slot: slotOf(c.fence.actor, c.fence.partition), worker_id: this.options.workerId })
        this.lost(c)
      }
    }, Math.max(50, Math.floor(this.options.leaseTtlMs / 20)))
  }

  private schedule(): void {
    if (this.stopping) return
    this.timer = setTimeout(() => {
      this.ticking = this.tick().finally(() => this.schedule())
    }, this.options.tickMs)
  }

  private scheduleRenew(): void {
    if (this.stopping) return
    this.renewTimer = setTimeout(() => {
      this.renewing = this.renewAll().finally(() => this.scheduleRenew())
    }, Math.max(100, Math.floor(this.options.leaseTtlMs / 3)))
  }

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

  private async renewAll(): Promise<void> {
    if (this.stopping || !this.reachable()) return
    const { workerId, leaseTtlMs } = this.options
    try {
      await heartbeat(this.sql, this.deps.namespace, workerId)
      const consumers = [...this.owned.values()]
      const askedAt = Date.now()
      const held = await renew(this.sql, consumers.map((c) => c.fence), leaseTtlMs)
      for (const c of consumers) {
        const slot = slotOf(c.fence.actor, c.fence.partition)
        if (this.owned.get(slot) !== c) continue
        if (held.has(slot)) {
          this.deadlines.held(c, askedAt)
        } else {
          log("warn", "lease not renewed; abandoning partition", { slot, worker_id: workerId })
          this.lost(c)
        }
      }
    } catch (e) {
      log("warn", "lease renewal failed", { worker_id: workerId, error: errorText(e) })
    }
  }

  private lost = (c: PartitionConsumer): void => {
    const slot = slotOf(c.fence.actor, c.fence.partition)
    if (this.owned.get(slot) === c) this.owned.delete(slot)
    this.deadlines.forget(c)
    void c.stop("abandon")
  }

  private async tick(): Promise<void> {
    if (this.stopping || !this.reachable()) return
    const { workerId, partitions, leaseTtlMs } = this.options
    try {
      const workers = await liveWorkers(this.sql, this.deps.namespace, leaseTtlMs)
      if (!workers.includes(workerId)) workers.push(workerId)
      for (const actor of this.actors) {
        for (let p = 0; p < partitions && !this.stopping; p++) {
          const slot = slotOf(actor.protocol.name, p)
          const mine = ownerOf(slot, workers) === workerId
          const current = this.owned.get(slot)
          try {
            if (mine && !current) await this.take(actor, p)
            else if (!mine && current) await this.handOver(slot, current)
          } catch (e) {
            log("warn", "partition move failed; retried next tick", { slot, worker_id: workerId, error: errorText(e) })
          }
        }
      }
    } catch (e) {
      log("warn", "ownership tick failed", { worker_id: workerId, error: errorText(e) })
    }
  }

  private async take(actor: AnyActor, partition: number): Promise<void> {
    const name = actor.protocol.name
    const expired = await expiredHolder(this.sql, this.deps.namespace, name, partition, this.options.workerId)
    if (expired !== undefined) await this.fenceOut(expired)
    const askedAt = Date.now()
    const fence = await acquire(this.sql, this.deps.namespace, name, partition, this.options.workerId, this.options.leaseTtlMs)
    if (!fence) return // still held by its previous owner (draining, or not yet expired): next tick
    const consumer = new PartitionConsumer(this.deps, actor, fence, this.lost)
    this.owned.set(slotOf(name, partition), consumer)
    this.deadlines.held(consumer, askedAt)
    try {
      await consumer.start()
      log("info", "partition taken", { actor: name, partition, epoch: fence.epoch, worker_id: this.options.workerId })
    } catch (e) {
      this.owned.delete(slotOf(name, partition))
      this.deadlines.forget(consumer)
      await consumer.stop("abandon")
      await release(this.sql, fence).catch(() => undefined)
      throw e
    }
  }

  /** A former owner that let its lease expire (frozen, cut off): its open transactions are ended, not waited for. */
  private async fenceOut(formerOwner: string): Promise<void> {
    try {
      const ended = await fenceOut(this.sql, formerOwner)
      if (ended > 0) log("warn", "ended the open transactions of a former owner whose lease expired", { former_owner: formerOwner, sessions: ended, worker_id: this.options.workerId })
    } catch (e) {
      // Not allowed (another role), or the database is away: its sessions end with the pause, or by the server's timeouts.
      log("warn", "could not end a former owner's transactions", { former_owner: formerOwner, error: errorText(e) })
    }
  }

  private async handOver(slot: string, consumer: PartitionConsumer): Promise<void> {
    this.owned.delete(slot)
    this.deadlines.forget(consumer)
    await consumer.stop("drain", Date.now() + this.options.drainLimitMs)
    await release(this.sql, consumer.fence)
    log("info", "partition handed over", { slot, worker_id: this.options.workerId })
  }

  /**
   * Graceful: stop taking, drain and ack what is in flight, release every lease, leave the membership. Bounded: what
   * has not drained by `deadline` (epoch ms) is left unacked for the next owner, so a stop always completes.
   */
  async stop(deadline = Date.now() + this.options.drainLimitMs): Promise<void> {
    this.stopping = true
    if (this.timer) clearTimeout(this.timer)
    if (this.renewTimer) clearTimeout(this.renewTimer)
    if (this.watchdog) clearInterval(this.watchdog)
    await settlesBy(Promise.all([this.ticking, this.renewing]), deadline)
    const consumers = [...this.owned.values()]
    this.owned.clear()
    log("info", "draining partitions", { worker_id: this.options.workerId, partitions: consumers.length })
    await Promise.all(consumers.map(async (c) => {
      await c.stop("drain", deadline)
      await release(this.sql, c.fence).catch((e) => log("warn", "lease release failed (it will expire)", { error: errorText(e) }))
    }))
    await leave(this.sql, this.deps.namespace, this.options.workerId)
      .catch((e) => log("warn", "leaving the membership failed (the heartbeat will expire)", { error: errorText(e) }))
    log("info", "partitions released", { worker_id: this.options.workerId })
  }
}
