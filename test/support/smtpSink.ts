import { simpleParser, type AddressObject, type EmailAddress } from "mailparser"
import type { AddressInfo } from "node:net"
import { SMTPServer, type SMTPServerSession } from "smtp-server"

/** One message the sink accepted, parsed by mailparser. */
export interface CaughtMail {
  /** The Message-ID header as sent, angle brackets included (`<id@domain>`); "" when the message had none. */
  readonly messageId: string
  /** The From header as written (`"Hotel Sol" <stay@hotel.example>`). */
  readonly from: string
  /** The From header's address alone, lower-cased. */
  readonly fromAddress: string
  /** The To header's addresses, lower-cased (the SMTP recipients are in `envelope.to`). */
  readonly to: ReadonlyArray<string>
  readonly subject: string
  readonly text: string | undefined
  readonly html: string | undefined
  /**
   * mailparser's headers: lower-cased names; address headers are objects, dates are Date, the rest strings.
   * mailparser folds the List-* headers into one `list` entry (`list.unsubscribe.url`, `list["unsubscribe-post"]`):
   * use `header()` for a header's text as sent.
   */
  readonly headers: ReadonlyMap<string, unknown>
  /** The first header of that name (case-insensitive) as sent, unfolded, not MIME-decoded; undefined if absent. */
  readonly header: (name: string) => string | undefined
  /** The message as it arrived after DATA (CRLF line ends, dot-unstuffed). */
  readonly raw: string
  /** The SMTP envelope: MAIL FROM and the accepted RCPT TO addresses. */
  readonly envelope: { readonly from: string; readonly to: ReadonlyArray<string> }
}

export interface SmtpSink {
  /** `smtp://127.0.0.1:<port>` */
  readonly url: string
  readonly port: number
  /** In arrival order, duplicates included. */
  readonly mails: ReadonlyArray<CaughtMail>
  /** Message-ID → how many times it arrived (a count above 1 is a duplicate send). */
  countByMessageId(): Map<string, number>
  /** Resolves with all mails once at least `count` arrived; rejects after `timeoutMs` (default 10 s). */
  waitFor(count: number, timeoutMs?: number): Promise<ReadonlyArray<CaughtMail>>
  /** Answer this SMTP code at RCPT TO for that address (case-insensitive): 4xx temporary (451), 5xx permanent (550). */
  failRecipient(address: string, code: number, message?: string): void
  /** Answer `code` (default 451; 421 also closes the connection) at the end of DATA for the next `n` messages, then accept. */
  failNext(n: number, code?: number): void
  /** Delay every DATA answer by `ms` (0 = answer at once), to exercise client timeouts. The mail is kept even if the client gives up. */
  delayMs(ms: number): void
  /** Forget the caught mails and every fault setting (failRecipient, failNext, delayMs). */
  clear(): void
  close(): Promise<void>
}

const defaultReplies: Record<number, string> = {
  421: "Service not available, closing transmission channel",
  450: "Mailbox unavailable, try again later",
  451: "Requested action aborted: local error in processing",
  452: "Insufficient system storage",
  550: "Mailbox unavailable",
  551: "User not local",
  552: "Exceeded storage allocation",
  553: "Mailbox name not allowed",
  554: "Transaction failed"
}

const smtpError = (code: number, message: string | undefined) =>
  Object.assign(new Error(message ?? defaultReplies[code] ?? "Rejected by the test sink"), { responseCode: code })

const addressesOf = (header: AddressObject | ReadonlyArray<AddressObject> | undefined): Array<string> =>
  (header === undefined ? [] : Array.isArray(header) ? header : [header as AddressObject])
    .flatMap((header): Array<EmailAddress> => header.value)
    .flatMap((address): Array<EmailAddress> => address.group ?? [address])
    .map((address) => (address.address ?? "").toLowerCase())
    .filter((a) => a !== "")

const headerValue = (lines: ReadonlyArray<{ key: string; line: string }>, name: string) => {
  const line = lines.find((l) => l.key === name.toLowerCase())?.line
  return line === undefined ? undefined : line.slice(line.indexOf(":") + 1).replace(/\r?\n(?=[ \t])/g, "").trim()
}

const envelopeOf = (session: SMTPServerSession) => ({
  from: session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address,
  to: session.envelope.rcptTo.map((r) => r.address)
})

