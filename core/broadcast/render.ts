import type { BroadcastContent, EmailContent } from "../../schemas/broadcast.ts"
import { isKnownPath, isKnownTag, type MergeContext, render, resolvePath, tagsIn } from "../journey/mergeTags.ts"

// A broadcast's content for one recipient: the language variant, then the journeys' merge tags and parameter paths
// (contact and hotel ones; a broadcast has no starting event, so event tags render empty and event paths resolve to
// nothing). Pure: the broadcast actor renders at dispatch, the edge renders a test send, the same way.

export interface RecipientFacts {
  readonly contact: { readonly first_name: string | null; readonly last_name: string | null; readonly email: string | null; readonly phone: string | null; readonly language: string }
  readonly hotel: { readonly name: string; readonly code: string } | null
}

export type Rendered =
  | { readonly channel: "email"; readonly subject: string; readonly html: string | undefined; readonly text: string | undefined }
  | { readonly channel: "whatsapp"; readonly template: { readonly name: string; readonly language: string; readonly parameters: ReadonlyArray<string> } }
  | { readonly skip: "missing_template_parameter" }

const normal = (language: string) => language.replace(/_/g, "-").toLowerCase()

/** The variant for a language: the exact tag, else its primary subtag (`es-ES` → `es`), else none. */
export const variantFor = (content: EmailContent, language: string) => {
  const variants = Object.entries(content.variants ?? {}).map(([k, v]) => [normal(k), v] as const)
  const wanted = normal(language)
  return variants.find(([k]) => k === wanted)?.[1] ?? variants.find(([k]) => k === wanted.split("-")[0])?.[1]
}

const contextOf = (broadcastId: string, facts: RecipientFacts, now: Date): MergeContext => ({
  event: { name: "broadcast", id: broadcastId, occurred_at: now.toISOString(), payload: {} },
  contact: facts.contact,
  hotel: facts.hotel
})

export const renderFor = (broadcastId: string, content: BroadcastContent, facts: RecipientFacts, now: Date): Rendered => {
  const ctx = contextOf(broadcastId, facts, now)
  if ("template" in content) {
    const parameters = (content.params ?? []).map((p) => resolvePath(p, ctx))
    if (parameters.some((p) => p === undefined)) return { skip: "missing_template_parameter" }
    return { channel: "whatsapp", template: { name: content.template, language: content.language, parameters: parameters as Array<string> } }
  }
  const body = variantFor(content, facts.contact.language) ?? content
  return {
    channel: "email",
    subject: render(body.subject, ctx, { html: false }),
    html: body.html === undefined ? undefined : render(body.html, ctx, { html: true }),
    text: body.text === undefined ? undefined : render(body.text, ctx, { html: false })
  }
}

/** Problems of a content for its channel, each at its field: a wrong shape, an unknown merge tag or parameter path. */
export const contentIssues = (channel: "email" | "whatsapp", content: BroadcastContent): ReadonlyArray<{ path: string; message: string }> => {
  if (channel === "whatsapp") {
    if (!("template" in content)) return [{ path: "content.template", message: "is required for a WhatsApp broadcast" }]
    return (content.params ?? []).flatMap((p, i) => isKnownPath(p) ? [] : [{ path: `content.params[${i}]`, message: `is not a known path: ${p}` }])
  }
  if ("template" in content) return [{ path: "content.subject", message: "is required for an email broadcast (a template is WhatsApp's)" }]
  const bodies: Array<[string, { subject: string; html?: string | undefined; text?: string | undefined }]> = [
    ["content", content], ...Object.entries(content.variants ?? {}).map(([k, v]) => [`content.variants.${k}`, v] as [string, typeof v])
  ]
  return bodies.flatMap(([at, b]) => (["subject", "html", "text"] as const).flatMap((f) =>
    tagsIn(b[f] ?? "").filter((t) => !isKnownTag(t)).map((t) => ({ path: `${at}.${f}`, message: `uses an unknown merge tag {{${t}}}` }))))
}
