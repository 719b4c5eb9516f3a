import { createHash } from "node:crypto"
import { basename } from "node:path"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"
import { build } from "esbuild"

// The console's web code compiled once per process (no build step in this project, like the browser SDK of
// src/sdk/bundle.ts): one minified ES module and one stylesheet, named by their content's hash so that they can be
// cached for a year, and the page that loads them.

export const CONSOLE_ENTRY = fileURLToPath(new URL("./web/main.tsx", import.meta.url))
export const ASSETS_PREFIX = "/console/assets/"

export interface ConsoleAsset {
  readonly body: Uint8Array
  readonly contentType: string
  /** The same bytes gzipped once here (level 9), served to browsers that accept gzip. */
  readonly gzip: Uint8Array
}

export interface ConsoleBundle {
  /** The single page, served for /console and every path under it. */
  readonly html: string
  /** By file name (`main-<hash>.js`, `main-<hash>.css`). */
  readonly assets: ReadonlyMap<string, ConsoleAsset>
  /** Milliseconds the compilation took. */
  readonly buildMs: number
}

const contentTypes: Record<string, string> = { js: "application/javascript; charset=utf-8", css: "text/css; charset=utf-8" }

/** The page: no inline script or style (the CSP allows neither), the assets by their hashed names. */
const page = (script: string, stylesheet: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Guest engagement console</title>
<link rel="stylesheet" href="${ASSETS_PREFIX}${stylesheet}">
<script type="module" src="${ASSETS_PREFIX}${script}"></script>
</head>
<body>
<div id="app"><main class="boot" aria-busy="true"><p>Loading the console…</p></main></div>
<noscript><p>The console needs JavaScript.</p></noscript>
</body>
</html>
`

export const bundleConsole = async (): Promise<ConsoleBundle> => {
  const started = performance.now()
  const out = await build({
    entryPoints: [CONSOLE_ENTRY], bundle: true, minify: true, format: "esm", target: "es2022", platform: "browser",
    jsx: "automatic", jsxImportSource: "preact", write: false, outdir: "/console-assets", entryNames: "[name]-[hash]",
    legalComments: "none", charset: "utf8", logLevel: "silent", sourcemap: false
  })
  const assets = new Map<string, ConsoleAsset>()
  for (const file of out.outputFiles) {
    const name = basename(file.path)
    const extension = name.slice(name.lastIndexOf(".") + 1)
    assets.set(name, { body: file.contents, contentType: contentTypes[extension] ?? "application/octet-stream", gzip: gzipSync(file.contents, { level: 9 }) })
  }
  const named = (extension: string) => [...assets.keys()].find((name) => name.endsWith(`.${extension}`)) ?? ""
  return { html: page(named("js"), named("css")), assets, buildMs: Math.round(performance.now() - started) }
}

/** A strong validator for the page (its text changes only with the assets' hashes). */
export const etagOf = (text: string) => `"${createHash("sha256").update(text).digest("base64url").slice(0, 27)}"`
