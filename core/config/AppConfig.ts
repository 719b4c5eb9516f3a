import { Config, Context, Effect, Layer } from "effect"

/** Everything the processes read from the environment, decoded once at start-up. */
export interface AppConfigShape {
  readonly natsUrl: string
  readonly databaseUrl: string
  /** Prefix of every stream, consumer, subject and bucket, so deployments and test runs never collide. */
  readonly namespace: string
  readonly port: number
  /** Partitions per actor type; fixed for the life of a deployment (changing it re-routes keys). */
  readonly partitions: number
  readonly streamReplicas: number
  /** How long the ingress waits for the actor's reply before answering 503. */
  readonly replyTimeoutMs: number
  readonly defaultRateLimitPerMinute: number
  /** How long JetStream waits for an ack before redelivering to the partition's consumer. */
  readonly ackWaitMs: number
  /** Requests per minute per tenant on the telephony endpoints. */
  readonly telephonyRateLimitPerMinute: number
  /** A worker's partition lease lasts this long unless renewed; a crashed worker's partitions move after it. */
  readonly leaseTtlMs: number
  /** PostgreSQL connections per process. */
  readonly dbPoolSize: number
  /** Group appliers per actor type in a worker, each over its share of the partitions (concurrent transactions). */
  readonly applyLanes: number
  /**
   * How long an inbox row is kept at least (GEP_INBOX_RETENTION_MS, 15 minutes): longer than the streams' duplicate
   * window (10 minutes). Rows whose envelope may still arrive are kept however old (actors/runtime/inboxRetention.ts).
   */
  readonly inboxRetentionMs: number
}

export class AppConfig extends Context.Service<AppConfig, AppConfigShape>()("app/config/AppConfig") {
  static readonly config = Config.all({
    natsUrl: Config.String("NATS_URL").pipe(Config.withDefault("nats://127.0.0.1:4222")),
    databaseUrl: Config.String("DATABASE_URL").pipe(Config.withDefault("postgres://postgres@127.0.0.1:5432/gep")),
    namespace: Config.String("GEP_NAMESPACE").pipe(Config.withDefault("gep")),
    port: Config.Port("PORT").pipe(Config.withDefault(8080)),
    partitions: Config.Int("GEP_PARTITIONS").pipe(Config.withDefault(16)),
    streamReplicas: Config.Int("GEP_STREAM_REPLICAS").pipe(Config.withDefault(1)),
    replyTimeoutMs: Config.Int("GEP_REPLY_TIMEOUT_MS").pipe(Config.withDefault(10_000)),
    defaultRateLimitPerMinute: Config.Int("GEP_RATE_LIMIT_PER_MINUTE").pipe(Config.withDefault(1000)),
    ackWaitMs: Config.Int("GEP_ACK_WAIT_MS").pipe(Config.withDefault(10_000)),
    telephonyRateLimitPerMinute: Config.Int("GEP_TELEPHONY_RATE_LIMIT_PER_MINUTE").pipe(Config.withDefault(100)),
    leaseTtlMs: Config.Int("GEP_LEASE_TTL_MS").pipe(Config.withDefault(5_000)),
    dbPoolSize: Config.Int("GEP_DB_POOL_SIZE").pipe(Config.withDefault(20)),
    applyLanes: Config.Int("GEP_APPLY_LANES").pipe(Config.withDefault(1)),
    inboxRetentionMs: Config.Int("GEP_INBOX_RETENTION_MS").pipe(Config.withDefault(15 * 60_000))
  })

  static readonly layer = Layer.effect(AppConfig, Effect.map(AppConfig.config, (c) => {
    if (!/^[A-Za-z0-9_-]+$/.test(c.namespace)) {
      throw new Error(`GEP_NAMESPACE must be letters, digits, - or _ (got ${JSON.stringify(c.namespace)})`)
    }
    return AppConfig.of(c)
  }))

  static readonly layerWith = (overrides: Partial<AppConfigShape>) =>
    Layer.effect(AppConfig, Effect.map(AppConfig.config, (c) => AppConfig.of({ ...c, ...overrides })))
}
