import { defaultFailure, digitsOf, graphError, newWamid, type TemplateCategory } from "./whatsappWire.ts"

// What the Cloud API answers to `POST /{version}/{phone_number_id}/messages`, for the stub (whatsappStub.ts): the
// token, the stub's injected faults, then the body checks in the order the API reports them.

export interface TemplateFixture {
  readonly name: string
  /** The language code the template was approved in (`es`, `en_US`). */
  readonly language: string
  readonly bodyParameters: number
  /** Reported as the pricing category of the status webhooks (default `utility`). */
  readonly category?: TemplateCategory
}

export interface NumberFixture {
  readonly phoneNumberId: string
  readonly accessToken: string
  readonly appSecret: string
  readonly templates: ReadonlyArray<TemplateFixture>
  /** metadata.display_phone_number of the webhooks (default "15550001111"). */
  readonly displayPhoneNumber?: string
  /** entry[].id of the webhooks (default "100000000000001"). */
  readonly wabaId?: string
}

export interface RecipientFailure {
  readonly code: number
  readonly title: string
  readonly message?: string
  readonly details?: string
  /** `sync`: a 400 answer to the send; `async`: the send is accepted, then a `failed` status webhook. */
  readonly mode?: "sync" | "async"
}

export interface InjectedFailure {
  readonly status: number
  readonly body: unknown
  readonly headers: Record<string, string>
}

export type SendCheck =
  | { readonly ok: true; readonly to: string; readonly type: "template" | "text"; readonly category: TemplateCategory | "service"; readonly callbackData: string | undefined }
  | { readonly ok: false; readonly status: number; readonly body: unknown }

const refuse = (status: number, code: number, title: string, details?: string, message?: string): SendCheck => ({
  ok: false,
  status,
  body: graphError({ code, title, ...(details === undefined ? {} : { details }), ...(message === undefined ? {} : { message }) })
})

const missing = (parameter: string) => refuse(400, 100, "Invalid parameter", undefined, `(#100) The parameter ${parameter} is required.`)

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Meta refuses template text parameters with new-lines, tabs or more than 4 consecutive spaces (code 132018). */
const badParameterText = /[\n\t]| {5,}/

const checkTemplate = (templates: ReadonlyArray<TemplateFixture>, template: unknown): SendCheck | TemplateFixture => {
  if (!isRecord(template) || typeof template.name !== "string" || template.name === "") return missing("template['name']")
  const language = template.language
  if (!isRecord(language) || typeof language.code !== "string") return missing("template['language']['code']")
  const fixture = templates.find((t) => t.name === template.name && t.language === language.code)
  if (fixture === undefined) {
    return refuse(404, 132001, "Template name does not exist in the translation",
      `template name (${template.name}) does not exist in ${language.code}`)
  }
  const components = Array.isArray(template.components) ? template.components : []
  const parameters = components
    .filter((c): c is Record<string, unknown> => isRecord(c) && c.type === "body")
    .flatMap((c) => (Array.isArray(c.parameters) ? c.parameters : []))
  if (parameters.length !== fixture.bodyParameters) {
    return refuse(400, 132000, "Number of parameters does not match the expected number of params",
      `body: number of localizable_params (${parameters.length}) does not match the expected number of params (${fixture.bodyParameters})`)
  }
  for (const parameter of parameters) {
    if (!isRecord(parameter)) return missing("template['components'][0]['parameters'][0]")
    if (parameter.type === "text") {
      if (typeof parameter.text !== "string" || parameter.text.trim() === "") {
        return refuse(400, 131008, "Required parameter is missing", "Parameter text is missing or empty")
      }
      if (badParameterText.test(parameter.text)) {
        return refuse(400, 132018, "There was an issue with the parameters in your template.",
          "Param text cannot have new-line/tab characters or more than 4 consecutive spaces")
      }
    }
  }
  return fixture
}

