import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { ActorNames } from "../../actors/registry.ts"

const ROOT = fileURLToPath(new URL("../../", import.meta.url))

/** Every `ActorProtocol.make("<name>"` under actors/, with the file that declares it. */
const declaredProtocols = () =>
  readdirSync(join(ROOT, "actors"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .flatMap((f) => [...readFileSync(join(ROOT, "actors", f), "utf8").matchAll(/ActorProtocol\.make\("([^"]+)"/g)]
      .map((m) => ({ name: m[1]!, file: relative(ROOT, join(ROOT, "actors", f)) })))

describe("the actor registry", () => {
  it("runs an actor for every protocol declared: a missing line fails here, not as a 503 after the reply timeout", () => {
    const declared = declaredProtocols()
    expect(declared.length).toBeGreaterThan(5)
    const missing = declared.filter((p) => !ActorNames.includes(p.name))
      .map((p) => `${p.file} declares the "${p.name}" protocol, but actors/registry.ts runs no actor for it: add it to Actors`)
    expect(missing).toEqual([])
    expect(new Set(ActorNames).size, "one actor per protocol name").toBe(ActorNames.length)
  })
})
