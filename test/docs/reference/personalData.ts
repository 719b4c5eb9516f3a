import { PrivacyStores } from "../../../core/privacy/stores/registry.ts"
import { STREAM_MAX_AGE_MS } from "../../../streams/retention.ts"
import { code, header, table } from "./markdown.ts"

/** The JetStream streams of a deployment (`<namespace>_<name>`) and what they carry about guests. */
const STREAMS: ReadonlyArray<readonly [string, string]> = [
  ["INGRESS", "every write on its way to the actors: reservations, guests, events, calls, sends (names, phones, emails, payloads)"],
  ["OUTBOX", "events and commands the actors published: contact summaries in webhook commands, booking events, journey signals"],
  ["WEBHOOKS", "webhook deliveries waiting for a partner: the signed bodies"]
]

/**
 * docs/reference/personal-data.md: every store of personal data, from the privacy registry (core/privacy/stores/), with
 * what it holds, what an erasure does to it and how long it is kept; and the streams with their age limit.
 */
export const personalDataPage = (): string =>
  header("Personal data and retention", "core/privacy/stores/registry.ts and streams/retention.ts") +
  "Where the platform holds guests' personal data, how long, and what an erasure (`POST /api/v1/privacy/requests`, " +
  "type `erase`) does to each store; see [the privacy guide](../guide/privacy.md). A table the registry does not " +
  "list holds no personal data (its `NoPersonalData` entry says why); `test/core/privacy/stores.test.ts` fails when a " +
  "table is in neither.\n\n" +
  "## PostgreSQL\n\n" +
  table(["store", "tables", "holds", "erasure", "kept"],
    PrivacyStores.map((s) => [s.store, s.tables.map(code).join(", "), s.holds, s.action, s.retention])) +
  "\n\n## JetStream\n\n" +
  `Every stream keeps a message at most ${STREAM_MAX_AGE_MS / 86_400_000} days (\`max_age\`), acked or not; an ` +
  "erasure deletes the retained messages naming the guest by sequence (a secure erase), never a whole subject.\n\n" +
  table(["stream", "carries"], STREAMS.map(([name, carries]) => [code(`<namespace>_${name}`), carries])) +
  "\n\n## Kept on purpose\n\n" +
  "- `privacy_requests`: the audit record of each request (type, keyed hashes of the identifiers, contact ids, counts " +
  "per store, key id, times); the subject's value is kept sealed only while the request runs.\n" +
  "- `privacy_suppressions`: keyed hashes (HMAC-SHA256 under the privacy key, per account) of suppressed phones and " +
  "emails, never the values, until lifted.\n"

const README_BLOCK = /<!-- personal-data:start -->[\s\S]*?<!-- personal-data:end -->/

/**
 * The README's "Privacy and data retention" list, between its markers: every table and stream holding personal data,
 * from the same registry as the reference page (so the README cannot drift from what an erasure covers).
 */
export const readmeWithRetention = (readme: string): string => {
  if (!README_BLOCK.test(readme)) throw new Error("README.md: the <!-- personal-data:start --> ... <!-- personal-data:end --> markers are missing")
  const tables = [...new Set(PrivacyStores.flatMap((s) => s.tables))].sort()
  const block = "<!-- personal-data:start -->\n" +
    `Tables holding guests' personal data (${tables.length}; each with what it holds, how long it is kept and what an ` +
    `erasure does to it in [personal data and retention](docs/reference/personal-data.md)): ${tables.map(code).join(", ")}. ` +
    `Streams: ${STREAMS.map(([name]) => code(`<namespace>_${name}`)).join(", ")}, each message kept at most ` +
    `${STREAM_MAX_AGE_MS / 86_400_000} days.\n` +
    "<!-- personal-data:end -->"
  return readme.replace(README_BLOCK, block)
}
