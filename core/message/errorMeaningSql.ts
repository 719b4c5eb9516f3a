import { sqlLiteral } from "../db/sqlLiteral.ts"
import { ERROR_CATALOGUES } from "./errorMeanings.ts"

// errorMeaning (errorMeanings.ts) as an SQL expression, for answers PostgreSQL writes whole (a contact's timeline):
// the same catalogues, as jsonb constants of the statement looked up by key, and the same rule. A differential test
// (test/core/message/errorMeaningSql.test.ts) holds the two equal on generated codes and replies.

const table = (entries: Readonly<Record<string, string>>) => `${sqlLiteral(JSON.stringify(entries))}::jsonb`
const { PLATFORM, SMTP_ENHANCED, SMTP_REPLY, WHATSAPP } = ERROR_CATALOGUES

// The JavaScript pattern's `\b` is an ASCII word boundary; PostgreSQL's `\y` counts every letter of the locale as a
// word character, so the boundaries are written out, and the digits are ASCII digits as `\d` is in JavaScript.
const ENHANCED = `'(?<![A-Za-z0-9_])[245][.][0-9]{1,3}[.][0-9]{1,3}(?![A-Za-z0-9_])'`

/**
 * The SQL of one sentence saying what a message's error means, or NULL when the code is unknown; the arguments are SQL
 * expressions of the message's channel, error code and error message.
 */
export const errorMeaningSql = (channel: string, code: string, message: string) => `CASE WHEN ${channel} IN ('whatsapp', 'email') THEN coalesce(
  CASE ${channel}
    WHEN 'whatsapp' THEN ${table(WHATSAPP)} ->> ${code}
    ELSE coalesce(
      (SELECT coalesce(t.m ->> x.e, t.m ->> (split_part(x.e, '.', 1) || '.' || split_part(x.e, '.', 2)))
        FROM (SELECT coalesce(substring(${message} FROM ${ENHANCED}), substring(${code} FROM ${ENHANCED})) AS e) x,
          (SELECT ${table(SMTP_ENHANCED)} AS m) t),
      ${table(SMTP_REPLY)} ->> ${code})
  END,
  ${table(PLATFORM)} ->> ${code}) END`
