import { cliPage } from "./cli.ts"
import { configurationPage } from "./configuration.ts"
import { errorsPage } from "./errors.ts"
import { metricsPage } from "./metrics.ts"
import { personalDataPage } from "./personalData.ts"
import { webhookEventsPage } from "./webhookEvents.ts"

/** docs/reference/<file> → how it is made from the code. */
export const REFERENCE_PAGES: ReadonlyArray<readonly [string, () => string | Promise<string>]> = [
  ["configuration.md", configurationPage],
  ["cli.md", cliPage],
  ["metrics.md", metricsPage],
  ["webhook-events.md", webhookEventsPage],
  ["errors.md", errorsPage],
  ["personal-data.md", personalDataPage]
]

const index = (): string =>
  "# Reference\n\n" +
  "Generated from the code by `test/docs/generateReference.ts`; `test/docs/reference.test.ts` fails when a page here " +
  "differs from what the code says. The HTTP API itself is described at `/docs` and `/openapi.json` of a running " +
  "platform.\n\n" +
  "- [Configuration](configuration.md): every environment variable, its default and meaning\n" +
  "- [CLI](cli.md): every `gep` command and flag\n" +
  "- [Metrics](metrics.md): what `/metrics` exports\n" +
  "- [Webhook events](webhook-events.md): every event type and its body\n" +
  "- [Errors](errors.md): error shapes, statuses and codes per family\n" +
  "- [Personal data](personal-data.md): every store and stream holding guests' data, its retention and its erasure\n"

/** Every page of docs/reference/, as the code makes it now. */
export const referencePages = async (): Promise<ReadonlyMap<string, string>> => {
  const pages = new Map<string, string>([["README.md", index()]])
  for (const [file, make] of REFERENCE_PAGES) pages.set(file, await make())
  return pages
}
