import type { Tx } from "../../db/Database.ts"
import { signInEmailBucket } from "../rateBuckets.ts"
import type { PrivacyStore, Subject } from "../store.ts"
import { memberIdsOf } from "./members.ts"
import { needlesOf } from "./needles.ts"
import { counted, inSteps, tagged } from "./rows.ts"

// Loyalty SSO: the OpenID provider's state of the member (sessions, grants, codes, tokens, interactions: oidc_models is
// platform-wide, its account_id is the member id), the emailed sign-in codes and the club transfer codes and tokens.

/** The provider rows of the subject: its account's, or an interaction of one of the tenant's clients naming its email. */
const providerRows = (tx: Tx, subject: Subject, members: Array<string>) => {
  const n = needlesOf(subject)
  const emails = n.emails.map((e) => `%${e.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)
  return tx`
    SELECT model, id FROM oidc_models
    WHERE account_id = ANY(${members}::text[])
      OR (payload::text ILIKE ANY(${emails}::text[]) AND coalesce(payload->'params'->>'client_id', payload->>'clientId') IN (
        SELECT client_id FROM oidc_clients WHERE tenant_id = ${subject.scope.tenant_id} AND sandbox = ${subject.scope.sandbox}))`
}

export const ssoStore: PrivacyStore = {
  store: "sso",
  action: "deleted",
  tables: ["oidc_models", "oidc_sign_in_codes", "loyalty_club_tokens", "loyalty_club_codes"],
  holds: "SSO sessions, grants, codes and tokens of the member, sign-in interactions with the email, emailed sign-in codes, club transfer codes and tokens",
  retention: "until expiry (sessions and grants 14 days, sign-in codes minutes), then swept (src/oidc/adapter.ts sweepExpired); club codes and tokens kept",
  erase: async (tx, subject, limit) => {
    const members = await memberIdsOf(tx, subject)
    const n = needlesOf(subject)
    const { tenant_id: t, sandbox: s } = subject.scope
    return inSteps(limit, [
      (b) => counted(tx`DELETE FROM oidc_models WHERE (model, id) IN (SELECT model, id FROM (${providerRows(tx, subject, members)}) p LIMIT ${b})`),
      (b) => counted(tx`DELETE FROM oidc_sign_in_codes WHERE interaction_id IN (
        SELECT interaction_id FROM oidc_sign_in_codes
        WHERE tenant_id = ${t} AND (email = ANY(${n.emails}::text[]) OR member_id = ANY(${members}::uuid[])) LIMIT ${b})`),
      (b) => counted(tx`DELETE FROM loyalty_club_tokens WHERE token_hash IN (
        SELECT token_hash FROM loyalty_club_tokens WHERE tenant_id = ${t} AND sandbox = ${s} AND member_id = ANY(${members}::uuid[]) LIMIT ${b})`),
      (b) => counted(tx`DELETE FROM loyalty_club_codes WHERE code_hash IN (
        SELECT code_hash FROM loyalty_club_codes WHERE tenant_id = ${t} AND sandbox = ${s} AND member_id = ANY(${members}::uuid[])
          AND NOT EXISTS (SELECT 1 FROM loyalty_club_tokens k WHERE k.code_hash = loyalty_club_codes.code_hash) LIMIT ${b})`)
    ])
  },
  // What exists, never a token, code or hash (they are credentials): which kind, for which client, until when.
  export: async (tx, subject) => {
    const members = await memberIdsOf(tx, subject)
    const n = needlesOf(subject)
    const { tenant_id: t, sandbox: s } = subject.scope
    const [models, codes, club] = await Promise.all([
      tx`SELECT jsonb_build_object('model', m.model, 'client_id', coalesce(m.payload->>'clientId', m.payload->'params'->>'client_id'),
          'account_id', m.account_id, 'expires_at', m.expires_at, 'consumed_at', m.consumed_at) AS row
        FROM oidc_models m WHERE (m.model, m.id) IN (SELECT model, id FROM (${providerRows(tx, subject, members)}) p) ORDER BY m.expires_at`,
      tx`SELECT jsonb_build_object('email', c.email, 'member_id', c.member_id, 'attempts', c.attempts, 'created_at', c.created_at,
          'expires_at', c.expires_at) AS row
        FROM oidc_sign_in_codes c WHERE c.tenant_id = ${t} AND (c.email = ANY(${n.emails}::text[]) OR c.member_id = ANY(${members}::uuid[]))
        ORDER BY c.created_at`,
      tx`SELECT jsonb_build_object('member_id', c.member_id, 'expires_at', c.expires_at, 'consumed_at', c.consumed_at, 'consumed_by', c.consumed_by) AS row
        FROM loyalty_club_codes c WHERE c.tenant_id = ${t} AND c.sandbox = ${s} AND c.member_id = ANY(${members}::uuid[])
        ORDER BY c.expires_at`
    ])
    return [...tagged("oidc_models", models), ...tagged("oidc_sign_in_codes", codes), ...tagged("loyalty_club_codes", club)]
  }
}

/**
 * The rate-limit buckets of the SSO sign-in (src/oidc/SignInCodes.ts, src/oidc/authentication.ts) naming the subject:
 * by the address's digest, and by the plain address as releases before the digest wrote them.
 */
const bucketsOf = async (tx: Tx, subject: Subject) => [
  ...needlesOf(subject).emails.flatMap((e) => [signInEmailBucket(subject.scope.tenant_id, e), `oidc-email:${subject.scope.tenant_id}:${e}`]),
  ...(await memberIdsOf(tx, subject)).map((m) => `sso-member:${subject.scope.tenant_id}:${m}`)
]

/** Rate-limit buckets named after an email or a member (the SSO sign-in limits): counts of the last minutes. */
export const rateCountersStore: PrivacyStore = {
  store: "rate_counters",
  action: "deleted",
  tables: ["rate_counters"],
  holds: "rate-limit buckets of the SSO sign-in named after an email's digest or a member id",
  retention: "5 minutes (src/auth/RateLimiter.ts); an ingress writes back a bucket it used in the last 2 minutes, so a deleted one may return that long (a digest or member id, never the address)",
  erase: async (tx, subject, limit) => counted(tx`DELETE FROM rate_counters WHERE (bucket, window_start) IN (
    SELECT bucket, window_start FROM rate_counters WHERE bucket = ANY(${await bucketsOf(tx, subject)}::text[]) LIMIT ${limit})`),
  export: async (tx, subject) => tagged("rate_counters", await tx`
    SELECT jsonb_build_object('limit', split_part(bucket, ':', 1), 'window_start', window_start, 'count', count) AS row
    FROM rate_counters WHERE bucket = ANY(${await bucketsOf(tx, subject)}::text[]) ORDER BY window_start`)
}
