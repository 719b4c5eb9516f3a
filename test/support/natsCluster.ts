import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { TestHost } from "./netns.ts"
import { freePort } from "./platform.ts"
import { startTcpProxy, type TcpProxy } from "./tcpProxy.ts"

/**
 * A 3-node JetStream cluster of the test's own whose third node runs on a test host (netns.ts): the host's `clients`
 * link carries client connections to it, its `nats` link the routes to and from its two peers (a proxy on the
 * machine's end per peer, and the peers dial its address on that link). Cutting the host's `nats` link cuts the
 * node from its peers while clients still reach it: the partition Jepsen's NATS analysis ran.
 */
export interface SplitCluster {
  /** Client URLs of the two nodes on the machine. */
  readonly majorityUrl: string
  /** Client URL of the node on the test host. */
  readonly isolatedUrl: string
  readonly stop: () => Promise<void>
}

const NATS_BIN = process.env.NATS_BIN ?? "nats-server"
/** Inside the host's namespace the node has the ports to itself. */
const INSIDE = { client: 4222, cluster: 6222, http: 8222 }

/** `listen`: where clients and monitoring connect; `routeListen`: where routes do (the node on the test host keeps them apart). */
const conf = (name: string, listen: string, routeListen: string, ports: { client: number; cluster: number; http: number }, dir: string, routes: ReadonlyArray<string>) => `
server_name: ${name}
listen: ${listen}:${ports.client}
http: ${listen}:${ports.http}
jetstream { store_dir: "${join(dir, name)}" }
cluster {
  name: gepsplit
  listen: ${routeListen}:${ports.cluster}
  routes: [${routes.map((r) => `\n    nats-route://${r}`).join("")}
  ]
}
`

/** The node answers and sees a JetStream meta leader among three. */
const ready = async (httpBase: string) => {
  const jsz = await fetch(`${httpBase}/jsz`, { signal: AbortSignal.timeout(1_000) }).then((r) => r.text(), () => "")
  const compact = jsz.replace(/\s/g, "")
  return /"meta_cluster":\{[^}]*"leader":"[^"]+"/.test(compact) && compact.includes('"cluster_size":3')
}

export const startSplitCluster = async (host: TestHost): Promise<SplitCluster> => {
  const hostNatsAddress = host.addressOf("nats")
  const dir = mkdtempSync(join(tmpdir(), "gep-nats-split-"))
  const nodes = await Promise.all([0, 1].map(async () => ({ client: await freePort(), cluster: await freePort(), http: await freePort() })))
  const proxies: Array<TcpProxy> = []
  const children: Array<ChildProcess> = []
  const stop = async () => {
    for (const c of children) c.kill("SIGKILL")
    await Promise.all(proxies.map((p) => p.close()))
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    // The routes of the isolated node reach each peer through a proxy on the machine's end of its `nats` link.
    for (const n of nodes) proxies.push(await startTcpProxy({ host: "127.0.0.1", port: n.cluster }, hostNatsAddress.outside))
    const isolatedRoute = `${hostNatsAddress.inside}:${INSIDE.cluster}`
    const files = [
      ...nodes.map((n, i) => conf(`m${i + 1}`, "127.0.0.1", "127.0.0.1", n, dir, [...nodes.filter((o) => o !== n).map((o) => `127.0.0.1:${o.cluster}`), isolatedRoute])),
      // Routes on the `nats` link only: listening on every address, the node was also reached by its peers over the
      // clients' link (gossiped route URLs), and a cut of the `nats` link left it half connected.
      conf("i3", host.placement.address, hostNatsAddress.inside, INSIDE, dir, proxies.map((p) => `${hostNatsAddress.outside}:${p.port}`))
    ]
    files.forEach((text, i) => writeFileSync(join(dir, `n${i}.conf`), text))
    for (const i of [0, 1]) children.push(spawn(NATS_BIN, ["-c", join(dir, `n${i}.conf`)], { stdio: "ignore" }))
    children.push(spawn("ip", ["netns", "exec", host.name, NATS_BIN, "-c", join(dir, "n2.conf")], { stdio: "ignore" }))
    const bases = [...nodes.map((n) => `http://127.0.0.1:${n.http}`), `http://${host.placement.address}:${INSIDE.http}`]
    for (let t = 0; ; t++) {
      if ((await Promise.all(bases.map(ready))).every(Boolean)) break
      if (t > 150) throw new Error("the split cluster elected no JetStream meta leader in 30 s")
      await new Promise((r) => setTimeout(r, 200))
    }
    return {
      majorityUrl: nodes.map((n) => `nats://127.0.0.1:${n.client}`).join(","),
      isolatedUrl: `nats://${host.placement.address}:${INSIDE.client}`,
      stop
    }
  } catch (e) {
    await stop()
    throw e
  }
}
