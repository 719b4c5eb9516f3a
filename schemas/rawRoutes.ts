import { ConsolePaths } from "./rawRoutes/console.ts"
import { MessagingPaths } from "./rawRoutes/messaging.ts"
import { OidcPaths } from "./rawRoutes/oidc.ts"
import { OperationsPaths } from "./rawRoutes/operations.ts"
import { SdkPaths } from "./rawRoutes/sdk.ts"
import { WebsiteEventPaths } from "./rawRoutes/website.ts"

export { RawRouteComponents } from "./rawRoutes/document.ts"

// The routes served outside HttpApi (their reasons are beside each handler), described for /openapi.json so the
// document lists every route the platform answers (but itself and its viewer, /openapi.json and /docs), and the
// contract and fuzz tests reach them too.

export const RawRoutePaths: Record<string, Record<string, unknown>> = { ...WebsiteEventPaths, ...SdkPaths, ...MessagingPaths, ...OperationsPaths, ...OidcPaths, ...ConsolePaths }
