import type { Tx } from "../../core/db/Database.ts"

// The check of an emailed code, inside its transaction: separate from the service so the rule reads in one place.

export interface OpenCode {
  readonly id: string
  readonly tenant_id: string
  readonly staff_id: string
  readonly code_hash: Uint8Array
  readonly attempts: number
}

export type Verified =
  | { readonly kind: "signed_in"; readonly token: string; readonly staff_id: string; readonly tenant_id: string }
  | { readonly kind: "wrong"; readonly attemptsLeft: number }
  | { readonly kind: "expired" }

/**
 * The address's open codes (one per account where it is staff), locked: a match is used up and signs in to its
 * account; a miss counts against every open code, so 5 wrong tries end them all whichever account they were for.
 */
export const verifyCode = async (
  tx: Tx, email: string, code: string, now: number,
  how: { readonly maxAttempts: number; readonly matches: (row: OpenCode) => boolean; readonly signIn: (row: OpenCode) => Promise<{ token: string }> }
): Promise<Verified> => {
  const at = new Date(now)
  const rows = (await tx`
    SELECT c.id, c.tenant_id, c.staff_id, c.code_hash, c.attempts FROM staff_sign_in_codes c
    JOIN staff_accounts a ON a.id = c.staff_id AND a.removed_at IS NULL
    WHERE a.email = ${email} AND c.expires_at > ${at} AND c.attempts < ${how.maxAttempts}
    ORDER BY c.created_at FOR UPDATE OF c`) as unknown as ReadonlyArray<OpenCode>
  if (rows.length === 0) return { kind: "expired" }
  const match = /^[0-9]{6}$/.test(code) ? rows.find(how.matches) : undefined
  if (match !== undefined) {
    await tx`DELETE FROM staff_sign_in_codes WHERE id = ${match.id}`
    await tx`UPDATE staff_accounts SET last_signed_in_at = ${at} WHERE id = ${match.staff_id}`
    const { token } = await how.signIn(match)
    return { kind: "signed_in", token, staff_id: match.staff_id, tenant_id: match.tenant_id }
  }
  await tx`UPDATE staff_sign_in_codes SET attempts = attempts + 1 WHERE id = ANY(${rows.map((r) => r.id)}::uuid[])`
  const left = Math.max(...rows.map((r) => how.maxAttempts - r.attempts - 1))
  return left > 0 ? { kind: "wrong", attemptsLeft: left } : { kind: "expired" }
}
