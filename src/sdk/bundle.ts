import { createHash } from "node:crypto"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"
import { build } from "esbuild"

// The browser script compiled once per process (no build step in this project): one minified IIFE, deterministic for
// a given source and esbuild version, so its ETag and its SRI hash are stable for a release.

export const SDK_SOURCE = fileURLToPath(new URL("./browser/svcEvents.ts", import.meta.url))
export const SDK_VERSION = "1.0.0"

export interface SdkBundle {
  readonly code: string
  readonly etag: string
  /** Subresource Integrity value for `<script integrity="…">`. */
  readonly integrity: string
  readonly bytes: number
  readonly gzipBytes: number
}

export const bundleSdk = async (): Promise<SdkBundle> => {
  const out = await build({
    entryPoints: [SDK_SOURCE], bundle: true, minify: true, format: "iife", target: "es2019", platform: "browser",
    write: false, legalComments: "none", charset: "utf8", logLevel: "silent",
    banner: { js: `/* svc-events.js ${SDK_VERSION} */` }
  })
  const code = out.outputFiles[0]!.text
  const bytes = Buffer.from(code)
  return {
    code,
    etag: `"${createHash("sha256").update(bytes).digest("base64url").slice(0, 27)}"`,
    integrity: `sha384-${createHash("sha384").update(bytes).digest("base64")}`,
    bytes: bytes.length,
    gzipBytes: gzipSync(bytes, { level: 9 }).length
  }
}
