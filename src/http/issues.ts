import { SchemaIssue } from "effect"
import { printable } from "../../schemas/text.ts"

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

const pathText = (path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>): string =>
  path.reduce<string>((acc, segment) => {
    const key = typeof segment === "object" && segment !== null ? segment.key : segment
    if (typeof key === "number") return `${acc}[${key}]`
    // A refused key (NUL, an unpaired surrogate) is named with those characters written as \uXXXX.
    const name = printable(String(key))
    return acc === "" ? name : `${acc}.${name}`
  }, "")

const friendly = (message: string): string =>
  message === "Missing key" ? "is required"
  // Never the value: a misspelt key may carry a secret (acces_token).
  : message === "Expected no excess property" || message.startsWith("Unexpected key") ? "is not a field of this request"
  : message.replace(/^Expected /, "must be ")

/** Schema issues as `{ "guests[0].phone": ["must be string, got 5"] }`; `(body)` for the body as a whole. */
export const issueDetails = (issue: SchemaIssue.Issue): Record<string, Array<string>> => {
  const details: Record<string, Array<string>> = {}
  for (const i of formatter(issue).issues) {
    const field = pathText(i.path ?? []) || "(body)"
    ;(details[field] ??= []).push(friendly(i.message))
  }
  return details
}

export const summarise = (details: Record<string, ReadonlyArray<string>>): string => {
  const fields = Object.keys(details)
  return fields.length === 1
    ? `Invalid request: ${fields[0]} ${details[fields[0]!]![0]}`
    : `Invalid request: ${fields.length} fields are invalid (${fields.slice(0, 5).join(", ")}${fields.length > 5 ? ", ..." : ""})`
}
