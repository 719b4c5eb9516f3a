import type { paths } from "./api.d.ts"

// The console's entities, read off the platform's own OpenAPI document (api.d.ts, generated): a field the API renames
// or drops fails the console's typecheck, not a guest's screen.

/** The `data` of a route's success answer. */
type DataOf<Op> = Op extends { responses: { 200: { content: { "application/json": { data: infer D } } } } } ? D : never

export type Session = DataOf<paths["/api/v1/staff/me"]["get"]>
export type Role = Session["role"]
export type MessageDelivery = DataOf<paths["/api/v1/messages"]["get"]>["messages"][number]
export type WebhookDelivery = DataOf<paths["/api/v1/webhook-deliveries"]["get"]>["deliveries"][number]
export type Overview = DataOf<paths["/api/v1/overview"]["get"]>
export type OverviewDay = Overview["days"][number]
