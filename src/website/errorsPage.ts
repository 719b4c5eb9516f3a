import { HttpServerResponse } from "effect/http"
import { escapeHtml } from "../../core/html.ts"
import { REQUEST_ERRORS, type RequestErrorCode } from "./answers.ts"

// The page every website-events error body links to (`docs: "/docs/website-events#<code>"`): one section per code of
// the catalogue in answers.ts, anchored by the code, so a link can never name a code the page lacks.

const section = (code: RequestErrorCode) => {
  const { status, message, fix } = REQUEST_ERRORS[code]
  return `<section id="${escapeHtml(code)}"><h2><code>${escapeHtml(code)}</code> <small>HTTP ${status}</small></h2>` +
    `<p>${escapeHtml(message)}</p><p><strong>Fix:</strong> ${escapeHtml(fix)}</p></section>`
}

export const errorsPage = (): string =>
  "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">" +
  "<title>Website events: error codes</title>" +
  "<style>body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}section{margin:1.5rem 0}" +
  "code{background:#f3f3f3;padding:0 .25rem}small{color:#666;font-weight:normal}</style></head><body><main>" +
  "<h1>Website events: error codes</h1>" +
  "<p>A request to <code>POST /api/v1/website-events</code> or to a source's webhook that is refused as a whole answers " +
  "<code>{ \"error\": { \"code\", \"message\", \"detail\"?, \"fix\", \"docs\" } }</code>; <code>docs</code> links to the code's " +
  "section below. Events judged one by one are answered in <code>results</code> instead (202). The whole API: <a href=\"/docs\">/docs</a>.</p>" +
  (Object.keys(REQUEST_ERRORS) as Array<RequestErrorCode>).map(section).join("") +
  "</main></body></html>"

const PAGE = errorsPage()

/** `GET /docs/website-events`: static, so cacheable, and scriptless, so its policy allows no script at all. */
export const errorsPageResponse = () =>
  HttpServerResponse.text(PAGE, {
    contentType: "text/html; charset=utf-8",
    headers: { "cache-control": "public, max-age=300", "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'" }
  })
