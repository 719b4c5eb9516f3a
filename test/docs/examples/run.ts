import { match, mismatchText, requestBody, substitute } from "./match.ts"
import type { Example } from "./parse.ts"

/** What a page starts with: its tenant's all-scope key and hotel. */
export interface PageContext {
  readonly baseUrl: string
  readonly apiKey: string
  readonly hotelId: string
  readonly hotelCode: string
}

export interface Outcome {
  readonly ran: number
  readonly skipped: number
  /** The first failure (later examples of a page depend on what earlier ones captured), or undefined. */
  readonly failure: string | undefined
}

const excerpt = (body: unknown) => {
  const text = typeof body === "string" ? body : JSON.stringify(body)
  return text.length > 400 ? text.slice(0, 400) + "…" : text
}

/** Runs a page's examples top to bottom against a platform; stops at the first that does not answer as shown. */
export const runPage = async (examples: ReadonlyArray<Example>, context: PageContext): Promise<Outcome> => {
  const variables = new Map<string, unknown>([
    ["GEP_API_KEY", context.apiKey], ["HOTEL_ID", context.hotelId], ["HOTEL_CODE", context.hotelCode]
  ])
  let ran = 0
  let skipped = 0
  for (const example of examples) {
    if (example.skip) {
      skipped++
      continue
    }
    const { request, answer } = example
    const where = `${example.page}:${example.line}: ${request.method} ${request.target}`
    try {
      const target = substitute(request.target, variables)
      const headers = request.headers.map(([name, value]) => [name, substitute(value, variables)] as [string, string])
      const body = request.body === undefined ? undefined : requestBody(request.body, variables)
      const res = await fetch(context.baseUrl + target, { method: request.method, headers, body })
      const text = await res.text()
      let actual: unknown = text
      try {
        actual = JSON.parse(text)
      } catch {
        // a page or script: compared as text
      }
      ran++
      if (res.status !== answer!.status) {
        return { ran, skipped, failure: `${where}\n  answered ${res.status}, the page shows ${answer!.status} (line ${answer!.line}): ${excerpt(actual)}` }
      }
      const mismatch = answer!.body === undefined ? undefined : match(answer!.body, actual, variables)
      if (mismatch) return { ran, skipped, failure: `${where}\n  ${mismatchText(mismatch)} (answer at line ${answer!.line})` }
    } catch (e) {
      return { ran, skipped, failure: `${where}\n  ${(e as Error).message}` }
    }
  }
  return { ran, skipped, failure: undefined }
}
