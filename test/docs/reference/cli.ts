import { OPTIONS, USAGE } from "../../../src/cli/usage.ts"
import { code, header, table } from "./markdown.ts"

/** The usage text's commands, grouped by their first word (continuation lines stay with their command). */
const groups = (lines: ReadonlyArray<string>): ReadonlyArray<{ readonly name: string; readonly lines: Array<string> }> => {
  const out: Array<{ name: string; lines: Array<string> }> = []
  for (const line of lines) {
    const command = /^ {2}([a-z][a-z-]*)\b/.exec(line)
    if (command) {
      const last = out[out.length - 1]
      if (last !== undefined && last.name === command[1]) last.lines.push(line)
      else out.push({ name: command[1]!, lines: [line] })
    } else if (out.length > 0) out[out.length - 1]!.lines.push(line)
    else throw new Error(`cli: a usage line before any command: ${line}`)
  }
  return out
}

/** Consecutive one-line groups (start, serve, migrate ...) shown together, so the page is not a heading per line. */
const merged = (gs: ReturnType<typeof groups>) => {
  const out: Array<{ names: Array<string>; lines: Array<string> }> = []
  for (const g of gs) {
    const last = out[out.length - 1]
    if (g.lines.length === 1 && last !== undefined && last.lines.length === last.names.length) {
      last.names.push(g.name)
      last.lines.push(...g.lines)
    } else out.push({ names: [g.name], lines: [...g.lines] })
  }
  return out
}

/** docs/reference/cli.md: `gep --help` (src/cli/usage.ts) by command, and every flag parseArgs accepts. */
export const cliPage = (): string => {
  const lines = USAGE.split("\n")
  const [first, ...rest] = lines
  if (first !== "gep <command>") throw new Error(`cli: the usage text no longer starts with "gep <command>"`)
  const exit = rest.filter((l) => !l.startsWith(" "))
  const commands = merged(groups(rest.filter((l) => l.startsWith(" "))))
  const flags = Object.entries(OPTIONS).map(([name, o]) => {
    const option = o as { type: string; default?: unknown; short?: string }
    return [code(`--${name}`) + (option.short ? `, ${code(`-${option.short}`)}` : ""), option.type, option.default === undefined ? "" : code(String(option.default))]
  })
  return header("CLI", "src/cli/usage.ts (the text `gep --help` prints and the flags it parses)") +
    "`gep` administers a deployment: it talks to PostgreSQL directly (`DATABASE_URL`, see " +
    "[configuration](configuration.md)), so it runs where the platform's database is reachable. Every command prints " +
    "one JSON object on stdout; logs go to stderr. Run it as `npx gep ...` from anywhere in the checkout, " +
    "`npm run -s gep -- ...` (without `-s` npm prints its own banner lines first), or `bin/gep ...`.\n\n" +
    "## Commands\n\n" +
    commands.map((g) => `### ${g.names.map((n) => `gep ${n}`).join(", ")}\n\n\`\`\`\n${g.lines.map((l) => l.slice(2)).join("\n")}\n\`\`\``).join("\n\n") +
    "\n\n## Exit codes\n\n" + exit.join("\n") + "\n\n" +
    "## Flags\n\nOne flag set is parsed for every command; each command reads the flags its usage names.\n\n" +
    table(["flag", "type", "default"], flags) + "\n"
}
