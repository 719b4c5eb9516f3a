import { Effect } from "effect"
import { readFileSync } from "node:fs"
import type { Database } from "../../core/db/Database.ts"
import type { DatabaseFailure } from "../../core/db/DatabaseFailure.ts"
import { SegmentDefinition } from "../../schemas/segment.ts"
import { PreviewCategories } from "../../schemas/segmentApi.ts"
import { isSegmentRefusal, type SegmentRefusal, Segments } from "../segment/Segments.ts"
import type { TenancyError } from "../tenancy/Tenancy.ts"
import { decode, need, refused, scopeOf } from "./channelFlags.ts"

export const SEGMENT_USAGE = `  segment preview --tenant ID [--test] (--file def.json | --id S) [--category marketing|utility]
                                               -> {"count","reachable":{"email","whatsapp"},"sample":[...]} (as POST /api/v1/segments/preview)
  segment list --tenant ID [--test]            -> {"segments":[...]} newest first (100)
  segment show --tenant ID [--test] --id S     -> the segment with its definition (as GET /api/v1/segments/{id})`

/** The flags of the segment commands (beside main.ts's own and the journey commands' `id` and the channel's `category`). */
export const SEGMENT_OPTIONS = {
  file: { type: "string" }
} as const

export interface SegmentFlags {
  readonly tenant?: string | undefined
  readonly test?: boolean | undefined
  readonly id?: string | undefined
  readonly file?: string | undefined
  readonly category?: string | undefined
}

/** A refusal as the CLI's error: its message, with the paths it names. */
const fromRefusal = (e: SegmentRefusal) => {
  const fields = Object.keys(e.error.details).filter((f) => !e.error.message.includes(f))
  return refused(fields.length > 0 ? `${e.error.message} (${fields.join(", ")})` : e.error.message)
}

/** The definition in `--file`: JSON, decoded by the API's own schema. */
const definitionIn = (file: string) =>
  Effect.try({ try: () => JSON.parse(readFileSync(file, "utf8")) as unknown, catch: (e) => refused(`--file ${file}: ${(e as Error).message}`) }).pipe(
    Effect.flatMap((json) => decode(SegmentDefinition, json))
  )

const run = (action: string | undefined, flags: SegmentFlags) =>
  Effect.gen(function*() {
    const segments = yield* Segments
    const scope = yield* scopeOf(flags)
    switch (action) {
      case "preview": {
        const category = flags.category ?? "marketing"
        if (!(PreviewCategories as ReadonlyArray<string>).includes(category)) {
          return yield* Effect.fail(refused(`--category must be one of: ${PreviewCategories.join(", ")}`))
        }
        if ((flags.file === undefined) === (flags.id === undefined)) return yield* Effect.fail(refused("give one of --file and --id"))
        const definition = flags.file === undefined ? undefined : yield* definitionIn(flags.file)
        return yield* segments.preview(scope, {
          ...(definition === undefined ? { segment_id: flags.id! } : { definition }),
          category: category as typeof PreviewCategories[number]
        })
      }
      case "list":
        return { segments: (yield* segments.list(scope, { limit: 100, after: undefined })).segments }
      case "show":
        return yield* segments.get(scope, yield* need("id", flags.id))
      default:
        return yield* Effect.fail(refused(`unknown command: segment ${action ?? ""} (preview, list or show)`))
    }
  })

/** `gep segment ...`: the segments API's reads and preview for an operator, with its checks and refusals. */
export const segmentCommand = (args: ReadonlyArray<string>, flags: SegmentFlags) =>
  (run(args[0], flags) as Effect.Effect<unknown, TenancyError | SegmentRefusal | DatabaseFailure, Segments | Database>).pipe(
    Effect.catchIf(isSegmentRefusal, (e) => Effect.fail(fromRefusal(e))),
    Effect.provide(Segments.layer)
  )
