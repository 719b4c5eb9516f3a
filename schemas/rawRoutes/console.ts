import { header, jsonContent, param } from "./document.ts"
import { InternalError, NotFound } from "../errors.ts"

// The operator console (src/console/routes.ts): one page for /console and every path under it, and its assets.

const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; " +
  "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

const pageHeaders = {
  "Content-Security-Policy": header(CSP),
  "X-Content-Type-Options": header("nosniff"),
  "Referrer-Policy": header("no-referrer"),
  "Cross-Origin-Opener-Policy": header("same-origin"),
  "Cache-Control": header("no-cache (revalidated on every load: the page names the current assets)"),
  ETag: header("the page's version")
}

const page = (operationId: string, summary: string, parameters: ReadonlyArray<unknown> = []) => ({
  get: {
    tags: ["console"],
    operationId,
    summary,
    parameters: [...parameters, param("If-None-Match", "header", "the ETag of the copy held")],
    responses: {
      "200": { description: "The console's page (the client routes by path; it signs in with POST /api/v1/staff/sign-in)", headers: pageHeaders, content: { "text/html": { schema: { type: "string" } } } },
      "304": { description: "Not modified (If-None-Match matched the ETag)" },
      "500": { description: "The console could not be built (its tests build it and walk it in a browser)", content: jsonContent(InternalError) }
    }
  }
})

export const ConsolePaths = {
  "/console": page("getConsole", "The operator console: a single page, a client of this public API (staff sign in with an emailed code)"),
  "/console/{path}": page("getConsolePath", "Any path under /console (a screen of the console, e.g. /console/contacts/{id}): the same page",
    [param("path", "path", "the console screen's path; may hold slashes")]),
  "/console/assets/{file}": {
    get: {
      tags: ["console"],
      operationId: "getConsoleAsset",
      summary: "The console's script and stylesheet, named by their content's hash: cached a year, immutable; gzip when accepted",
      parameters: [param("file", "path", "an asset's name as the page links it")],
      responses: {
        "200": {
          description: "The asset",
          headers: { "Cache-Control": header("public, max-age=31536000, immutable"), "X-Content-Type-Options": header("nosniff") },
          content: { "application/javascript": { schema: { type: "string" } }, "text/css": { schema: { type: "string" } } }
        },
        "404": { description: "No asset of that name (names change with every release)", content: jsonContent(NotFound) },
        "500": { description: "The console could not be built", content: jsonContent(InternalError) }
      }
    }
  }
}
