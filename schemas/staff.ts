import { Schema } from "effect"
import { SafeString } from "./text.ts"

// Staff of the hotel group and the audit log (issue 27): the console's people, their sessions and what they did.

export const StaffRoles = ["viewer", "operator", "admin"] as const
export type StaffRole = typeof StaffRoles[number]

/** A work address: one `@`, a dotted domain, no spaces; compared lower-cased. */
export const StaffEmail = SafeString.check(Schema.makeFilter((s: string) =>
  (s.length <= 254 && /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(s.trim())) || "must be an email address"
)).annotate({ description: "The staff member's work address (compared case-insensitively)" })

export const StaffRole = Schema.Literals(StaffRoles).annotate({
  description: "viewer: reads, with email addresses and phone numbers masked; operator: reads unmasked, plus resending webhook " +
    "deliveries, replaying and testing webhooks, stopping journey runs, pausing, resuming and cancelling broadcasts; " +
    "admin: everything an all-scope key may do, plus staff, keys and the audit log (not privacy:write)",
  message: `must be one of: ${StaffRoles.join(", ")}`
})

export const Staff = Schema.Struct({
  staff_id: Schema.String,
  email: Schema.String,
  role: Schema.Literals(StaffRoles),
  created_at: Schema.String,
  last_signed_in_at: Schema.NullOr(Schema.String)
})
export type Staff = typeof Staff.Type

export const AddStaffRequest = Schema.Struct({ email: StaffEmail, role: StaffRole })
export const ChangeStaffRequest = Schema.Struct({ role: StaffRole })

export const SignInRequest = Schema.Struct({ email: StaffEmail })
export const SignInSent = Schema.Struct({
  status: Schema.Literal("sent").annotate({
    description: "Always `sent`, whether or not the address is staff anywhere: the answer never tells who is staff"
  })
})
export const VerifyRequest = Schema.Struct({
  email: StaffEmail,
  code: SafeString.annotate({ description: "The 6-digit code of the email (valid 10 minutes, 5 wrong tries)" })
})

export const Session = Schema.Struct({
  staff: Staff,
  tenant_id: Schema.String,
  role: Schema.Literals(StaffRoles),
  csrf_token: Schema.String.annotate({
    description: "Send it as X-CSRF-Token on every request but GET, HEAD and OPTIONS made with this session's cookie"
  }),
  expires_at: Schema.String.annotate({
    description: "When the session ends unless used before: 12 hours after its last use, 7 days after sign-in at most"
  })
})
export type Session = typeof Session.Type

export const AuditActor = Schema.Struct({
  type: Schema.Literals(["staff", "api_key"]),
  id: Schema.String.annotate({ description: "The staff_id, or the API key's key_id" }),
  email: Schema.NullOr(Schema.String).annotate({ description: "The staff member's address; null for a key" })
})

export const AuditEntry = Schema.Struct({
  audit_id: Schema.String,
  at: Schema.String,
  actor: AuditActor,
  action: Schema.String.annotate({
    description: "contact.viewed, webhook_delivery.resent, webhook.replayed, webhook.tested, journey_run.stopped, " +
      "broadcast.paused, broadcast.resumed, broadcast.cancelled, staff.added, staff.removed, staff.role_changed, staff.signed_in"
  }),
  contact_id: Schema.NullOr(Schema.String),
  details: Schema.Record(Schema.String, Schema.Unknown)
})
export type AuditEntry = typeof AuditEntry.Type
