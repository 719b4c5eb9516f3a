import * as Errors from "../../../schemas/errors.ts"
import { WEBSITE_ERROR_CODES } from "../../../schemas/websiteEvents.ts"
import { REQUEST_ERRORS } from "../../../src/website/answers.ts"
import * as Loyalty from "../../../actors/loyalty/protocol.ts"
import * as B2b from "../../../actors/b2b/protocol.ts"
import { refusal as loyaltyRefusal } from "../../../src/loyalty/edge.ts"
import { refusal as b2bRefusal } from "../../../src/b2b/edge.ts"
import { argumentText, productFiles } from "./sourceFiles.ts"
import { code, header, table } from "./markdown.ts"

/** The core error classes (schemas/errors.ts), each with its status and description as the document carries them. */
const classes = Object.entries(Errors)
  .map(([name, value]) => ({ name, annotations: (value as { ast?: { annotations?: { httpApiStatus?: number; description?: string } } }).ast?.annotations }))
  .filter((c) => typeof c.annotations?.httpApiStatus === "number")
  .sort((a, b) => a.annotations!.httpApiStatus! - b.annotations!.httpApiStatus!)

const statusOfClass = new Map(classes.map((c) => [c.name, c.annotations!.httpApiStatus!]))

interface Answered {
  readonly code: string
  readonly status: number
}

/** How the edge answers an actor refusal: its rendering function applied to each code the actor declares. */
const rendered = (codes: ReadonlyArray<string>, make: (code: string) => Errors.ApiError): ReadonlyArray<Answered & { readonly declared: string }> =>
  codes.map((declared) => {
    const e = make(declared) as Errors.ApiError & { readonly error: { readonly code: string } }
    return { declared, code: e.error.code, status: Errors.statusOf(e) }
  })

const CODE = /"([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)"/
const CALL = new RegExp(`\\b(${[...statusOfClass.keys()].join("|")})\\.of\\(`, "g")

/** The family a file belongs to: its folder under src/, actors/ or core/ (the edge's shared folders: every family). */
const familyOf = (path: string): string => {
  const [, folder] = path.split("/")
  return folder === "http" || folder === "auth" || folder === "app" ? "every endpoint" : folder!
}

/** Codes the edge writes literally: `Unprocessable.of("HOTEL_NOT_FOUND", ...)`, `NotFound.of(msg, d, "MEMBER_NOT_FOUND")`. */
const literalCodes = () => {
  const found = new Map<string, Map<string, { status: number; files: Set<string> }>>()
  for (const file of productFiles(["src", "actors", "core"])) {
    for (const m of file.text.matchAll(CALL)) {
      const literal = CODE.exec(argumentText(file.text, m.index + m[0].length))
      if (!literal) continue
      const family = familyOf(file.path)
      const codes = found.get(family) ?? new Map()
      const entry = codes.get(literal[1]!) ?? { status: statusOfClass.get(m[1]!)!, files: new Set<string>() }
      entry.files.add(`[${file.path.split("/").pop()}](../../${file.path})`)
      codes.set(literal[1]!, entry)
      found.set(family, codes)
    }
  }
  return found
}

/** docs/reference/errors.md: the error shapes, their statuses, and the codes each family answers with. */
export const errorsPage = (): string => {
  const loyalty = rendered(Loyalty.RefusalCodes, (c) => loyaltyRefusal(new Loyalty.LoyaltyRefused({ code: c as never, message: "", details: {} })))
  const b2bAsPath = rendered(B2b.RefusalCodes, (c) => b2bRefusal(true)(new B2b.B2bRefused({ code: c as never, message: "", details: {} })))
  const b2bInBody = rendered(B2b.RefusalCodes, (c) => b2bRefusal(false)(new B2b.B2bRefused({ code: c as never, message: "", details: {} })))
  const literal = literalCodes()
  const families = [...literal.keys()].sort((a, b) => (a === "every endpoint" ? -1 : b === "every endpoint" ? 1 : a.localeCompare(b)))

  return header("Errors", "schemas/errors.ts, the actors' refusal codes and how src/ renders them, and the codes src/ answers literally") +
    "Every API error answers in one shape, except the website-events endpoints (below):\n\n" +
    "```json\n{ \"success\": false, \"error\": { \"code\": \"HOTEL_NOT_FOUND\", \"message\": \"…\", \"details\": { \"hotel_code\": [\"…\"] }, \"request_id\": \"…\" } }\n```\n\n" +
    "`details` maps a field path (`guests[0].phone`) to what is wrong with it; `request_id` is the answer's " +
    "`X-Request-Id`, to quote to support. A 503 or 429 carries `Retry-After`: the same request may be sent again.\n\n" +
    "## Statuses\n\n" +
    table(["status", "error", "meaning"], classes.map((c) => [String(c.annotations!.httpApiStatus), c.name, c.annotations!.description ?? ""])) + "\n\n" +
    "## Codes by family\n\nCodes the endpoints of each family answer with, besides `VALIDATION_ERROR` (400), " +
    "`UNAUTHORIZED` (401), `FORBIDDEN` (403), `NOT_FOUND` (404), `RATE_LIMITED` (429) and `SERVICE_UNAVAILABLE` (503), " +
    "which any endpoint may answer.\n\n" +
    families.map((f) => `### ${f}\n\n` + table(["code", "status", "written in"],
      [...literal.get(f)!.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([c, e]) => [code(c), String(e.status), [...e.files].join(", ")]))).join("\n\n") +
    "\n\n### loyalty: refusals of the member actor\n\n" +
    "Declared in `actors/loyalty/refusalProtocol.ts`, answered as `src/loyalty/edge.ts` renders them.\n\n" +
    table(["code", "status"], loyalty.map((r) => [code(r.code), String(r.status)])) +
    "\n\n### b2b: refusals of the account actor\n\n" +
    "Declared in `actors/b2b/refusalProtocol.ts`, answered as `src/b2b/edge.ts` renders them: a missing account is " +
    "404 when the URL names it, 422 when the body refers to it.\n\n" +
    table(["refusal", "answered code", "status (URL names it)", "status (body refers to it)"],
      b2bAsPath.map((r, i) => [code(r.declared), code(r.code), String(r.status), String(b2bInBody[i]!.status)])) +
    "\n\n## Website events\n\n" +
    "`POST /api/v1/website-events` (and its browser and webhook forms) answer errors as " +
    "`{ \"error\": { \"code\", \"message\", \"detail\", \"fix\", \"docs\" } }`, the `docs` link pointing at the code's " +
    "entry on `/docs/website-events`.\n\n" +
    table(["code", "status", "meaning", "fix"], WEBSITE_ERROR_CODES.map((c) => [code(c), String(REQUEST_ERRORS[c].status), REQUEST_ERRORS[c].message, REQUEST_ERRORS[c].fix])) + "\n"
}
