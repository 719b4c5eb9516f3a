import type { Sql } from "../../core/db/Database.ts"
import { errorText, log } from "../../core/observability/log.ts"
import { ownerOf, slotOf } from "./assignment.ts"
import { acquire, heartbeat, leave, liveWorkers, release, renew } from "./leases.ts"
import { type PartitionDeps, PartitionConsumer } from "./PartitionConsumer.ts"
import type { AnyActor } from "./Actor.ts"

export interface OwnershipOptions {
  readonly workerId: string
  readonly partitions: number
  /** A lease not renewed for this long is free to take; also how long a silent worker counts as alive. */
  readonly leaseTtlMs: number
  readonly tickMs: number
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
  private ticking: Promise<void> = Promise.resolve()
  private renewing: Promise<void> = Promise.resolve()
  private stopping = false

  constructor(deps: PartitionDeps, actors: ReadonlyArray<AnyActor>, options: OwnershipOptions) {
    this.sql = deps.sql
    this.deps = deps
    this.actors = actors
    this.options = options
  }

  /**
   * Starts two loops: renewal (heartbeat + lease renewal, every third of the TTL) and balancing (take and hand over
   * partitions). They are separate so a slow takeover (NATS or PostgreSQL struggling) never delays renewals and
   * costs the partitions already held. Readiness does not wait for partitions.
   */
  start(): void {
    this.renewing = this.renewAll().finally(() => this.scheduleRenew())
    this.ticking = this.tick().finally(() => this.schedule())
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

  private async renewAll(): Promise<void> {
    if (this.stopping) return
    const { workerId, leaseTtlMs } = this.options
    try {
      await heartbeat(this.sql, this.deps.namespace, workerId)
      const consumers = [...this.owned.values()]
      const held = await renew(this.sql, consumers.map((c) => c.fence), leaseTtlMs)
      for (const c of consumers) {
        const slot = slotOf(c.fence.actor, c.fence.partition)
        if (!held.has(slot) && this.owned.get(slot) === c) {
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
    void c.stop("abandon")
  }

  private async tick(): Promise<void> {
    if (this.stopping) return
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
    const fence = await acquire(this.sql, this.deps.namespace, name, partition, this.options.workerId, this.options.leaseTtlMs)
    if (!fence) return // still held by its previous owner (draining, or not yet expired): next tick
    const consumer = new PartitionConsumer(this.deps, actor, fence, this.lost)
    this.owned.set(slotOf(name, partition), consumer)
    try {
      await consumer.start()
      log("info", "partition taken", { actor: name, partition, epoch: fence.epoch, worker_id: this.options.workerId })
    } catch (e) {
      this.owned.delete(slotOf(name, partition))
      await consumer.stop("abandon")
      await release(this.sql, fence).catch(() => undefined)
      throw e
    }
  }

  private async handOver(slot: string, consumer: PartitionConsumer): Promise<void> {
    this.owned.delete(slot)
    await consumer.stop("drain")
    await release(this.sql, consumer.fence)
    log("info", "partition handed over", { slot, worker_id: this.options.workerId })
  }

  /** Graceful: stop taking, drain and ack what is in flight, release every lease, leave the membership. */
  async stop(): Promise<void> {
    this.stopping = true
    if (this.timer) clearTimeout(this.timer)
    if (this.renewTimer) clearTimeout(this.renewTimer)
    await Promise.all([this.ticking.catch(() => undefined), this.renewing.catch(() => undefined)])
    const consumers = [...this.owned.values()]
    this.owned.clear()
    log("info", "draining partitions", { worker_id: this.options.workerId, partitions: consumers.length })
    await Promise.all(consumers.map(async (c) => {
      await c.stop("drain")
      await release(this.sql, c.fence).catch((e) => log("warn", "lease release failed (it will expire)", { error: errorText(e) }))
    }))
    await leave(this.sql, this.deps.namespace, this.options.workerId)
      .catch((e) => log("warn", "leaving the membership failed (the heartbeat will expire)", { error: errorText(e) }))
    log("info", "partitions released", { worker_id: this.options.workerId })
  }
}
