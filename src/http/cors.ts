/**
 * CORS headers of an answer to a page's request (website events, the newsletter widget): the request's own Origin
 * echoed (never with credentials, so this leaks nothing), and the headers a page may read: when to retry and the
 * rate-limit budget, and the request id to quote. None for a request without an Origin the route accepts.
 */
export const corsHeaders = (origin: string | null | undefined): Record<string, string> =>
  origin === undefined || origin === null ? {} : {
    "access-control-allow-origin": origin,
    "vary": "Origin",
    "access-control-expose-headers": "Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Request-Id"
  }
