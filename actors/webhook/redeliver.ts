import type { JsMsg } from "@nats-io/jetstream"
import { encode } from "../../streams/envelope.ts"
import { deliverySubject } from "../../streams/webhookTopology.ts"
import { emittedEvent, emittedPage, type EmittedEvent } from "./emitted.ts"
import type { DeliveryJob, FanOutDeps } from "./job.ts"
import type { RedeliverCommand } from "./protocol.ts"

/** Jobs published per page of a replay (the command's ack deadline is extended between pages). */
const PAGE = 500

/**
 * A resend or a replay: the stored bodies (same event_id, same sequence, same bytes) published again to the
 * subscription's delivery subject as jobs of this run (Nats-Msg-Id `<event>:<subscription>:<run>`, so a command
 * redelivered mid-replay publishes nothing twice), then the replay marked published (its rate limit's "running").
 */
export const redeliver = async (deps: FanOutDeps, m: JsMsg, c: RedeliverCommand): Promise<number> => {
  const [owner] = await deps.sql`
    SELECT 1 FROM webhook_subscriptions WHERE id = ${c.subscription_id} AND tenant_id = ${c.tenant_id} AND sandbox = ${c.sandbox}`
  if (!owner) return 0
  await deps.attach(c.subscription_id)
  const publish = (events: ReadonlyArray<EmittedEvent>) =>
    Promise.all(events.map((e) => {
      const job: DeliveryJob = {
        event_id: e.event_id, subscription_id: c.subscription_id, tenant_id: c.tenant_id, sandbox: c.sandbox,
        event_type: e.event_type, body: e.body, trigger: c.trigger, run_id: c.run_id
      }
      return deps.js.publish(deliverySubject(deps.namespace, c.subscription_id), encode(job), { msgID: `${e.event_id}:${c.subscription_id}:${c.run_id}` })
    }))
  if (c.window === undefined) {
    const event = c.event_id === undefined ? undefined : await emittedEvent(deps.sql, c.subscription_id, c.event_id)
    if (event) await publish([event])
    return event ? 1 : 0
  }
  let total = 0
  for (let after: { at: string; id: string } | undefined; ;) {
    const page = await emittedPage(deps.sql, c.subscription_id, c.window, after, PAGE)
    await publish(page)
    total += page.length
    m.working()
    if (page.length < PAGE) break
    const last = page[page.length - 1]!
    after = { at: last.at, id: last.event_id }
  }
  await deps.sql`UPDATE webhook_replays SET published_at = now() WHERE id = ${c.run_id} AND published_at IS NULL`
  return total
}
