/** The statuses of an outbound message that reached the provider: what `received` counts (not queued, skipped, failed). */
export const RECEIVED_STATUSES = ["sent", "delivered", "read"] as const
