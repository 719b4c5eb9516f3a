import { Schema } from "effect"
import { boundedInt, maxLength, NonEmptyString, SafeString, Warning } from "./common.ts"
import { ok, page } from "./list.ts"

export const FieldTypes = ["string", "text", "number", "boolean", "date", "datetime", "select", "multiselect"] as const
export type FieldType = typeof FieldTypes[number]

const opt = Schema.optionalKey

export const FieldDefinitionInput = Schema.Struct({
  field_key: SafeString.check(Schema.makeFilter((s: string) =>
    /^[a-z][a-z0-9_]{0,63}$/.test(s) || "must start with a lowercase letter, then lowercase letters, digits or underscores (max 64)"
  )),
  field_label: NonEmptyString.check(Schema.makeFilter((s: string) => s.length <= 200 || "must be at most 200 characters")),
  field_type: Schema.Literals(FieldTypes).annotate({ message: `must be one of: ${FieldTypes.join(", ")}` }),
  options: opt(Schema.Array(maxLength(200)).check(Schema.makeFilter((a) => a.length <= 200 || "at most 200 options"))),
  description: opt(maxLength(1000)),
  is_required: opt(Schema.Boolean.annotate({
    description: "A hint for forms that show the field; the API does not enforce it (partners send partial updates)"
  })),
  is_visible: opt(Schema.Boolean),
  display_order: opt(boundedInt(-1_000_000, 1_000_000))
}).check(Schema.makeFilter((f) => {
  const needsOptions = f.field_type === "select" || f.field_type === "multiselect"
  if (needsOptions && (f.options === undefined || f.options.length === 0)) {
    return { path: ["options"], issue: `is required (at least one option) for ${f.field_type} fields` }
  }
  if (needsOptions && new Set(f.options).size !== f.options!.length) return { path: ["options"], issue: "must not repeat an option" }
  return undefined
}))
export type FieldDefinitionInput = typeof FieldDefinitionInput.Type

export const FieldsRequest = Schema.Struct({
  fields: Schema.Array(FieldDefinitionInput).check(Schema.makeFilter((a) =>
    (a.length >= 1 && a.length <= 50) || "must hold 1 to 50 field definitions"
  ), Schema.makeFilter((a) =>
    new Set(a.map((f) => f.field_key)).size === a.length || "must not define the same field_key twice"
  ))
})

export const FieldDefinition = Schema.Struct({
  field_key: Schema.String,
  field_label: Schema.String,
  field_type: Schema.Literals(FieldTypes),
  options: Schema.NullOr(Schema.Array(Schema.String)),
  description: Schema.NullOr(Schema.String),
  is_required: Schema.Boolean,
  is_visible: Schema.Boolean,
  display_order: Schema.Int,
  created_at: Schema.String,
  updated_at: Schema.String
})
export type FieldDefinition = typeof FieldDefinition.Type

/** The definitions saved, with the request's warnings (unknown fields). */
export const FieldsSavedResponse = ok(Schema.Struct({ fields: Schema.Array(FieldDefinition), message: Schema.String, warnings: Schema.Array(Warning) }))

/** The definitions in the one list shape (unpaged: an account defines a bounded set, shown whole; next_cursor is always null). */
export const FieldsList = ok(Schema.Struct({ ...page("fields", FieldDefinition).fields, message: Schema.String }))
