// Pure rules of a visit: what of a URL is kept, and whether a request's Origin is one of the allowed domains.

/**
 * A page URL without its scheme and host: path, query and fragment (the domain is the tenant's own site and says
 * nothing about the visitor; dropping it keeps one page one value across www/apex and staging hosts). A relative URL
 * is kept as sent.
 */
export const stripDomain = (url: string): string => {
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*(.*)$/i.exec(url.trim()) ?? /^\/\/[^/?#]*(.*)$/.exec(url.trim())
  if (m === null) return url
  const rest = m[1] ?? ""
  return rest === "" ? "/" : rest.startsWith("/") ? rest : `/${rest}`
}

/** The host of an Origin header (`https://www.hotel.com:8443` → `www.hotel.com`), or undefined when it is not one. */
export const hostOf = (origin: string): string | undefined => {
  try {
    const u = new URL(origin)
    return u.protocol === "http:" || u.protocol === "https:" ? u.hostname.toLowerCase() : undefined
  } catch {
    return undefined
  }
}

/**
 * Whether a request may send visitor events: any origin (or none) when no domain is configured; otherwise the Origin
 * header's host must be one of the domains or a subdomain of one (`hotel.com` allows `www.hotel.com`).
 */
export const originAllowed = (origin: string | undefined, domains: ReadonlyArray<string>): boolean => {
  if (domains.length === 0) return true
  const host = origin === undefined ? undefined : hostOf(origin)
  if (host === undefined) return false
  return domains.some((d) => host === d || host.endsWith(`.${d}`))
}
