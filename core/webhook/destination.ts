import { promises as dns, type LookupAddress, type LookupOptions } from "node:dns"
import { classifyAddress, isIpLiteral, type AddressPolicy } from "./addressPolicy.ts"

export type Resolver = (host: string) => Promise<ReadonlyArray<LookupAddress>>

export const systemResolver: Resolver = (host) => dns.lookup(host, { all: true, verbatim: true })

export type ParsedUrl = { readonly ok: true; readonly url: URL } | { readonly ok: false; readonly problem: string }

/**
 * Syntax rules of a subscription URL: absolute, https (plain http only to loopback, and only with the test switch),
 * no user:password part (credentials in URLs end up in logs and screenshots).
 */
export const parseTargetUrl = (raw: string, allowLoopback: boolean): ParsedUrl => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return { ok: false, problem: "must be an absolute https URL, e.g. https://example.com/webhooks" }
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && allowLoopback)) {
    return { ok: false, problem: "must use https" }
  }
  if (url.username !== "" || url.password !== "") return { ok: false, problem: "must not contain a user name or password" }
  if (url.hostname === "") return { ok: false, problem: "must name a host" }
  return { ok: true, url }
}

export const policyFor = (url: URL, allowLoopback: boolean): AddressPolicy =>
  ({ allowLoopback, loopbackOnly: url.protocol === "http:" })

export type HostCheck =
  | { readonly ok: true; readonly addresses: ReadonlyArray<LookupAddress> }
  | { readonly ok: false; readonly reason: string; readonly range?: string }

const bare = (host: string) => (host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host)

/** Resolves the host once and checks every address it resolves to; one blocked address refuses the host. */
export const checkHost = async (host: string, policy: AddressPolicy, resolve: Resolver = systemResolver): Promise<HostCheck> => {
  const name = bare(host)
  let addresses: ReadonlyArray<LookupAddress>
  if (isIpLiteral(name)) {
    addresses = [{ address: name, family: name.includes(":") ? 6 : 4 }]
  } else {
    try {
      addresses = await resolve(name)
    } catch {
      return { ok: false, reason: "its host name does not resolve" }
    }
    if (addresses.length === 0) return { ok: false, reason: "its host name does not resolve" }
  }
  for (const a of addresses) {
    const verdict = classifyAddress(a.address, policy)
    if (!verdict.allowed) {
      return {
        ok: false,
        range: verdict.range,
        reason: policy.loopbackOnly && verdict.range !== "loopback"
          ? `plain http is allowed only to loopback; it resolves to ${a.address}`
          : `it resolves to ${a.address} (${verdict.range}), an internal, private or metadata address`
      }
    }
  }
  return { ok: true, addresses }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | Array<LookupAddress>, family?: number) => void

/**
 * A `lookup` for http(s).request: the one DNS resolution of the attempt, checked before the socket connects, so the
 * connection goes to an address that was checked (no second lookup a rebinding DNS server could answer differently).
 * TLS still verifies the certificate against the host name (SNI and Host stay the name).
 */
export const guardedLookup = (policy: AddressPolicy, resolve: Resolver = systemResolver) =>
  (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    checkHost(hostname, policy, resolve).then((check) => {
      if (!check.ok) {
        return callback(Object.assign(new Error(`blocked destination: ${check.reason}`), { code: "EBLOCKEDDEST" }), "", 4)
      }
      const family = options.family === "IPv4" ? 4 : options.family === "IPv6" ? 6 : options.family
      const list = check.addresses.filter((a) => !family || a.family === family)
      if (list.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), "", 4)
      if (options.all) return callback(null, [...list])
      callback(null, list[0]!.address, list[0]!.family)
    }, (e: NodeJS.ErrnoException) => callback(e, "", 4))
  }
