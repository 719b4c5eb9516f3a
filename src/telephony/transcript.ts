import type { TranscriptTurn } from "../../schemas/telephony.ts"

export const MAX_TURNS = 500
export const MAX_CHARS = 200_000

const LINE = /^\s*(guest|agent)\s*:\s?(.*)$/i

/**
 * Plain text split into turns on `Guest:` / `Agent:` lines when at least two such lines are found (a line without
 * a prefix continues the previous turn); otherwise the whole text is one turn by an unknown speaker.
 */
export const splitTranscriptText = (text: string): Array<TranscriptTurn> => {
  const lines = text.split(/\r?\n/)
  const prefixed = lines.filter((l) => LINE.test(l)).length
  if (prefixed < 2) return text.trim() === "" ? [] : [{ speaker: "unknown", text: text.trim() }]
  const turns: Array<{ speaker: string; text: string }> = []
  for (const line of lines) {
    const m = LINE.exec(line)
    if (m) turns.push({ speaker: m[1]!.toLowerCase(), text: m[2]!.trim() })
    else if (turns.length > 0 && line.trim() !== "") turns[turns.length - 1]!.text += `\n${line.trim()}`
  }
  return turns
}

/** At most 500 turns and 200,000 characters of text in all (cut inside the last turn that crosses it). */
export const capTranscript = (turns: ReadonlyArray<TranscriptTurn>): { turns: Array<TranscriptTurn>; truncated: boolean } => {
  const out: Array<TranscriptTurn> = []
  let chars = 0
  let truncated = turns.length > MAX_TURNS
  for (const turn of turns.slice(0, MAX_TURNS)) {
    const room = MAX_CHARS - chars
    if (room <= 0) {
      truncated = true
      break
    }
    const text = [...turn.text]
    if (text.length > room) {
      out.push({ ...turn, text: text.slice(0, room).join("") })
      truncated = true
      break
    }
    out.push(turn)
    chars += text.length
  }
  return { turns: out, truncated }
}
