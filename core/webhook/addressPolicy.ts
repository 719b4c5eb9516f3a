import ipaddr from "ipaddr.js"

/**
 * Which IP addresses a webhook may connect to. Default deny: only addresses ipaddr.js classifies as plain `unicast`
 * pass, so loopback, RFC 1918, link-local (169.254/16, fe80::/10, which holds most cloud metadata services),
 * carrier-grade NAT (100.64/10, e.g. Alibaba's 100.100.100.200), unique-local (fc00::/7, e.g. AWS fd00:ec2::254),
 * 0.0.0.0/8, multicast, broadcast, documentation/benchmark/reserved ranges, NAT64, 6to4 and Teredo (which embed or
 * tunnel to IPv4 we cannot see) are all refused. An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is judged as the IPv4
 * address it carries. A few public addresses are refused by name because clouds answer metadata on them.
 */
const EXTRA_BLOCKED = new Set([
  "168.63.129.16", // Azure wire server (public range, answers only inside Azure)
  "169.254.169.254", "169.254.170.2", "100.100.100.200", "192.0.0.192", // metadata (already in blocked ranges)
  "fd00:ec2::254", "fd00:ec2::23"
])

export interface AddressVerdict {
  readonly allowed: boolean
  /** The range name (e.g. `private`, `loopback`, `linkLocal`, `unicast`), or `invalid`. */
  readonly range: string
}

export interface AddressPolicy {
  /** The development/test switch GEP_WEBHOOKS_ALLOW_LOOPBACK=1: loopback addresses pass too. */
  readonly allowLoopback: boolean
  /** Plain-HTTP targets: only loopback may be reached (and only with allowLoopback). */
  readonly loopbackOnly?: boolean
}

const parse = (address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined => {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address
  // Only canonical forms: DNS answers are canonical, and WHATWG URL parsing already turned 0x7f.1 into 127.0.0.1.
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return ipaddr.IPv4.parse(bare)
  if (ipaddr.IPv6.isValid(bare)) return ipaddr.IPv6.parse(bare)
  return undefined
}

export const isIpLiteral = (host: string): boolean => parse(host) !== undefined

export const classifyAddress = (address: string, policy: AddressPolicy): AddressVerdict => {
  let ip = parse(address)
  if (ip === undefined) return { allowed: false, range: "invalid" }
  if (ip.kind() === "ipv6") {
    const v6 = ip as ipaddr.IPv6
    if (v6.zoneId !== undefined) return { allowed: false, range: "scoped" }
    if (v6.isIPv4MappedAddress()) ip = v6.toIPv4Address()
  }
  const range = ip.range()
  const canonical = ip.kind() === "ipv6" ? (ip as ipaddr.IPv6).toNormalizedString() : ip.toString()
  if (range === "loopback") return { allowed: policy.allowLoopback, range }
  if (policy.loopbackOnly) return { allowed: false, range }
  if (EXTRA_BLOCKED.has(canonical) || EXTRA_BLOCKED.has(ip.toString())) return { allowed: false, range: "metadata" }
  return { allowed: range === "unicast", range }
}