/** The checks of a send body, in the order the API reports them. */
export const checkSend = (templates: ReadonlyArray<TemplateFixture>, raw: string): SendCheck => {
  let body: unknown
  try {
    body = JSON.parse(raw)
  } catch {
    return refuse(400, 100, "Invalid parameter", "Request body is not valid JSON")
  }
  if (!isRecord(body) || body.messaging_product !== "whatsapp") return missing("messaging_product")
  if (typeof body.to !== "string" || body.to.replace(/\D/g, "") === "") return missing("to")
  if (body.recipient_type !== undefined && body.recipient_type !== "individual") {
    return refuse(400, 100, "Invalid parameter", undefined, "(#100) Param recipient_type must be one of {INDIVIDUAL, GROUP}")
  }
  const callbackData = body.biz_opaque_callback_data
  if (callbackData !== undefined && (typeof callbackData !== "string" || callbackData.length > 512)) {
    return refuse(400, 100, "Invalid parameter", undefined, "(#100) Param biz_opaque_callback_data must be a string of at most 512 characters")
  }
  const base = { ok: true as const, to: body.to, callbackData }
  if (body.type === "text") {
    const text = body.text
    if (!isRecord(text) || typeof text.body !== "string" || text.body === "") return missing("text['body']")
    return { ...base, type: "text", category: "service" }
  }
  if (body.type === "template") {
    const template = checkTemplate(templates, body.template)
    return "ok" in template ? template : { ...base, type: "template", category: template.category ?? "utility" }
  }
  return refuse(400, 100, "Invalid parameter", undefined, "(#100) Param type must be one of {TEXT, TEMPLATE} (this stub)")
}

export type AcceptedCheck = Extract<SendCheck, { ok: true }>

export interface Outcome {
  readonly status: number
  readonly body: unknown
  readonly headers?: Record<string, string>
  readonly accepted?: { readonly wamid: string; readonly check: AcceptedCheck; readonly failure: RecipientFailure | undefined }
}

export interface SendRequest {
  readonly method: string | undefined
  readonly url: string | undefined
  readonly authorization: string | undefined
  /** From the path; "" when it is not `/{version?}/{phone_number_id}/messages`. */
  readonly phoneNumberId: string
  readonly rawBody: string
}

export interface StubFaults {
  /** Consumed one per send that passed the token check. */
  readonly nextFailures: Array<InjectedFailure>
  /** By the recipient's digits. */
  readonly recipientFailures: ReadonlyMap<string, RecipientFailure>
}

export const answerSend = (numbers: ReadonlyMap<string, NumberFixture>, faults: StubFaults, request: SendRequest): Outcome => {
  const { phoneNumberId } = request
  if (request.method !== "POST" || phoneNumberId === "") {
    return { status: 400, body: graphError({ code: 2500, title: "Unknown path components", message: `Unknown path components: ${request.url}` }) }
  }
  const number = numbers.get(phoneNumberId)
  const token = /^Bearer (.+)$/.exec(request.authorization ?? "")?.[1]
  const knownToken = [...numbers.values()].some((n) => n.accessToken === token)
  if (number === undefined ? !knownToken : number.accessToken !== token) return { status: 401, body: defaultFailure(401) }
  if (number === undefined) {
    return {
      status: 400,
      body: graphError({
        code: 100, subcode: 33, type: "GraphMethodException", title: "Unsupported post request",
        message: `Unsupported post request. Object with ID '${phoneNumberId}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`
      })
    }
  }
  const injected = faults.nextFailures.shift()
  if (injected !== undefined) return injected
  const check = checkSend(number.templates, request.rawBody)
  if (!check.ok) return check
  const failure = faults.recipientFailures.get(digitsOf(check.to))
  if (failure !== undefined && (failure.mode ?? (failure.code === 131030 ? "sync" : "async")) === "sync") {
    const { code, title, message, details } = failure
    return { status: 400, body: graphError({ code, title, ...(message === undefined ? {} : { message }), ...(details === undefined ? {} : { details }) }) }
  }
  const wamid = newWamid()
  return {
    status: 200,
    body: {
      messaging_product: "whatsapp",
      contacts: [{ input: check.to, wa_id: digitsOf(check.to) }],
      messages: [check.type === "template" ? { id: wamid, message_status: "accepted" } : { id: wamid }]
    },
    accepted: { wamid, check, failure }
  }
}
