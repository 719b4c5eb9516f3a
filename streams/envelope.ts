/**
 * The envelope format this release writes and the newest it reads. An envelope without `v` is of version 1 (releases
 * before the field). A worker meeting a newer one leaves it unacknowledged for a newer worker (PartitionConsumer),
 * never dead-letters it: during a rolling upgrade, the releases overlap (README, Operate it, Upgrades).
 *
 * 2: loyalty and B2B commands are messages of their own (`earn`, `stayEvent`, ...) instead of one `apply`. A worker of
 * this release tells another actor with them, which a version-1 worker would fail and dead-letter; it leaves them for
 * a newer worker instead. Version-1 envelopes (an ingress not yet upgraded, outbox rows a version-1 worker wrote) are
 * still read: their `apply` is kept for one release (actors/loyalty/legacyApply.ts, actors/b2b/legacyApply.ts).
 */
export const ENVELOPE_VERSION = 2

/** The format version of an envelope (1 when it carries none). */
export const versionOf = (envelope: { readonly v?: number | undefined }): number => envelope.v ?? 1

/** What travels on an ingress subject (one message for one actor key, its payload encoded by the actor's protocol), and
 * the actor's answer to a synchronous request, sent after its transaction committed: declared in topics.ts. */
export type { Envelope, Reply } from "./topics.ts"

export { decode, encode } from "./msgpack.ts"
