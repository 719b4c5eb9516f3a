import { Scopes } from "../../schemas/scopes.ts"
import { CHANNEL_OPTIONS, CHANNEL_USAGE } from "./channel.ts"
import { JOURNEY_OPTIONS, JOURNEY_USAGE } from "./journey.ts"
import { SEGMENT_OPTIONS, SEGMENT_USAGE } from "./segment.ts"
import { BROADCAST_USAGE } from "./broadcast.ts"
import { PRIVACY_OPTIONS, PRIVACY_USAGE } from "./privacy.ts"
import { WEB_SOURCE_OPTIONS, WEB_SOURCE_USAGE } from "./webSource.ts"
import { OIDC_OPTIONS, OIDC_USAGE } from "./oidc.ts"
import { STAFF_USAGE } from "./staff.ts"

// The command line's definition, apart from main.ts (which runs the command it is given as soon as it is loaded), so
// docs/reference/cli.md is generated from the same text `gep --help` prints (test/docs/reference/cli.ts).

/** `gep --help`: every command, its flags and what it prints. */
export const USAGE = `gep <command>
  start                                        migrate, ensure the demo tenant, serve everything
  serve [--role all|ingress|worker]            run the platform (PORT picks the HTTP port)
  migrate                                      create the database if missing and apply migrations
  tenant create --name NAME                    -> {"tenant_id","live_key","test_key"}
  key create --tenant ID --scopes a,b [--test] [--rate-limit N] [--name N] -> {"key_id","key"}
                                               scopes: ${Scopes.join(", ")}
                                               (* grants all but keys:manage, privacy:write and staff:manage, which must be named)
  key revoke --key-id ID                       -> {"key_id","revoked"}
  hotel create --tenant ID --code C --name N --timezone IANA [--country ES] [--language es]
               [--check-in-time 15:00] [--check-out-time 12:00] -> the hotel, as GET /api/v1/hotels/{hotel_id}
  channel-map set --tenant ID --code C --name N --type direct|ota|tour_operator -> {"code","name","channel_type"}
  conflicts list --tenant ID                   -> {"conflicts":[...]} identity conflicts, newest first
  cti create --tenant ID --provider NAME       -> {"integration_id","token"} telephony webhook token (shown once)
${CHANNEL_USAGE}
${JOURNEY_USAGE}
${SEGMENT_USAGE}
${BROADCAST_USAGE}
${PRIVACY_USAGE}
${WEB_SOURCE_USAGE}
${OIDC_USAGE}
${STAFF_USAGE}
A refused command prints {"error"} and exits 2; 75 when the database is unavailable (retry later), 1 on a database error.`

/** Every flag of every command (node:util parseArgs options). */
export const OPTIONS = {
  role: { type: "string", default: "all" },
  name: { type: "string" },
  tenant: { type: "string" },
  scopes: { type: "string" },
  test: { type: "boolean", default: false },
  "key-id": { type: "string" },
  "rate-limit": { type: "string" },
  code: { type: "string" },
  timezone: { type: "string" },
  country: { type: "string" },
  "check-in-time": { type: "string" },
  "check-out-time": { type: "string" },
  type: { type: "string" },
  provider: { type: "string" },
  ...CHANNEL_OPTIONS,
  ...JOURNEY_OPTIONS,
  ...SEGMENT_OPTIONS,
  ...WEB_SOURCE_OPTIONS,
  ...OIDC_OPTIONS,
  ...PRIVACY_OPTIONS,
  help: { type: "boolean", short: "h", default: false }
} as const
