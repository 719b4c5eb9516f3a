import { header, jsonContent, param } from "./document.ts"
import { InternalError, NotFound } from "../errors.ts"
import { SdkIntegrity } from "../websiteEvents.ts"

// The browser SDK (src/sdk/routes.ts): a script, its integrity value, and the development demo page.

export const SdkPaths = {
  "/sdk/svc-events.js": {
    get: {
      tags: ["browser sdk"],
      operationId: "getSdkScript",
      summary: "The browser script (one IIFE, no cookies, no dependencies); ETag with 304, cached five minutes, CORS open",
      parameters: [param("If-None-Match", "header", "the ETag of the copy held")],
      responses: {
        "200": { description: "The script", headers: { ETag: header("the script's version"), "Cache-Control": header("public, max-age=300") }, content: { "application/javascript": { schema: { type: "string" } } } },
        "304": { description: "Not modified (If-None-Match matched the ETag)" },
        "500": { description: "The script could not be built (the SDK tests build and run it in a browser)", content: jsonContent(InternalError) }
      }
    }
  },
  "/sdk/svc-events.js.sri": {
    get: {
      tags: ["browser sdk"],
      operationId: "getSdkIntegrity",
      summary: "The script's Subresource Integrity value (sha384 of the bytes served) and its sizes",
      responses: { "200": { description: "The integrity value", content: jsonContent(SdkIntegrity) } }
    }
  },
  "/sdk/demo.html": {
    get: {
      tags: ["browser sdk"],
      operationId: "getSdkDemoPage",
      summary: "A demo booking page exercising the script: served only in development (`gep start` sets GEP_SDK_DEMO)",
      responses: {
        "200": { description: "The page", content: { "text/html": { schema: { type: "string" } } } },
        "404": { description: "Not in development: the page is not served", content: jsonContent(NotFound) }
      }
    }
  }
}

