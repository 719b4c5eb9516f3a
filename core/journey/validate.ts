import type { WhatsAppTemplate } from "../channel/repository.ts"
import type { JourneyDefinition, JourneyStep } from "../../schemas/journey.ts"
import { isKnownPath, isKnownTag, tagsIn } from "./mergeTags.ts"

/**
 * The definition check beyond structure (the schema has already checked every field's shape): what needs the whole
 * definition (step ids, branch targets, cycles, merge tags, variable paths) and what needs the account (its hotels,
 * its WhatsApp templates, whether email is configured). Pure: the caller reads the account's facts first. Each issue
 * names the field as `steps[1].subject`; errors refuse the save, warnings are answered with it.
 */

export interface Issue {
  readonly path: string
  readonly message: string
}
export interface Checked {
  readonly errors: ReadonlyArray<Issue>
  readonly warnings: ReadonlyArray<Issue>
}

/** Where a step goes next: a step index, or the run ends (`end`, or past the last step). */
type Next = { readonly field: string; readonly to: number | "out" }

const stepName = (s: JourneyStep) => JSON.stringify(s.id)

/** Step ids to their first index. */
const indexOf = (steps: ReadonlyArray<JourneyStep>): Map<string, number> => {
  const ids = new Map<string, number>()
  steps.forEach((s, i) => {
    if (!ids.has(s.id)) ids.set(s.id, i)
  })
  return ids
}

/** The edges of the step graph: steps run in array order; a branch jumps to then/else; `end` and the last step end. */
export const successors = (steps: ReadonlyArray<JourneyStep>, ids: ReadonlyMap<string, number>, i: number): Array<Next> => {
  const s = steps[i]!
  if (s.type === "end") return []
  if (s.type === "branch") {
    return (["then", "else"] as const).flatMap((field): Array<Next> => {
      const target = s[field]
      if (target === "end") return [{ field, to: "out" }]
      const to = ids.get(target)
      return to === undefined ? [] : [{ field, to }]
    })
  }
  return [{ field: "next", to: i + 1 < steps.length ? i + 1 : "out" }]
}

const graphIssues = (steps: ReadonlyArray<JourneyStep>): Checked => {
  const errors: Array<Issue> = []
  const warnings: Array<Issue> = []
  const ids = indexOf(steps)
  steps.forEach((s, i) => {
    const first = ids.get(s.id)!
    if (first !== i) errors.push({ path: `steps[${i}].id`, message: `duplicate step id ${stepName(s)} (already steps[${first}])` })
    if (s.type === "branch") {
      for (const field of ["then", "else"] as const) {
        const target = s[field]
        if (target !== "end" && !ids.has(target)) {
          errors.push({ path: `steps[${i}].${field}`, message: `no step with id ${JSON.stringify(target)} (a step id of this journey, or \`end\`)` })
        }
      }
    }
  })
  // Cycles: depth-first over every step (reachable or not). A non-branch step only goes forward, so each cycle holds a
  // branch jumping back (to itself or an earlier step): that jump is named.
  const colour = new Array<0 | 1 | 2>(steps.length).fill(0)
  const stack: Array<number> = []
  const named = new Set<string>()
  const visit = (i: number) => {
    colour[i] = 1
    stack.push(i)
    for (const next of successors(steps, ids, i)) {
      if (next.to === "out") continue
      if (colour[next.to] === 0) visit(next.to)
      else if (colour[next.to] === 1) {
        const cycle = [...stack.slice(stack.indexOf(next.to)), next.to]
        const back = cycle.findIndex((from, k) => k + 1 < cycle.length && cycle[k + 1]! <= from)
        const from = cycle[back]!
        const field = steps[from]!.type === "branch"
          ? (successors(steps, ids, from).find((n) => n.to === cycle[back + 1])!.field)
          : "id"
        const path = `steps[${from}].${field}`
        if (!named.has(path)) {
          named.add(path)
          errors.push({ path, message: `makes a cycle: ${cycle.map((k) => steps[k]!.id).join(" → ")} (journeys run forward; end a run with \`end\`)` })
        }
      }
    }
    stack.pop()
    colour[i] = 2
  }
  steps.forEach((_, i) => {
    if (colour[i] === 0) visit(i)
  })
  // Steps no run can reach: allowed (a draft in progress), answered as a warning.
  const reached = new Set<number>()
  const walk = (i: number) => {
    if (reached.has(i)) return
    reached.add(i)
    for (const n of successors(steps, ids, i)) if (n.to !== "out") walk(n.to)
  }
  if (steps.length > 0) walk(0)
  steps.forEach((s, i) => {
    if (!reached.has(i)) warnings.push({ path: `steps[${i}]`, message: `step ${stepName(s)} is never reached from the first step` })
  })
  return { errors, warnings }
}

