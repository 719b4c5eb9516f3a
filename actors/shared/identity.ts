import { randomUUID } from "node:crypto"
import type { Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { ProfileInput } from "../guest/protocol.ts"
import { type Conflict, insertContacts, lockByIdentity, recordConflicts, updateContacts } from "./contactStore.ts"

export { type ContactSummary, loadContactSummaries } from "./contactStore.ts"

export interface ResolveOptions {
  /** Where the claim comes from (`reservation:pms`, `guests:api`, ...), kept with conflicts. */
  readonly source: string
  readonly envelopeId: string
  /** false: an existing contact is matched but not changed. */
  readonly updateIfExists?: boolean
  /** Fields whose stored value wins over the sent one (only filled when empty). */
  readonly fillOnly?: ReadonlyArray<"date_of_birth" | "address">
  /** Values a newly created contact takes where the source sent none. */
  readonly insertDefaults?: Partial<ProfileInput>
}

/** What one source says about one person, and how to apply it. */
export interface Claim extends ResolveOptions {
  readonly profile: ProfileInput
}

export interface ResolvedContact {
  readonly contact_id: string
  readonly is_new: boolean
  /** True when the stored profile changed (new contact, or an update that altered a column). */
  readonly changed: boolean
  /** Set when the email belongs to another contact than the phone's: recorded, not merged. */
  readonly conflict_with?: string | undefined
}


/**
 * Resolves each claim carrying a phone or an email to exactly one contact: phone first, then email, else a new
 * contact; set-based, a few statements for any number of people. Claims are settled in rounds in which no phone,
 * email or contact appears twice, so every row is written once per statement and claims about one person apply in
 * input order. The unique indexes on (tenant, sandbox, phone|email) make duplicates impossible: an insert that lost
 * a race is skipped and its claim retried next round, when it finds the winner's row. One entry per claim, in input
 * order (null = no identity, no contact).
 */
export const resolveClaims = async (tx: Tx, scope: TenantScope, claims: ReadonlyArray<Claim>): Promise<Array<ResolvedContact | null>> => {
  const results: Array<ResolvedContact | null> = claims.map(() => null)
  let pending = claims.flatMap((c, i) => (c.profile.phone !== undefined || c.profile.email !== undefined ? [i] : []))
  // Each round settles at least its first claim unless that claim lost an insert race, which the next round settles:
  // more rounds than twice the claims means something is wrong.
  const maxRounds = 2 * pending.length + 2
  for (let round = 0; pending.length > 0; round++) {
    if (round >= maxRounds) throw new Error(`contact resolution did not converge after ${maxRounds} rounds`)
    const { now, later } = distinctIdentities(claims, pending)
    const phones = now.flatMap((i) => claims[i]!.profile.phone ?? [])
    const emails = now.flatMap((i) => claims[i]!.profile.email ?? [])
    const known = await lockByIdentity(tx, scope, phones, emails)
    const byPhone = new Map(known.flatMap((k) => (k.phone ? [[k.phone, k.id] as const] : [])))
    const byEmail = new Map(known.flatMap((k) => (k.email ? [[k.email, k.id] as const] : [])))

    const touched = new Set<string>()
    const updates: Array<{ i: number; id: string; conflict_with?: string | undefined }> = []
    const inserts: Array<{ i: number; id: string }> = []
    const conflicts: Array<Conflict> = []
    for (const i of now) {
      const c = claims[i]!
      const p = c.profile.phone === undefined ? undefined : byPhone.get(c.profile.phone)
      const e = c.profile.email === undefined ? undefined : byEmail.get(c.profile.email)
      const id = p ?? e
      if (id === undefined) {
        inserts.push({ i, id: randomUUID() })
        continue
      }
      if (touched.has(id)) {
        later.push(i) // another claim of this round is about the same contact: this one applies after it
        continue
      }
      touched.add(id)
      const conflict_with = p !== undefined && e !== undefined && e !== p ? e : undefined
      if (conflict_with !== undefined) {
        conflicts.push({
          contact_id: p!, other_contact_id: conflict_with, phone: c.profile.phone ?? null, email: c.profile.email ?? null,
          source: c.source, envelope_id: c.envelopeId
        })
      }
      if (c.updateIfExists === false) results[i] = { contact_id: id, is_new: false, changed: false, conflict_with }
      else updates.push({ i, id, conflict_with })
    }

    const [changed, inserted] = await Promise.all([
      updateContacts(tx, scope, updates.map((u) => ({ id: u.id, profile: claims[u.i]!.profile, fillOnly: claims[u.i]!.fillOnly ?? [] }))),
      insertContacts(tx, scope, inserts.map((n) => ({ id: n.id, profile: withDefaults(claims[n.i]!), source: claims[n.i]!.source }))),
      recordConflicts(tx, scope, conflicts)
    ])
    for (const u of updates) results[u.i] = { contact_id: u.id, is_new: false, changed: changed.has(u.id), conflict_with: u.conflict_with }
    for (const n of inserts) {
      if (inserted.has(n.id)) results[n.i] = { contact_id: n.id, is_new: true, changed: true }
      else later.push(n.i) // lost an insert race: next round finds the winner
    }
    pending = later.sort((a, b) => a - b)
  }
  return results
}

/** The claims of this round: the first claim naming each phone and email; the rest wait for a later round. */
const distinctIdentities = (claims: ReadonlyArray<Claim>, pending: ReadonlyArray<number>) => {
  const seen = new Set<string>()
  const now: Array<number> = []
  const later: Array<number> = []
  for (const i of pending) {
    const { phone, email } = claims[i]!.profile
    const keys = [...(phone === undefined ? [] : [`p:${phone}`]), ...(email === undefined ? [] : [`e:${email}`])]
    if (keys.some((k) => seen.has(k))) later.push(i)
    else {
      for (const k of keys) seen.add(k)
      now.push(i)
    }
  }
  return { now, later }
}

const withDefaults = (c: Claim): ProfileInput =>
  c.insertDefaults === undefined
    ? c.profile
    : { ...c.profile, ...Object.fromEntries(Object.entries(c.insertDefaults).filter(([k]) => c.profile[k as keyof ProfileInput] === undefined)) }

/** Several people from one source, with one set of options. */
export const resolveContacts = (tx: Tx, scope: TenantScope, people: ReadonlyArray<ProfileInput>, options: ResolveOptions) =>
  resolveClaims(tx, scope, people.map((profile) => ({ ...options, profile })))
