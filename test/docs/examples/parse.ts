/**
 * The tested-example format of docs/guide pages (what docs-a writes, test/docs/examples.test.ts runs):
 *
 *   ```http                                  (or `http skip-test`: shown, not run)
 *   METHOD /path?query
 *   Header: value                            (`Authorization: Bearer $GEP_API_KEY` literally)
 *
 *   { JSON body, if any }
 *   ```
 *   ```json answer=STATUS                    (immediately after: only blank lines between)
 *   { the answer's body as shown }
 *   ```
 *
 * The answer is compared as match.ts says ("…" matches anything, "$name" captures, `"…": "…"` entries stand for keys
 * left out); `$name` in the path, headers or body is replaced by what an earlier answer captured ($GEP_API_KEY,
 * $HOTEL_ID and $HOTEL_CODE are the page's tenant's), and a request body's `"…": "…"` entries are dropped when sent.
 */

export interface Request {
  readonly method: string
  /** Path and query, variables not yet replaced. */
  readonly target: string
  readonly headers: ReadonlyArray<readonly [string, string]>
  /** The body's text, variables not yet replaced; undefined when none. */
  readonly body: string | undefined
}

export interface Answer {
  readonly line: number
  readonly status: number
  /** The shown body, parsed; undefined when the block is empty. */
  readonly body: unknown
}

export interface Example {
  readonly page: string
  /** 1-based line of the request block's opening fence. */
  readonly line: number
  readonly skip: boolean
  readonly request: Request
  readonly answer: Answer | undefined
}

/** A page not in the format, with where. */
export class FormatError extends Error {
  readonly page: string
  readonly line: number
  constructor(page: string, line: number, problem: string) {
    super(`${page}:${line}: ${problem}`)
    this.page = page
    this.line = line
  }
}

interface Block {
  readonly line: number
  readonly info: string
  readonly text: string
  /** Lines after the closing fence up to the next block's opening, all blank. */
  readonly adjacentToNext: boolean
}

/** The fenced blocks of a Markdown page (``` or ~~~, as long a closing fence as the opening). */
export const blocksOf = (page: string, markdown: string): ReadonlyArray<Block> => {
  const lines = markdown.split("\n")
  const blocks: Array<{ line: number; info: string; text: string; end: number }> = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^ {0,3}(`{3,}|~{3,})\s*(.*)$/.exec(lines[i]!)
    if (!open) continue
    const fence = open[1]!
    let j = i + 1
    while (j < lines.length && !new RegExp(`^ {0,3}${fence[0]}{${fence.length},}\\s*$`).test(lines[j]!)) j++
    if (j >= lines.length) throw new FormatError(page, i + 1, "a code block that is never closed")
    blocks.push({ line: i + 1, info: open[2]!.trim(), text: lines.slice(i + 1, j).join("\n"), end: j })
    i = j
  }
  return blocks.map((b, k) => {
    const next = blocks[k + 1]
    const between = next ? lines.slice(b.end + 1, next.line - 1) : ["x"]
    return { line: b.line, info: b.info, text: b.text, adjacentToNext: between.every((l) => l.trim() === "") }
  })
}

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]

export const parseRequest = (page: string, line: number, text: string): Request => {
  const lines = text.split("\n")
  const first = /^([A-Z]+) (\/\S*)$/.exec(lines[0]!.trim())
  if (!first || !METHODS.includes(first[1]!)) {
    throw new FormatError(page, line, `an http block must start with "METHOD /path", not ${JSON.stringify(lines[0])}`)
  }
  const headers: Array<readonly [string, string]> = []
  let i = 1
  for (; i < lines.length && lines[i]!.trim() !== ""; i++) {
    const header = /^([A-Za-z0-9-]+):\s*(.*)$/.exec(lines[i]!)
    if (!header) throw new FormatError(page, line + 1 + i, `not a header line (a body needs a blank line before it): ${JSON.stringify(lines[i])}`)
    headers.push([header[1]!, header[2]!.trim()])
  }
  const body = lines.slice(i + 1).join("\n").trim()
  return { method: first[1]!, target: first[2]!, headers, body: body === "" ? undefined : body }
}

const ANSWER = /^json\s+answer=(\d{3})$/

export const parseAnswer = (page: string, line: number, info: string, text: string): Answer => {
  const status = Number(ANSWER.exec(info)![1])
  if (text.trim() === "") return { line, status, body: undefined }
  try {
    return { line, status, body: JSON.parse(text) }
  } catch (e) {
    throw new FormatError(page, line, `the answer is not JSON (${(e as Error).message}); abbreviate with "…" values or "…": "…" entries`)
  }
}

/** Every example of a page, in order; a page not in the format throws a FormatError naming the line. */
export const examplesOf = (page: string, markdown: string): ReadonlyArray<Example> => {
  const blocks = blocksOf(page, markdown)
  const examples: Array<Example> = []
  for (let k = 0; k < blocks.length; k++) {
    const b = blocks[k]!
    if (b.info !== "http" && b.info !== "http skip-test") {
      if (ANSWER.test(b.info)) throw new FormatError(page, b.line, "an answer block must come right after an http block")
      continue
    }
    const skip = b.info === "http skip-test"
    const next = blocks[k + 1]
    const answered = next !== undefined && b.adjacentToNext && ANSWER.test(next.info)
    if (skip) {
      examples.push({ page, line: b.line, skip, request: { method: "", target: "", headers: [], body: b.text }, answer: undefined })
      if (answered) k++
      continue
    }
    const request = parseRequest(page, b.line, b.text)
    if (!answered) {
      throw new FormatError(page, b.line, "an http block must be followed right away by a ```json answer=STATUS block (or be marked ```http skip-test)")
    }
    examples.push({ page, line: b.line, skip, request, answer: parseAnswer(page, next.line, next.info, next.text) })
    k++
  }
  return examples
}
