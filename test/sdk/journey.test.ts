import { afterAll, afterEach, beforeAll, describe, expect, it } from "@effect/vitest"
import type { Browser } from "playwright-core"
import { createJourney, runIn, runsOf } from "../support/journeys.ts"
import { type MailingPlatform, startMailingPlatform, useEncryptionKey } from "../support/messaging.ts"
import { testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import type { SmtpSink } from "../support/smtpSink.ts"
import { createSource, guestEmail, type Source, unique } from "../website/support.ts"
import { abandonOnLeave, launchChromium, leave, openPage, pageErrors, type PageServer, sdk, sleep, startPageServer, waitUntil } from "./support.ts"

declare const window: any // inside page.evaluate callbacks (run in Chromium)

// End to end in Chromium: the guest leaves the booking page with a cart → the SDK's beacon → the website actor → the
// cart-recovery journey → one email caught by a real SMTP server; checkout.completed before the wait ends → no email.
const key = useEncryptionKey()
let mailing: MailingPlatform
let sink: SmtpSink
let platform: RunningPlatform
let tenant: TestTenant
let source: Source
let browser: Browser
let pages: PageServer
const sql = testSql()

beforeAll(async () => {
  mailing = await startMailingPlatform(sql, key, "sdk_journeys", { GEP_JOURNEY_TIMER_MS: "200" })
  ;({ sink, platform, tenant } = mailing)
  pages = await startPageServer(`${platform.baseUrl}/sdk/svc-events.js`)
  source = await createSource(platform.baseUrl, tenant.live_key, { allowed_origins: [pages.origin] })
  browser = await launchChromium()
})
afterEach(async () => {
  await sql`UPDATE journey_definitions SET status = 'archived' WHERE tenant_id = ${tenant.tenant_id}`
})
afterAll(async () => {
  await browser?.close()
  await pages?.close()
  await mailing?.stop()
  await sql.end()
})

const CONSENT = { text: "Send me offers from Hotel Example by email", form_id: "checkout" }
const init = () => ({ key: source.browser_key, hotelCode: tenant.hotel_code, persistContact: true })
const cartJourney = (wait: string) => createJourney(sql, tenant, {
  name: unique("Cart recovery"), trigger: { type: "event", event: "cart.abandoned", stages: ["payment"] },
  steps: [
    { id: "w", type: "wait", duration: wait },
    { id: "e", type: "email", subject: "Your room {{event_room_name}} is waiting", text: "Resume: {{event_resume_url}}" }
  ]
})
const contactOf = (email: string) => waitUntil(async () =>
  (await sql`SELECT id FROM contacts WHERE tenant_id = ${tenant.tenant_id} AND email = ${email}`)[0]?.id as string | undefined)
const mailsTo = (email: string) => sink.mails.filter((m) => m.to.includes(email))

/** The guest identifies with consent on the booking page, has a cart at payment, and leaves. */
const abandonCart = async (email: string, cart: string, resume: string) => {
  const context = await browser.newContext()
  const page = await openPage(context, pages.origin, init())
  await sdk(page, "identify", { email, first_name: "Ana" }, CONSENT)
  await abandonOnLeave(page, { cart_id: cart, stage: "payment", room_name: "Sea View", resume_url: resume })
  await leave(page, pages.origin)
  return { context, page }
}

describe("browser SDK → cart-recovery journey → email", () => {
  it("cart.abandoned with consent from the browser sends exactly one email with the resume link", async () => {
    const journeyId = await cartJourney("PT1S")
    const email = guestEmail()
    const resume = `https://book.hotelexample.com/r/${unique("r")}`
    const { context } = await abandonCart(email, unique("cart"), resume)
    const contactId = await contactOf(email)
    await runIn(sql, journeyId, contactId, ["completed"], 120_000)
    const mail = await waitUntil(() => mailsTo(email)[0], 90_000)
    expect(mail.subject).toBe("Your room Sea View is waiting")
    expect(mail.text).toContain(`Resume: ${resume}`)
    await sleep(2_000)
    expect(mailsTo(email)).toHaveLength(1)
    expect(await runsOf(sql, journeyId, contactId)).toHaveLength(1)
    expect(await context.cookies()).toEqual([])
    await context.close()
  }, 180_000)

  it("checkout.completed from the browser before the wait ends stops the run: no email", async () => {
    const journeyId = await cartJourney("PT20S")
    const email = guestEmail()
    const cart = unique("cart")
    const { context, page } = await abandonCart(email, cart, "https://book.hotelexample.com/r/2")
    const contactId = await contactOf(email)
    await runIn(sql, journeyId, contactId, ["waiting"], 60_000)
    // Back on the booking page in the same tab: the contact was kept in this tab's sessionStorage.
    await page.goto(`${pages.origin}/page.html`)
    await page.evaluate((o) => window.svcEvents.init(o), init())
    await sdk(page, "completed", { cart_id: cart, value: 240, currency: "EUR" })
    const stopped = await runIn(sql, journeyId, contactId, ["stopped"], 60_000)
    expect(stopped.exit_reason).toBe("stop_event")
    await leave(page, pages.origin) // the cart is completed: no second abandonment
    await sleep(2_000)
    expect(mailsTo(email)).toHaveLength(0)
    expect(await runsOf(sql, journeyId, contactId)).toHaveLength(1)
    expect(pageErrors).toEqual([])
    await context.close()
  }, 180_000)
})
