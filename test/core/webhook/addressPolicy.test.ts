import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { classifyAddress } from "../../../core/webhook/addressPolicy.ts"
import { checkHost, guardedLookup, parseTargetUrl } from "../../../core/webhook/destination.ts"

const off = { allowLoopback: false }
const on = { allowLoopback: true }
const allowed = (a: string, policy = off) => classifyAddress(a, policy).allowed

const BLOCKED: ReadonlyArray<[string, string]> = [
  ["127.0.0.1", "loopback"], ["127.255.255.254", "loopback"], ["::1", "loopback"], ["::ffff:127.0.0.1", "loopback"],
  ["10.0.0.1", "private"], ["10.255.255.255", "private"], ["172.16.0.1", "private"], ["172.31.255.255", "private"],
  ["192.168.0.1", "private"], ["169.254.169.254", "metadata"], ["169.254.170.2", "metadata"], ["fe80::1", "linkLocal"],
  ["100.64.0.1", "carrierGradeNat"], ["100.127.255.254", "carrierGradeNat"], ["100.100.100.200", "metadata"],
  ["fc00::1", "uniqueLocal"], ["fd00:ec2::254", "metadata"], ["fd12:3456::1", "uniqueLocal"],
  ["::ffff:10.0.0.1", "private"], ["::ffff:169.254.169.254", "metadata"], ["::ffff:192.168.1.1", "private"],
  ["0.0.0.0", "unspecified"], ["0.1.2.3", "unspecified"], ["::", "unspecified"],
  ["224.0.0.1", "multicast"], ["239.255.255.250", "multicast"], ["ff02::1", "multicast"], ["255.255.255.255", "broadcast"],
  ["192.0.0.192", "metadata"], ["192.0.2.1", "reserved"], ["198.18.0.1", "reserved"], ["240.0.0.1", "reserved"],
  ["2001:db8::1", "reserved"], ["64:ff9b::a00:1", "rfc6052"], ["2002:a00:1::1", "6to4"], ["2001::1", "teredo"],
  ["168.63.129.16", "metadata"]
]

describe("the webhook address classifier", () => {
  for (const [address, range] of BLOCKED) {
    it(`blocks ${address} (${range})`, () => {
      expect(classifyAddress(address, off)).toEqual({ allowed: false, range })
    })
  }

  it("allows public unicast addresses, v4 and v6", () => {
    for (const a of ["8.8.8.8", "93.184.215.14", "1.1.1.1", "2606:4700:4700::1111", "2a00:1450:4001::200e", "::ffff:8.8.8.8"]) {
      expect(allowed(a), a).toBe(true)
    }
  })

  it("with the test switch allows loopback and nothing else more; plain http reaches only loopback", () => {
    for (const a of ["127.0.0.1", "::1", "::ffff:127.0.0.1", "127.9.9.9"]) expect(allowed(a, on), a).toBe(true)
    for (const a of ["10.0.0.1", "169.254.169.254", "::ffff:10.0.0.1", "fd00:ec2::254", "0.0.0.0"]) expect(allowed(a, on), a).toBe(false)
    expect(classifyAddress("8.8.8.8", { allowLoopback: true, loopbackOnly: true }).allowed).toBe(false)
    expect(classifyAddress("127.0.0.1", { allowLoopback: true, loopbackOnly: true }).allowed).toBe(true)
    expect(classifyAddress("127.0.0.1", { allowLoopback: false, loopbackOnly: true }).allowed).toBe(false)
  })

  it("refuses what is not a canonical address, and scoped IPv6", () => {
    for (const a of ["", "localhost", "0x7f.1", "2130706433", "1.2.3", "999.1.1.1", "fe80::1%eth0", "[::1"]) {
      expect(allowed(a, on), a).toBe(false)
    }
  })

  const octet = fc.integer({ min: 0, max: 255 })
  const v4 = (a: number, b: number, c: number, d: number) => `${a}.${b}.${c}.${d}`

  it("blocks every address of the private, loopback, link-local, CGNAT and zero ranges (property)", () => {
    const privates = fc.oneof(
      fc.tuple(octet, octet, octet).map(([b, c, d]) => v4(10, b, c, d)),
      fc.tuple(fc.integer({ min: 16, max: 31 }), octet, octet).map(([b, c, d]) => v4(172, b, c, d)),
      fc.tuple(octet, octet).map(([c, d]) => v4(192, 168, c, d)),
      fc.tuple(octet, octet, octet).map(([b, c, d]) => v4(127, b, c, d)),
      fc.tuple(octet, octet).map(([c, d]) => v4(169, 254, c, d)),
      fc.tuple(fc.integer({ min: 64, max: 127 }), octet, octet).map(([b, c, d]) => v4(100, b, c, d)),
      fc.tuple(octet, octet, octet).map(([b, c, d]) => v4(0, b, c, d)),
      fc.tuple(fc.integer({ min: 224, max: 255 }), octet, octet, octet).map(([a, b, c, d]) => v4(a, b, c, d))
    )
    fc.assert(fc.property(privates, (a) => !allowed(a) && !allowed(`::ffff:${a}`)))
  })

  it("judges an IPv4-mapped IPv6 address exactly as its IPv4 address, in either notation (property)", () => {
    fc.assert(fc.property(octet, octet, octet, octet, fc.boolean(), (a, b, c, d, loop) => {
      const policy = { allowLoopback: loop }
      const hex = (x: number, y: number) => ((x << 8) | y).toString(16)
      const plain = classifyAddress(v4(a, b, c, d), policy)
      return classifyAddress(`::ffff:${v4(a, b, c, d)}`, policy).allowed === plain.allowed &&
        classifyAddress(`::ffff:${hex(a, b)}:${hex(c, d)}`, policy).allowed === plain.allowed
    }))
  })

  it("blocks every unique-local and link-local IPv6 address (property)", () => {
    const group = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16))
    const ula = fc.tuple(fc.integer({ min: 0xfc00, max: 0xfdff }), group, group).map(([p, x, y]) => `${p.toString(16)}:${x}::${y}`)
    const linkLocal = fc.tuple(group, group).map(([x, y]) => `fe80::${x}:${y}`)
    fc.assert(fc.property(fc.oneof(ula, linkLocal), fc.boolean(), (a, loop) => !classifyAddress(a, { allowLoopback: loop }).allowed))
  })

  it("never throws and never allows a non-address string (property)", () => {
    fc.assert(fc.property(fc.string(), (s) => {
      const v = classifyAddress(s, on)
      return v.range !== "invalid" || !v.allowed
    }))
  })
})

