/**
 * What each environment variable means, in the order the configuration page shows them. The variables themselves,
 * their defaults and where they are read come from the code (configurationScan.ts); this table holds only what code
 * cannot say in one line. The generator refuses a variable the code reads and this table lacks, and a line here the code
 * no longer reads, so the page and the code cannot part.
 *
 * `unset` describes the default where the code has no value to show: a plain env read without a literal fallback, or an
 * empty string whose meaning is "off" or "derived from another setting".
 */
export interface Meaning {
  readonly meaning: string
  readonly unset?: string
}

export interface Section {
  readonly title: string
  readonly intro: string
  readonly variables: Readonly<Record<string, Meaning>>
}

export const SECTIONS: ReadonlyArray<Section> = [
  {
    title: "Connections and identity",
    intro: "Where the process finds NATS and PostgreSQL, and what it calls itself there.",
    variables: {
      NATS_URL: { meaning: "Comma-separated NATS server list." },
      DATABASE_URL: { meaning: "PostgreSQL connection URL; the database is created if missing (`gep migrate`, `gep start`)." },
      GEP_NAMESPACE: { meaning: "Prefix of every stream, consumer, subject and bucket (letters, digits, `-`, `_`), so deployments and test runs sharing one NATS never collide." },
      PORT: { meaning: "HTTP port of the ingress." },
      GEP_DB_POOL_SIZE: { meaning: "PostgreSQL connections per process." },
      GEP_PUBLIC_BASE_URL: { meaning: "Where guests reach the platform: the unsubscribe links in marketing email, website-source webhook URLs.", unset: "`http://127.0.0.1:$PORT`" },
      GEP_PUBLIC_URL: { meaning: "The public URL of the loyalty SSO issuer (behind a TLS-offloading proxy: the https URL).", unset: "`GEP_PUBLIC_BASE_URL`" },
      GEP_TRUSTED_PROXIES: { meaning: "Comma-separated addresses or CIDR networks of the load balancers in front of the ingress (`10.0.0.0/8, 192.168.4.2`): from them, the client's address is the right-most `X-Forwarded-For` entry that is not one of them (consent evidence, delivery logs, per-address limits).", unset: "none: `X-Forwarded-For` is ignored" }
    }
  },
  {
    title: "Runtime: partitions, leases, delivery",
    intro: "The actor runtime's shape. `GEP_PARTITIONS` is fixed for a deployment's life: changing it re-routes keys.",
    variables: {
      GEP_PARTITIONS: { meaning: "Partitions per actor type; fixed for a deployment's life." },
      GEP_STREAM_REPLICAS: { meaning: "Stream replicas: `3` on a 3-node JetStream cluster." },
      GEP_REPLY_TIMEOUT_MS: { meaning: "How long the ingress waits for the actor's commit before answering 503." },
      GEP_ACK_WAIT_MS: { meaning: "JetStream redelivery timeout of an unacknowledged message." },
      GEP_LEASE_TTL_MS: { meaning: "A worker's partition leases last this long unless renewed (renewed every third of it); a crashed worker's partitions move after it." },
      GEP_APPLY_LANES: { meaning: "Group appliers per actor type in a worker, each over a fixed share of the partitions (concurrent transactions)." },
      GEP_INBOX_RETENTION_MS: { meaning: "An applied envelope's inbox row is kept at least this long (longer than the streams' 10-minute duplicate window), and longer while the envelope can still arrive again." },
      GEP_SHUTDOWN_TIMEOUT_MS: { meaning: "After SIGTERM, the process exits 1 if draining has not finished within this time." }
    }
  },
  {
    title: "Rate limits and load shedding",
    intro: "Per-key limits, and the adaptive admission limit an overloaded ingress sheds with (503 with `Retry-After`).",
    variables: {
      GEP_RATE_LIMIT_PER_MINUTE: { meaning: "Default per-key request limit (a key can carry its own)." },
      GEP_TELEPHONY_RATE_LIMIT_PER_MINUTE: { meaning: "Requests per minute per tenant on the telephony (CTI) webhook." },
      GEP_API_KEY_CACHE_MS: { meaning: "How long an API key or CTI token lookup is reused: bounds how long a key revoked through another process keeps working on this ingress." },
      GEP_ADMISSION_TARGET_MS: { meaning: "Load shedding: the wait an overloaded ingress aims its admitted writes at." },
      GEP_ADMISSION_FLOOD_TARGET_MS: { meaning: "Load shedding: the lower wait aimed at during a flood (the limit reached while the ingress's event loop lags)." },
      GEP_ADMISSION_FLOOD_LAG_MS: { meaning: "The event-loop delay (median of a window, ms) from which a reached admission limit is taken for a flood." },
      GEP_ADMISSION_INITIAL: { meaning: "The admission limit (actor calls waiting at once per ingress) at start, and where it rests when the load does not reach it (or at twice the calls held, when more)." },
      GEP_ADMISSION_MIN: { meaning: "Lower bound of the admission limit." },
      GEP_ADMISSION_MAX: { meaning: "Upper bound of the admission limit." },
      GEP_ADMISSION_TENANT_SHARE: { meaning: "The part of the admission limit one tenant may hold while another tenant is active." },
      GEP_SSO_CODES_PER_EMAIL_PER_MINUTE: { meaning: "Loyalty SSO sign-in emails per minute per address (a mailbox is not flooded)." },
      GEP_SSO_CODES_PER_IP_PER_MINUTE: { meaning: "Loyalty SSO sign-in emails per minute per client address (addresses are not probed)." },
      GEP_SSO_MEMBER_REQUESTS_PER_MINUTE: { meaning: "Requests per minute per member on the loyalty SSO member routes, whatever client or token they come through." },
      GEP_STAFF_CODES_PER_EMAIL_PER_MINUTE: { meaning: "Staff console sign-in codes asked for per minute per address (a mailbox is not flooded); code checks per address are five times this." },
      GEP_STAFF_CODES_PER_IP_PER_MINUTE: { meaning: "Staff console sign-in codes asked for, and codes checked, per minute per client address (addresses are not probed, codes not guessed)." }
    }
  },
  {
    title: "Webhooks",
    intro: "Outbound webhooks and the key that protects every secret at rest.",
    variables: {
      GEP_WEBHOOK_ENCRYPTION_KEY: { meaning: "Base64 of 32 bytes: the at-rest key (AES-256-GCM) of webhook signing secrets and channel secrets (WhatsApp token and app secret), and the root of the unsubscribe-link MAC. Production must set it, the same in every process.", unset: "generated once into `.data/webhook-encryption.key` (development)" },
      GEP_PRIVACY_KEY: { meaning: "Base64 of 32 bytes: the privacy key. Keyed hashes of suppressed phones and emails (per account), the seal on a privacy request's subject while it runs, and the signature of export download links are derived from it (HKDF). Production must set it, the same in every process; changing it makes existing suppressions unrecognisable (requests record the key id).", unset: "generated once into `.data/privacy.key` (development)" },
      GEP_SUPPRESSION_CACHE_MS: { meaning: "How long an ingress reuses its view of an account's privacy suppressions (0 to 4999 ms): bounds how late another process's suppression takes effect here; an erasure waits it out before it drains." },
      GEP_WEBHOOKS_ALLOW_LOOPBACK: { meaning: "`1` lets webhooks target loopback addresses (and plain http there): development and tests only. Only the exact value `1` turns it on.", unset: "off" },
      GEP_WEBHOOK_TIMEOUT_MS: { meaning: "Deadline of one webhook attempt (connect, TLS, request, response status)." },
      GEP_WEBHOOK_DATE_SCAN_INTERVAL_MS: { meaning: "How often workers run the reservation date scan (one at a time), which fires the webhook date events and starts `reservation_date` journeys; the shorter of this and `GEP_JOURNEY_DATE_SCAN_MS` governs." }
    }
  },
  {
    title: "Messaging",
    intro: "How email and WhatsApp leave, retry and pace.",
    variables: {
      GEP_SMTP_URL: { meaning: "`smtp://host:port` (STARTTLS when offered) or `smtps://host:465`; without it email cannot leave (sends retry, then fail). Credentials in the URL are never logged or printed.", unset: "none (`npm start`: a local mail catcher)" },
      GEP_WHATSAPP_API_URL: { meaning: "WhatsApp Cloud API base, version included." },
      GEP_SEND_TIMEOUT_MS: { meaning: "Deadline of one provider call." },
      GEP_SEND_MAX_ATTEMPTS: { meaning: "Attempts before a temporarily failing send is recorded as failed." },
      GEP_SEND_BACKOFF_MS: { meaning: "First retry delay, doubled per attempt up to an hour, ±50 % jitter (a provider's Retry-After wins)." },
      GEP_WHATSAPP_RECONCILE_MS: { meaning: "How long a WhatsApp send whose outcome is unknown waits for a status webhook before it is repeated." },
      GEP_SEND_RATE_PER_MINUTE: { meaning: "Sends per tenant, mode and channel when the channel sets none (`send_rate_per_minute`)." },
      GEP_CONVERSATION_IDLE_MS: { meaning: "A conversation with no message for this long is closed (WhatsApp's customer-service window is 24 h)." },
      GEP_CONVERSATION_SWEEP_MS: { meaning: "How often workers close idle conversations." },
      GEP_HOLD_SWEEP_MS: { meaning: "How often workers release broadcast messages held by quiet hours (released this much early, claimed at the hold's end)." },
      GEP_TURNSTILE_VERIFY_URL: { meaning: "Where newsletter sign-ups' Cloudflare Turnstile tokens are verified." }
    }
  },
  {
    title: "Journeys, broadcasts and loyalty clocks",
    intro: "How often workers look for work that has become due.",
    variables: {
      GEP_JOURNEY_TIMER_MS: { meaning: "How often each worker wakes journey runs whose wait is over (the bound on a wake's lateness when idle)." },
      GEP_JOURNEY_DATE_SCAN_MS: { meaning: "The same reservation date scan as `GEP_WEBHOOK_DATE_SCAN_INTERVAL_MS`: the shorter of the two governs." },
      GEP_BROADCAST_SWEEP_MS: { meaning: "How often each worker publishes broadcast steps that are due (a scheduled start, a paced dispatch chunk, a check for answers)." },
      GEP_AUCTION_SWEEP_MS: { meaning: "How often workers close loyalty auctions whose bidding has ended." }
    }
  },
  {
    title: "Logs",
    intro: "JSON lines on stderr.",
    variables: {
      GEP_LOG_LEVEL: { meaning: "`debug`, `info`, `warn` or `error`: the lowest level written.", unset: "`info`" },
      GEP_ACCESS_LOG: { meaning: "One line per HTTP answer: `on`, `off`, or the share written (`0.1`); 5xx answers are always written.", unset: "`on`" }
    }
  },
  {
    title: "Development",
    intro: "Set by `gep start` for a developer's machine; never needed in production.",
    variables: {
      GEP_DEMO_FILE: { meaning: "Where `gep start` keeps the demo tenant's keys (mode 0600); the SDK demo's source beside it (`-web.json`).", unset: "`.data/demo-tenant.json`" },
      GEP_SDK_DEMO: { meaning: "Serves the browser SDK's demo booking page at `/sdk/demo.html` (`gep start` sets it)." }
    }
  },
  {
    title: "Fault injection (tests only)",
    intro: "Read by workers so the fault tests (test/chaos) can kill them at exact points. Unset in any real deployment.",
    variables: {
      GEP_FAULT_CRASH_AFTER_COMMIT_KEY: { meaning: "A worker dies (SIGKILL) right after committing a group holding a message of this actor key, before acknowledging it.", unset: "off" },
      GEP_FAULT_CRASH_BEFORE_SEND: { meaning: "Probability per send attempt that the worker dies with the attempt recorded and the provider not called." },
      GEP_FAULT_CRASH_AFTER_SEND: { meaning: "Probability per send attempt that the worker dies right after the provider answered." }
    }
  }
]
