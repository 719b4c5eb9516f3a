/**
 * Renders a bench JSON result as Markdown again (after the report's wording changed, for instance):
 *   node test/bench/render.ts test/bench/results/latest.json      → writes test/bench/results/latest.md
 */
import { readFileSync, writeFileSync } from "node:fs"
import { renderMarkdown } from "./report.ts"

for (const file of process.argv.slice(2)) {
  const target = file.replace(/\.json$/, ".md")
  writeFileSync(target, renderMarkdown(JSON.parse(readFileSync(file, "utf8"))))
  console.log(`wrote ${target}`)
}
