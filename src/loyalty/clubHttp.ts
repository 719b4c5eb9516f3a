import { Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Database, withTenant } from "../../core/db/Database.ts"
import { Api } from "../../schemas/api.ts"
import { Unauthorized, ValidationFailed } from "../../schemas/errors.ts"
import { CurrentClubClient } from "../../schemas/oidcApi.ts"
import { digest, newTransferToken } from "../oidc/secrets.ts"
import { ok } from "./edge.ts"
import { balanceOf, principalOf } from "./meHttp.ts"
import { readMember } from "./reads.ts"

export const TRANSFER_TOKEN_TTL_S = 900

const invalidGrant = ValidationFailed.of("The code is unknown, expired, already exchanged or not for this programme",
  { code: ["is not an exchangeable club code"] }, "INVALID_GRANT")

/**
 * The club transfer: a club client (an OIDC client of the member's tenant) exchanges the member's one-time code once
 * for a transfer token bound to that client, then reads the member with it. A second exchange of a code fails and
 * revokes what the first one minted (someone else holds the code).
 */
export const LoyaltyClubLive = HttpApiBuilder.group(Api, "loyaltyClub", (handlers) =>
  Effect.gen(function*() {
    const db = yield* Database
    return handlers
      .handle("exchange", Effect.fn("LoyaltyClub.exchange")(function*({ payload }) {
        const client = yield* CurrentClubClient
        const codeHash = digest(payload.code)
        const token = newTransferToken()
        const minted = yield* db.query((sql) => withTenant(sql, client.tenant_id, async (tx) => {
          const [code] = await tx`UPDATE loyalty_club_codes SET consumed_at = now(), consumed_by = ${client.client_id}
            WHERE code_hash = ${codeHash} AND tenant_id = ${client.tenant_id} AND sandbox = ${client.sandbox}
              AND consumed_at IS NULL AND expires_at > now()
            RETURNING member_id, grant_id`
          if (code === undefined) {
            await tx`UPDATE loyalty_club_tokens SET revoked_at = now() WHERE code_hash = ${codeHash} AND revoked_at IS NULL`
            return undefined
          }
          await tx`INSERT INTO loyalty_club_tokens (token_hash, tenant_id, sandbox, client_id, code_hash, member_id, grant_id, expires_at)
            VALUES (${digest(token)}, ${client.tenant_id}, ${client.sandbox}, ${client.client_id}, ${codeHash}, ${code.member_id}, ${code.grant_id},
              ${new Date(Date.now() + TRANSFER_TOKEN_TTL_S * 1000)})`
          return code.member_id as string
        }))
        if (minted === undefined) return yield* invalidGrant
        return ok({ transfer_token: token, token_type: "Bearer", expires_in: TRANSFER_TOKEN_TTL_S, member_id: minted })
      }))
      .handle("me", Effect.fn("LoyaltyClub.me")(function*() {
        const client = yield* CurrentClubClient
        const request = yield* HttpServerRequest.HttpServerRequest
        const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers["authorization"] ?? "")?.[1]
        if (bearer === undefined) return yield* Unauthorized.of("Missing transfer token: send Authorization: Bearer <transfer_token>")
        const member = yield* db.query((sql) => withTenant(sql, client.tenant_id, async (tx) => {
          const [t] = await tx`SELECT member_id FROM loyalty_club_tokens WHERE token_hash = ${digest(bearer)} AND client_id = ${client.client_id}
            AND tenant_id = ${client.tenant_id} AND revoked_at IS NULL AND expires_at > now()`
          return t === undefined ? undefined : readMember(tx, principalOf(client), t.member_id as string)
        }))
        if (member === undefined) return yield* Unauthorized.of("The transfer token is unknown, expired, revoked or not this client's")
        return ok({ email: member.email, first_name: member.first_name, last_name: member.last_name, joined_at: member.joined_at, ...balanceOf(member) })
      }))
  }))