describe("subscription URLs and host resolution", () => {
  const fakeDns = (answers: Record<string, Array<string>>) => async (host: string) => {
    const list = answers[host]
    if (!list) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" })
    return list.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }))
  }

  it("accepts https, and plain http only with the switch", () => {
    expect(parseTargetUrl("https://example.com/x", false).ok).toBe(true)
    expect(parseTargetUrl("http://example.com/x", false)).toEqual({ ok: false, problem: "must use https" })
    expect(parseTargetUrl("http://localhost/x", true).ok).toBe(true)
    expect(parseTargetUrl("https://a:b@example.com/", false).ok).toBe(false)
    expect(parseTargetUrl("//example.com", false).ok).toBe(false)
  })

  it("refuses a name when any of its addresses is blocked, and a name that does not resolve", async () => {
    const dns = fakeDns({ "good.test": ["93.184.215.14", "2606:4700::1"], "mixed.test": ["93.184.215.14", "10.0.0.1"], "meta.test": ["169.254.169.254"], "mapped.test": ["::ffff:10.0.0.1"] })
    expect((await checkHost("good.test", off, dns)).ok).toBe(true)
    for (const h of ["mixed.test", "meta.test", "mapped.test", "nowhere.test"]) expect((await checkHost(h, off, dns)).ok, h).toBe(false)
  })

  it("the connect-time lookup hands the socket only checked addresses, and errors for a blocked one", async () => {
    const dns = fakeDns({ "good.test": ["93.184.215.14"], "rebound.test": ["127.0.0.1"] })
    const lookup = guardedLookup(off, dns)
    const call = (host: string, all: boolean) =>
      new Promise<{ err: NodeJS.ErrnoException | null; address: unknown }>((resolve) => lookup(host, { all }, (err, address) => resolve({ err, address })))
    expect(await call("good.test", true)).toEqual({ err: null, address: [{ address: "93.184.215.14", family: 4 }] })
    expect((await call("good.test", false)).address).toBe("93.184.215.14")
    const blocked = await call("rebound.test", false)
    expect(blocked.err?.code).toBe("EBLOCKEDDEST")
  })
})
