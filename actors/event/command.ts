/** The payload of an `event.record` envelope, keyed by the idempotency key (or the new event id without one). */
export interface RecordEvent {
  readonly event_id: string
  readonly event_type: string
  readonly payload: Record<string, unknown>
  readonly contact_id?: string | undefined
  /** E.164, already normalised by the ingress. */
  readonly guest_phone?: string | undefined
  readonly hotel_id?: string | undefined
  readonly idempotency_key?: string | undefined
  readonly source: string
}
