import { Effect } from "effect"
import { isUuid } from "../../schemas/common.ts"
import { MessageChannels, MessageStatuses } from "../../schemas/message.ts"
import { refused } from "../http/paging.ts"
import { timeWindow } from "../http/timeWindow.ts"

/** The query of GET /api/v1/messages (paging apart), each value as the caller sent it. */
export interface MessageListQuery {
  readonly channel?: string | undefined
  readonly status?: string | undefined
  readonly direction?: string | undefined
  readonly template?: string | undefined
  readonly journey_id?: string | undefined
  readonly broadcast_id?: string | undefined
  readonly hotel_id?: string | undefined
  readonly contact_id?: string | undefined
  readonly from?: string | undefined
  readonly to?: string | undefined
}

/** The filters checked, ids lower-cased, the window as instants (`from` inclusive, `to` exclusive). */
export interface MessageFilters extends Omit<MessageListQuery, "from" | "to"> {
  readonly from: string | undefined
  readonly to: string | undefined
}

const among = (values: ReadonlyArray<string>) => `must be one of: ${values.join(", ")}`
const ID_FILTERS = ["journey_id", "broadcast_id", "hotel_id", "contact_id"] as const

/** Each filter checked, or 400 naming the first one at fault. */
export const messageFilters = Effect.fn("Messages.filters")(function*(q: MessageListQuery) {
  if (q.channel !== undefined && !(MessageChannels as ReadonlyArray<string>).includes(q.channel)) return yield* refused("channel", among(MessageChannels))
  if (q.status !== undefined && !(MessageStatuses as ReadonlyArray<string>).includes(q.status)) return yield* refused("status", among(MessageStatuses))
  if (q.direction !== undefined && q.direction !== "outbound" && q.direction !== "inbound") return yield* refused("direction", among(["outbound", "inbound"]))
  if (q.template !== undefined && (q.template.length === 0 || q.template.length > 512)) return yield* refused("template", "must be 1 to 512 characters")
  for (const name of ID_FILTERS) {
    const value = q[name]
    if (value !== undefined && !isUuid(value)) return yield* refused(name, "must be a UUID")
  }
  const window = yield* timeWindow(q)
  return {
    channel: q.channel, status: q.status, direction: q.direction, template: q.template,
    journey_id: q.journey_id?.toLowerCase(), broadcast_id: q.broadcast_id?.toLowerCase(), hotel_id: q.hotel_id?.toLowerCase(),
    contact_id: q.contact_id?.toLowerCase(), from: window.from, to: window.to
  } satisfies MessageFilters
})
