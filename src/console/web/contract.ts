// HAND-WRITTEN TYPES, TEMPORARY: the routes of issue 27's contract that the staff and reads branches are building
// (the staff sign-in and session, tenant-wide message and webhook deliveries, the overview, journey counts). Once they
// are merged, regenerate api.d.ts (`npx node test/console/generateApiTypes.ts`), delete this file and use `paths` alone.

type Ok<T> = { success: true; data: T }
type Json<T> = { headers: { [name: string]: unknown }; content: { "application/json": T } }
type NoContent = { headers: { [name: string]: unknown }; content?: never }
type ErrorAnswer = Json<{ error: { code: string; message: string; details?: Record<string, unknown> } }>
type Parameters<Q> = { query?: Q; header?: never; path?: never; cookie?: never }
type Methods = { get?: never; put?: never; post?: never; delete?: never; options?: never; head?: never; patch?: never; trace?: never }
type Route<M> = Omit<Methods, keyof M> & M & { parameters: Parameters<never> }
type Get<Q, R> = { parameters: Parameters<Q>; requestBody?: never; responses: { 200: Json<Ok<R>>; 401: ErrorAnswer; 403: ErrorAnswer; 422: ErrorAnswer } }
type Post<B, Success> = { parameters: Parameters<never>; requestBody: { content: { "application/json": B } }; responses: Success & { 401: ErrorAnswer; 403: ErrorAnswer; 422: ErrorAnswer; 429: ErrorAnswer } }
type Paged = { limit?: string; cursor?: string }

export type Role = "viewer" | "operator" | "admin"
export interface Staff { staff_id: string; email: string; role: Role; created_at: string; last_signed_in_at: string | null }
export interface Session { staff: Staff; tenant_id: string; role: Role; csrf_token: string; expires_at: string }

export interface ProviderError { code: string | null; message: string | null; meaning: string | null }
/**
 * The contract names `message_id`, `template`, `run_id` and `statuses: [{ status, at }]`, and asks the reads branch to
 * extend the item of GET /api/v1/contacts/{id}/messages (`id`, `template: { name }`, `journey_run_id`,
 * `statuses: [{ status, occurred_at }]`): either spelling is read (Deliveries.tsx, `deliveryView`).
 */
export interface MessageDelivery {
  message_id?: string; id?: string; contact_id: string | null; channel: string; to: string | null
  template: string | { name: string } | null; journey_id?: string | null; run_id?: string | null; journey_run_id?: string | null
  broadcast_id?: string | null; hotel_id: string | null; status: string
  statuses: Array<{ status: string; at?: string; occurred_at?: string }>; error: ProviderError | null; skip_reason: string | null; created_at: string
}
export interface WebhookDelivery {
  id: string; webhook_id: string; url: string; event_id: string; event_type: string; attempt: number; outcome: string
  trigger: string; response_status: number | null; error: string | null; duration_ms: number; next_attempt_at: string | null
  attempted_at: string; contact_id?: string | null
}
export interface Outcomes { sent: number; delivered: number; read: number; failed: number; skipped: number }
export interface OverviewDay {
  date: string; hotel_id: string | null; reservations_received: number; contacts_created: number; journey_entries: number
  messages: { email: Outcomes; whatsapp: Outcomes }; webhooks: { succeeded: number; failed: number }
}
export interface Overview { from: string; to: string; days: Array<OverviewDay> }
export interface JourneyCounts { entered: number; waiting: number; completed: number; stopped: number }

export interface ContractPaths {
  "/api/v1/staff/sign-in": Route<{ post: Post<{ email: string }, { 202: Json<Ok<{ status: "sent" }>> }> }>
  "/api/v1/staff/sign-in/verify": Route<{ post: Post<{ email: string; code: string }, { 200: Json<Ok<Session>> }> }>
  "/api/v1/staff/me": Route<{ get: Get<never, Session> }>
  "/api/v1/staff/sign-out": Route<{ post: { parameters: Parameters<never>; requestBody?: never; responses: { 204: NoContent; 401: ErrorAnswer; 403: ErrorAnswer } } }>
  "/api/v1/messages": Route<{ get: Get<Paged & {
    channel?: string; status?: string; template?: string; journey_id?: string; broadcast_id?: string; hotel_id?: string
    contact_id?: string; from?: string; to?: string
  }, { messages: Array<MessageDelivery>; next_cursor: string | null }> }>
  "/api/v1/webhook-deliveries": Route<{ get: Get<Paged & {
    webhook_id?: string; event_type?: string; status?: string; contact_id?: string; from?: string; to?: string
  }, { deliveries: Array<WebhookDelivery>; next_cursor: string | null }> }>
  "/api/v1/overview": Route<{ get: Get<{ from?: string; to?: string; hotel_id?: string }, Overview> }>
}
