/**
 * A text as an SQL string literal, for constants built into a statement's text (catalogues, labels), never for what
 * a caller sent: that is always a parameter. PostgreSQL's standard-conforming strings take a quote doubled and
 * nothing else escaped.
 */
export const sqlLiteral = (text: string) => `'${text.replaceAll("'", "''")}'`
