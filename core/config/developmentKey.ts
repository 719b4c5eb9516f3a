import { randomBytes } from "node:crypto"
import { mkdir, readFile, writeFile } from "node:fs/promises"
import { fileURLToPath } from "node:url"

// The 32-byte keys a deployment must set (GEP_WEBHOOK_ENCRYPTION_KEY, GEP_PRIVACY_KEY), and what a development machine
// uses without them: a key generated once into .data/ (mode 0600, never committed), so `npm start` works on a fresh
// clone and every process of the machine (ingress, workers, CLI) reads the same one.

/** A key given in base64, refused unless it is exactly 32 bytes (`origin` names where it came from). */
export const decodeKey = (base64: string, origin: string): Buffer => {
  const key = Buffer.from(base64.trim(), "base64")
  if (key.length !== 32) throw new Error(`${origin} must be 32 bytes in base64 (got ${key.length} bytes)`)
  return key
}

/** `.data/<file>`, created with a random key by the first process that needs it (`wx`: concurrent first starts agree). */
export const developmentKey = async (file: string): Promise<Buffer> => {
  const dir = fileURLToPath(new URL("../../.data/", import.meta.url))
  const path = fileURLToPath(new URL(`../../.data/${file}`, import.meta.url))
  await mkdir(dir, { recursive: true })
  try {
    await writeFile(path, randomBytes(32).toString("base64") + "\n", { mode: 0o600, flag: "wx" })
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e
  }
  return decodeKey(await readFile(path, "utf8"), path)
}
