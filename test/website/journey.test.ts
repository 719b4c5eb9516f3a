import { afterAll, afterEach, beforeAll, describe, expect, it } from "@effect/vitest"
import { createJourney, runIn, runsOf, stepsOf } from "../support/journeys.ts"
import { type MailingPlatform, startMailingPlatform, useEncryptionKey } from "../support/messaging.ts"
import { testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import type { SmtpSink } from "../support/smtpSink.ts"
import { browserPost, createSource, guestEmail, serverPost, type Source, unique } from "./support.ts"

// cart.abandoned from a website → the journeys engine → an email caught by a real SMTP server.
const key = useEncryptionKey()
let mailing: MailingPlatform
let sink: SmtpSink
let platform: RunningPlatform
let tenant: TestTenant
let source: Source
const sql = testSql()

beforeAll(async () => {
  mailing = await startMailingPlatform(sql, key, "website_journeys", { GEP_JOURNEY_TIMER_MS: "200" })
  ;({ sink, platform, tenant } = mailing)
  source = await createSource(platform.baseUrl, tenant.live_key)
})
afterEach(async () => {
  await sql`UPDATE journey_definitions SET status = 'archived' WHERE tenant_id = ${tenant.tenant_id}`
})
afterAll(async () => {
  await mailing?.stop()
  await sql.end()
})

const contactOf = async (email: string) => (await sql`SELECT id FROM contacts WHERE tenant_id = ${tenant.tenant_id} AND email = ${email}`)[0]?.id as string
const consent = () => ({ email_marketing: true, text: "Send me offers from Hotel Example by email", captured_at: new Date().toISOString(), form_id: "checkout" })
const cartJourney = () => createJourney(sql, tenant, {
  name: unique("Cart recovery"), trigger: { type: "event", event: "cart.abandoned", stages: ["payment"] },
  steps: [
    { id: "w", type: "wait", duration: "PT1S" },
    { id: "e", type: "email", subject: "Your room {{event_room_name}} is waiting", text: "Resume: {{event_resume_url}} ({{event_stage}})" }
  ]
})

describe("website events → journeys", () => {
  it("a browser cart.abandoned with consent evidence starts the journey, which emails the guest as marketing with merge tags", async () => {
    const journeyId = await cartJourney()
    const email = guestEmail()
    const res = await browserPost(platform.baseUrl, source.browser_key, {
      event: "cart.abandoned", contact: { email, first_name: "Ana" }, consent: consent(),
      context: { cart_id: unique("cart"), stage: "payment", room_name: "Sea View", resume_url: "https://book.hotelexample.com/r/1", hotel_code: tenant.hotel_code }
    }, { userAgent: "Mozilla/5.0 test" })
    expect(res.status, JSON.stringify(res.body)).toBe(202)
    expect(res.body.results[0]).toMatchObject({ status: "accepted", contact: "created", warnings: [] })
    const contactId = await contactOf(email)
    const [audit] = await sql`SELECT outcome, text, form_id, user_agent, ip FROM website_consent_audit WHERE contact_id = ${contactId}`
    expect(audit).toMatchObject({ outcome: "honoured", form_id: "checkout", user_agent: "Mozilla/5.0 test" })
    expect(audit!.ip).not.toBeNull()
    const done = await runIn(sql, journeyId, contactId, ["completed"], 120_000)
    expect(done.scope).toMatch(/^cart:/)
    const mail = await waitFor(() => sink.mails.find((m) => m.to.includes(email))).catch(async (e: Error) => {
      const rows = await sql`SELECT status, attempts, attempt_started_at, error_code, error_message, skip_reason, created_at, sent_at, now() AS now
        FROM messages WHERE contact_id = ${contactId}`
      throw new Error(`${e.message}; the guest's messages: ${JSON.stringify(rows)}`)
    })
    expect(mail.subject).toBe("Your room Sea View is waiting")
    expect(mail.text).toContain("Resume: https://book.hotelexample.com/r/1 (payment)")
    // Sent as marketing (rule 5): a marketing email carries List-Unsubscribe.
    expect(mail.header("list-unsubscribe")).toBeTruthy()
  }, 180_000)

  it("without consent evidence the contact is made, the run starts, and the marketing email is skipped", async () => {
    const journeyId = await cartJourney()
    const email = guestEmail()
    const res = await serverPost(platform.baseUrl, source.server_key, {
      event: "cart.abandoned", contact: { email }, consent: { email_marketing: true },
      context: { cart_id: unique("cart"), stage: "payment", resume_url: "https://book.hotelexample.com/r/2" }
    })
    expect(res.body.results[0].warnings.map((w: any) => w.code)).toEqual(["consent_evidence_missing"])
    const contactId = await contactOf(email)
    const run = await runIn(sql, journeyId, contactId, ["completed", "failed", "stopped"], 60_000)
    // The message actor decides the skip after the run moved on: wait for its verdict.
    const steps = await waitForAsync(async () => {
      const all = await stepsOf(sql, run.id)
      return JSON.stringify(all).includes("no_email_marketing_consent") ? all : undefined
    })
    expect(steps.find((s) => s.step_id === "e")).toBeDefined()
    expect(sink.mails.filter((m) => m.to.includes(email))).toHaveLength(0)
  }, 180_000)

  it("checkout.completed for the same cart stops the waiting run; another stage does not start one", async () => {
    const journeyId = await createJourney(sql, tenant, {
      name: unique("Slow"), trigger: { type: "event", event: "cart.abandoned", stages: ["payment"] },
      steps: [{ id: "w", type: "wait", duration: "PT30S" }, { id: "e", type: "email", subject: "x", text: "y" }]
    })
    const email = guestEmail()
    const cart = unique("cart")
    await serverPost(platform.baseUrl, source.server_key, { event: "cart.abandoned", contact: { email }, consent: consent(), context: { cart_id: cart, stage: "room" } })
    await serverPost(platform.baseUrl, source.server_key, { event: "cart.abandoned", contact: { email }, consent: consent(), context: { cart_id: cart, stage: "payment" } })
    const contactId = await contactOf(email)
    await runIn(sql, journeyId, contactId, ["waiting"], 60_000)
    const done = await serverPost(platform.baseUrl, source.server_key, { event: "checkout.completed", contact: { email }, context: { cart_id: cart } })
    expect(done.body.results[0].status).toBe("accepted")
    const stopped = await runIn(sql, journeyId, contactId, ["stopped"], 60_000)
    expect(stopped.exit_reason).toBe("stop_event")
    expect((await runsOf(sql, journeyId, contactId))).toHaveLength(1)
  }, 180_000)
})

describe("website events → journey trigger options", () => {
  it("sources: a journey listening to another website source does not start; one naming this source does", async () => {
    const other = await createSource(platform.baseUrl, tenant.live_key)
    const mine = await createJourney(sql, tenant, {
      name: unique("Mine"), trigger: { type: "event", event: "room.selected", sources: [source.source_id] }, steps: [{ id: "w", type: "wait", duration: "P1D" }]
    })
    const theirs = await createJourney(sql, tenant, {
      name: unique("Theirs"), trigger: { type: "event", event: "room.selected", sources: [other.source_id] }, steps: [{ id: "w", type: "wait", duration: "P1D" }]
    })
    const email = guestEmail()
    const res = await serverPost(platform.baseUrl, source.server_key, { event: "room.selected", contact: { email }, context: { session_id: unique("s") } })
    expect(res.body.results[0].status).toBe("accepted")
    const contactId = await contactOf(email)
    const run = await runIn(sql, mine, contactId, ["waiting"], 120_000)
    expect(run.scope).toMatch(/^session:/)
    expect(await runsOf(sql, theirs, contactId)).toHaveLength(0)
  }, 180_000)
})

const waitFor = async <A>(f: () => A | undefined, ms = 60_000): Promise<A> => {
  const until = Date.now() + ms
  for (;;) {
    const v = f()
    if (v !== undefined) return v
    if (Date.now() > until) throw new Error("timed out")
    await new Promise((r) => setTimeout(r, 200))
  }
}

const waitForAsync = async <A>(f: () => Promise<A | undefined>, ms = 60_000): Promise<A> => {
  const until = Date.now() + ms
  for (;;) {
    const v = await f()
    if (v !== undefined) return v
    if (Date.now() > until) throw new Error("timed out")
    await new Promise((r) => setTimeout(r, 200))
  }
}
