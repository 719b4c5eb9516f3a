import { Config, Effect, Result } from "effect"
import { HttpMiddleware, HttpRouter } from "effect/http"
import { IpNetwork, NetAddress } from "effect/net"

/**
 * One entry of `GEP_TRUSTED_PROXIES`: a network in CIDR notation (`10.0.0.0/8`) or one address (`10.1.2.3`, a network
 * of one).
 */
export const parseTrustedProxy = (entry: string): Result.Result<IpNetwork.IpNetwork, NetAddress.NetAddressError> =>
  entry.includes("/")
    ? IpNetwork.fromString(entry)
    : Result.flatMap(NetAddress.ipFromString(entry), (a) => IpNetwork.fromAddress(a, NetAddress.isIpv4Address(a) ? 32 : 128))

/** The trusted proxies, or a message naming the entry that is neither an address nor a network. */
export const parseTrustedProxies = (raw: string): Result.Result<ReadonlyArray<IpNetwork.IpNetwork>, string> => {
  const networks: Array<IpNetwork.IpNetwork> = []
  for (const entry of raw.split(",").map((s) => s.trim()).filter((s) => s.length > 0)) {
    const parsed = parseTrustedProxy(entry)
    if (Result.isFailure(parsed)) return Result.fail(`GEP_TRUSTED_PROXIES: ${JSON.stringify(entry)} is neither an IP address nor a CIDR network`)
    networks.push(parsed.success)
  }
  return Result.succeed(networks)
}

/**
 * The client's address behind the load balancers named in `GEP_TRUSTED_PROXIES` (comma-separated addresses or CIDR
 * networks; none by default): when the socket's peer is one of them, the request's address is the right-most
 * `X-Forwarded-For` entry that is not, as Effect's `xForwardedHeaders` reads it. Consent evidence, the delivery log and
 * per-address rate limits then name the guest, not the balancer; a client's own `X-Forwarded-For` is never believed,
 * since its socket is not a trusted proxy.
 */
export const ForwardedFor = HttpRouter.middleware(Effect.gen(function*() {
  const raw = yield* Config.String("GEP_TRUSTED_PROXIES").pipe(Config.withDefault(""), Effect.orDie)
  const parsed = parseTrustedProxies(raw)
  if (Result.isFailure(parsed)) return yield* Effect.die(new Error(parsed.failure))
  return parsed.success.length === 0
    ? HttpMiddleware.make((app) => app)
    : HttpMiddleware.xForwardedHeaders({ trustedProxies: parsed.success })
}), { global: true })
