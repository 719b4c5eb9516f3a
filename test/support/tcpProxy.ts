import { connect, createServer, type Socket } from "node:net"

/** A TCP proxy to a real server that a test can cut and restore: the server going away, as its clients see it. */
export interface TcpProxy {
  readonly port: number
  /** Every open connection reset, and every new one until `restore` reset at once. */
  readonly cut: () => void
  readonly restore: () => void
  readonly close: () => Promise<void>
}

/** `bindHost`: the address it listens on (a test host's veth peer address, test/support/netns.ts). */
export const startTcpProxy = async (target: { host: string; port: number }, bindHost = "127.0.0.1"): Promise<TcpProxy> => {
  const open = new Set<Socket>()
  let down = false
  const server = createServer((client) => {
    if (down) return void client.resetAndDestroy()
    const upstream = connect(target.port, target.host)
    for (const s of [client, upstream]) {
      open.add(s)
      s.on("close", () => open.delete(s))
      s.on("error", () => {
        client.destroy()
        upstream.destroy()
      })
    }
    client.pipe(upstream).pipe(client)
  })
  await new Promise<void>((r) => server.listen(0, bindHost, r))
  return {
    port: (server.address() as { port: number }).port,
    cut: () => {
      down = true
      for (const s of open) s.resetAndDestroy()
    },
    restore: () => { down = false },
    close: () => {
      for (const s of open) s.destroy()
      return new Promise((r) => server.close(() => r()))
    }
  }
}