/**
 * A real SMTP server on 127.0.0.1 (random port) that keeps every message it accepts, parsed, for assertions,
 * and answers temporary or permanent failures on demand. Plain SMTP only (STARTTLS disabled), auth optional.
 */
export const startSmtpSink = async (_options: { secure?: false } = {}): Promise<SmtpSink> => {
  let mails: Array<CaughtMail> = []
  let failures = new Map<string, { code: number; message: string | undefined }>()
  let nextDataFailures: Array<number> = []
  let dataDelayMs = 0
  const waiters = new Set<{ count: number; resolve: (m: ReadonlyArray<CaughtMail>) => void }>()
  const delays = new Set<NodeJS.Timeout>()

  const settleWaiters = () => {
    for (const waiter of waiters) {
      if (mails.length >= waiter.count) {
        waiters.delete(waiter)
        waiter.resolve([...mails])
      }
    }
  }

  const answerLater = (answer: () => void) => {
    if (dataDelayMs <= 0) return answer()
    const timer = setTimeout(() => {
      delays.delete(timer)
      answer()
    }, dataDelayMs)
    delays.add(timer)
  }

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    size: 50 * 1024 * 1024,
    logger: false,
    // The sink is torn down at the end of a test: pooled client connections are cut after 50 ms, not 30 s.
    closeTimeout: 50,
    onRcptTo(address, _session, callback) {
      const failure = failures.get(address.address.toLowerCase())
      callback(failure === undefined ? null : smtpError(failure.code, failure.message))
    },
    onData(stream, session, callback) {
      const chunks: Array<Buffer> = []
      stream.on("data", (chunk: Buffer) => chunks.push(chunk))
      stream.on("error", (error) => callback(error))
      stream.on("end", () => {
        const failCode = nextDataFailures.shift()
        if (failCode !== undefined) return answerLater(() => callback(smtpError(failCode, undefined)))
        if (stream.sizeExceeded) return callback(smtpError(552, "Message exceeds the sink's size limit"))
        const raw = Buffer.concat(chunks)
        const envelope = envelopeOf(session)
        simpleParser(raw).then(
          (parsed) => {
            const lines = parsed.headerLines
            mails.push({
              messageId: parsed.messageId ?? "",
              from: parsed.from?.text ?? "",
              fromAddress: addressesOf(parsed.from)[0] ?? "",
              to: addressesOf(parsed.to),
              subject: parsed.subject ?? "",
              text: parsed.text,
              html: parsed.html === false ? undefined : parsed.html,
              headers: parsed.headers,
              header: (name) => headerValue(lines, name),
              raw: raw.toString("utf8"),
              envelope
            })
            settleWaiters()
            answerLater(() => callback(null, `Queued as ${mails.length}`))
          },
          (error: unknown) => callback(smtpError(554, `Unparseable message: ${String(error)}`))
        )
      })
    }
  })

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  // A client that drops the connection mid-session is expected in timeout tests: never crash the test process.
  server.on("error", () => undefined)
  const port = (server.server.address() as AddressInfo).port

  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    get mails() {
      return mails
    },
    countByMessageId: () => {
      const counts = new Map<string, number>()
      for (const mail of mails) counts.set(mail.messageId, (counts.get(mail.messageId) ?? 0) + 1)
      return counts
    },
    waitFor: (count, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        if (mails.length >= count) return resolve([...mails])
        const timer = setTimeout(() => {
          waiters.delete(waiter)
          reject(new Error(`smtpSink: ${mails.length} of ${count} mails after ${timeoutMs} ms`))
        }, timeoutMs)
        const waiter = {
          count,
          resolve: (m: ReadonlyArray<CaughtMail>) => {
            clearTimeout(timer)
            resolve(m)
          }
        }
        waiters.add(waiter)
      }),
    failRecipient: (address, code, message) => {
      failures.set(address.toLowerCase(), { code, message })
    },
    failNext: (n, code = 451) => {
      nextDataFailures.push(...Array.from({ length: n }, () => code))
    },
    delayMs: (ms) => {
      dataDelayMs = ms
    },
    clear: () => {
      mails = []
      failures = new Map()
      nextDataFailures = []
      dataDelayMs = 0
    },
    close: async () => {
      for (const timer of delays) clearTimeout(timer)
      delays.clear()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
