/** The links and headings of a Markdown page, as GitHub renders it (outside code blocks and code spans). */

export interface Link {
  readonly line: number
  readonly target: string
}

/** The page's lines with fenced code blocks blanked (line numbers kept) and code spans removed. */
const prose = (markdown: string): ReadonlyArray<string> => {
  let fence: string | undefined
  return markdown.split("\n").map((line) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1]
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined
      return ""
    }
    if (marker !== undefined) {
      fence = marker
      return ""
    }
    return line.replace(/(`+)[^`]*?\1/g, "")
  })
}

const INLINE = /!?\[(?:[^\][]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g
const DEFINITION = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/

export const linksOf = (markdown: string): ReadonlyArray<Link> =>
  prose(markdown).flatMap((line, i) => [
    ...[...line.matchAll(INLINE)].map((m) => ({ line: i + 1, target: m[1]! })),
    ...(DEFINITION.test(line) ? [{ line: i + 1, target: DEFINITION.exec(line)![1]! }] : [])
  ])

/** GitHub's anchor of a heading's text (github-slugger): lower case, punctuation dropped, spaces to hyphens. */
export const slug = (heading: string): string =>
  heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/[`*]/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
    .replace(/ /g, "-")

/** Every anchor a page has: its headings' slugs (repeats numbered as GitHub does) and explicit ids. */
export const anchorsOf = (markdown: string): ReadonlySet<string> => {
  const seen = new Map<string, number>()
  const anchors = new Set<string>()
  for (const line of prose(markdown)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (heading) {
      const base = slug(heading[1]!)
      const n = seen.get(base) ?? 0
      seen.set(base, n + 1)
      anchors.add(n === 0 ? base : `${base}-${n}`)
    }
    for (const id of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id[1]!)
  }
  return anchors
}
