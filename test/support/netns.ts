import { execFileSync } from "node:child_process"
import { randomInt } from "node:crypto"
import { startTcpProxy, type TcpProxy } from "./tcpProxy.ts"
import type { Placement } from "./processes.ts"

/**
 * Test hosts in network namespaces of the run's own (iproute2's `ip netns` and veth pairs), for faults that cross a
 * network: each host has one link per peer it talks to (the clients, NATS, PostgreSQL), so one of them can be cut
 * while the others carry on. A link is a veth pair: the host's end in its namespace, the other in the machine's, where
 * a TCP proxy on that end's address forwards to the real server on loopback (the servers listen on 127.0.0.1 only).
 *
 * A cut sets the host's end of the link down: its packets go nowhere and nothing comes back. Established connections
 * see silence (retransmissions, then their own timeouts), new ones are refused by the host's own kernel (no route),
 * where a partition in a data centre would leave them unanswered. `tc netem` (latency, loss) is not in this kernel.
 */

const ip = (...args: Array<string>) => execFileSync("ip", args, { stdio: ["ignore", "pipe", "pipe"] }).toString()

/** Why namespaces cannot be made here (not root, no iproute2, no permission), or undefined when they can. */
export const netnsUnavailable = (): string | undefined => {
  if (process.getuid?.() !== 0) return "network namespaces need root"
  const probe = `gepprobe${process.pid % 100_000}`
  try {
    ip("netns", "add", probe)
    ip("netns", "del", probe)
    return undefined
  } catch (e) {
    return `ip netns add failed: ${(e as { stderr?: Buffer }).stderr?.toString().trim() ?? String(e)}`
  }
}

export type Peer = "clients" | "nats" | "postgres"

export interface TestHost {
  readonly name: string
  readonly placement: Placement
  /** The URLs a process on this host reaches NATS and PostgreSQL by (through its links). */
  readonly natsUrl: string
  readonly databaseUrl: string
  /** A link's two addresses: the host's end (`inside`) and the machine's (`outside`). */
  readonly addressOf: (peer: Peer) => { readonly inside: string; readonly outside: string }
  readonly cut: (peer: Peer) => void
  readonly heal: (peer: Peer) => void
  readonly remove: () => Promise<void>
}

const PEERS: ReadonlyArray<Peer> = ["clients", "nats", "postgres"]
let hosts = 0
/** A /16 of 10/8 per run, so two runs on one machine never share addresses. */
const site = randomInt(100, 200)

/** A test host whose links reach the given NATS and PostgreSQL (URLs on loopback). */
export const makeHost = async (label: string, servers: { readonly natsUrl: string; readonly databaseUrl: string }): Promise<TestHost> => {
  const index = hosts++
  const name = `gep${process.pid % 10_000}${label}`.slice(0, 12)
  const ends = (peer: Peer) => ({ inside: `${name}${peer[0]}`, outside: `${name}${peer[0]}x` })
  const addresses = (peer: Peer) => {
    const subnet = `10.${site}.${index * 4 + PEERS.indexOf(peer)}`
    return { outside: `${subnet}.1`, inside: `${subnet}.2` }
  }
  ip("netns", "add", name)
  const proxies: Array<TcpProxy> = []
  try {
    ip("netns", "exec", name, "ip", "link", "set", "lo", "up")
    for (const peer of PEERS) {
      const { inside, outside } = ends(peer)
      const a = addresses(peer)
      ip("link", "add", outside, "type", "veth", "peer", "name", inside)
      ip("link", "set", inside, "netns", name)
      ip("addr", "add", `${a.outside}/30`, "dev", outside)
      ip("link", "set", outside, "up")
      ip("netns", "exec", name, "ip", "addr", "add", `${a.inside}/30`, "dev", inside)
      ip("netns", "exec", name, "ip", "link", "set", inside, "up")
    }
    const nats = new URL(servers.natsUrl.split(",")[0]!)
    const pg = new URL(servers.databaseUrl)
    const natsProxy = await startTcpProxy({ host: nats.hostname, port: Number(nats.port || 4222) }, addresses("nats").outside)
    const pgProxy = await startTcpProxy({ host: pg.hostname, port: Number(pg.port || 5432) }, addresses("postgres").outside)
    proxies.push(natsProxy, pgProxy)
    const databaseUrl = new URL(servers.databaseUrl)
    databaseUrl.hostname = addresses("postgres").outside
    databaseUrl.port = String(pgProxy.port)
    const setLink = (peer: Peer, state: "up" | "down") => ip("netns", "exec", name, "ip", "link", "set", ends(peer).inside, state)
    return {
      name,
      placement: { netns: name, address: addresses("clients").inside },
      natsUrl: `nats://${addresses("nats").outside}:${natsProxy.port}`,
      databaseUrl: databaseUrl.toString(),
      addressOf: addresses,
      cut: (peer) => setLink(peer, "down"),
      heal: (peer) => setLink(peer, "up"),
      remove: async () => {
        await Promise.all(proxies.map((p) => p.close()))
        removeHost(name)
      }
    }
  } catch (e) {
    await Promise.all(proxies.map((p) => p.close()))
    removeHost(name)
    throw e
  }
}

/** The namespace (and the host ends of its veth pairs, which go with it) and the machine's ends. */
const removeHost = (name: string) => {
  for (const peer of PEERS) {
    try {
      ip("link", "del", `${name}${peer[0]}x`)
    } catch {
      // already gone with its pair
    }
  }
  try {
    ip("netns", "del", name)
  } catch {
    // never made
  }
}