const contentIssues = (steps: ReadonlyArray<JourneyStep>): Array<Issue> =>
  steps.flatMap((s, i): Array<Issue> => {
    switch (s.type) {
      case "email": {
        const out: Array<Issue> = []
        for (const field of ["subject", "html", "text"] as const) {
          const text = s[field]
          if (text === undefined) continue
          for (const tag of new Set(tagsIn(text))) {
            if (!isKnownTag(tag)) out.push({ path: `steps[${i}].${field}`, message: `unknown merge tag {{${tag}}} in step ${stepName(s)}` })
          }
        }
        if (s.html === undefined && s.text === undefined) out.push({ path: `steps[${i}].text`, message: `step ${stepName(s)} needs html or text (or both)` })
        return out
      }
      case "whatsapp":
        return (s.params ?? []).flatMap((p, j) =>
          isKnownPath(p) ? [] : [{ path: `steps[${i}].params[${j}]`, message: `unknown variable path ${JSON.stringify(p)} in step ${stepName(s)}` }])
      case "branch":
        return "property" in s.if && !isKnownPath(s.if.property)
          ? [{ path: `steps[${i}].if.property`, message: `unknown variable path ${JSON.stringify(s.if.property)} in step ${stepName(s)}` }]
          : []
      default:
        return []
    }
  })

/** What the definition alone tells: refused when `errors` is not empty. */
export const checkDefinition = (d: JourneyDefinition): Checked => {
  const graph = graphIssues(d.steps)
  return { errors: [...graph.errors, ...contentIssues(d.steps)], warnings: graph.warnings }
}

/** What the account holds that a definition names. */
export interface AccountFacts {
  /** The definition's hotel ids that are hotels of the tenant. */
  readonly hotelIds: ReadonlySet<string>
  readonly emailConfigured: boolean
  /** The templates registered for the WhatsApp channel of the key's mode; null when the channel is not configured. */
  readonly whatsAppTemplates: ReadonlyArray<WhatsAppTemplate> | null
  /** "live" or "sandbox", for the messages. */
  readonly mode: string
}

export const checkAccount = (d: JourneyDefinition, facts: AccountFacts): Checked => {
  const errors: Array<Issue> = []
  const warnings: Array<Issue> = []
  ;(d.hotel_ids ?? []).forEach((id, i) => {
    if (!facts.hotelIds.has(id)) errors.push({ path: `hotel_ids[${i}]`, message: `no hotel with id ${JSON.stringify(id)} in this account` })
  })
  let emailWarned = false
  d.steps.forEach((s, i) => {
    if (s.type === "email" && !facts.emailConfigured && !emailWarned) {
      emailWarned = true
      warnings.push({ path: `steps[${i}]`, message: `the email channel is not configured (${facts.mode} mode): email steps are skipped until it is` })
    }
    if (s.type !== "whatsapp") return
    const name = `${JSON.stringify(s.template)} (${s.language})`
    if (facts.whatsAppTemplates === null) {
      errors.push({ path: `steps[${i}].template`, message: `the WhatsApp channel is not configured (${facts.mode} mode): template ${name} is not registered` })
      return
    }
    const t = facts.whatsAppTemplates.find((x) => x.name === s.template && x.language === s.language)
    if (t === undefined) {
      errors.push({ path: `steps[${i}].template`, message: `template ${name} is not registered for this account's WhatsApp channel (${facts.mode} mode)` })
      return
    }
    const given = s.params?.length ?? 0
    if (given !== t.body_parameters) {
      errors.push({ path: `steps[${i}].params`, message: `template ${name} takes ${t.body_parameters} body parameter(s); ${given} given` })
    }
    if (t.category !== s.category) {
      errors.push({ path: `steps[${i}].category`, message: `template ${name} is registered as ${t.category}, not ${s.category}` })
    }
  })
  return { errors, warnings }
}

/** Both checks: the definition's own, then the account's. */
export const validateDefinition = (d: JourneyDefinition, facts: AccountFacts): Checked => {
  const own = checkDefinition(d)
  const account = checkAccount(d, facts)
  return { errors: [...own.errors, ...account.errors], warnings: [...own.warnings, ...account.warnings] }
}

/** Issues as the error shape's `details`: field path → messages. */
export const issueDetails = (issues: ReadonlyArray<Issue>): Record<string, Array<string>> => {
  const details: Record<string, Array<string>> = {}
  for (const i of issues) (details[i.path] ??= []).push(i.message)
  return details
}
