import { SchemaIssue } from "effect"
import { fieldPath } from "../../schemas/text.ts"

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

const friendly = (message: string): string =>
  message === "Missing key" ? "is required"
  // Never the value: a misspelt key may carry a secret (acces_token).
  : message === "Expected no excess property" || message.startsWith("Unexpected key") ? "is not a field of this request"
  : message.replace(/^Expected /, "must be ")

/**
 * Schema issues as `{ "guests[0].phone": ["must be string, got 5"] }`; `(body)` for the body as a whole. Collected in
 * a Map: a field the caller named `toString` or `__proto__` is a field like any other, never an Object.prototype member.
 */
export const issueDetails = (issue: SchemaIssue.Issue): Record<string, Array<string>> => {
  const details = new Map<string, Array<string>>()
  for (const i of formatter(issue).issues) {
    const field = fieldPath(i.path ?? []) || "(body)"
    const messages = details.get(field)
    if (messages === undefined) details.set(field, [friendly(i.message)])
    else messages.push(friendly(i.message))
  }
  // fromEntries defines own properties: `__proto__` stays a key of the answer, not the object's prototype.
  return Object.fromEntries(details)
}

export const summarise = (details: Record<string, ReadonlyArray<string>>): string => {
  const fields = Object.keys(details)
  return fields.length === 1
    ? `Invalid request: ${fields[0]} ${details[fields[0]!]![0]}`
    : `Invalid request: ${fields.length} fields are invalid (${fields.slice(0, 5).join(", ")}${fields.length > 5 ? ", ..." : ""})`
}
