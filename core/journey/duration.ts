// The duration grammar lives with the contract that declares it (schemas/ is the leaf every layer may read).
export { DAY, type Duration, parseDuration, SECOND } from "../../schemas/isoDuration.ts"
