import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream"

/**
 * nats.js failures recognised by their JetStream API error codes (`err_code` of the server's answer), never by message
 * text: the text is the server's description and may change between server versions.
 */
const apiCodeOf = (e: unknown): number | undefined => (e instanceof JetStreamApiError ? e.code : undefined)

/** The stream named in the request does not exist (10059). */
export const isStreamNotFound = (e: unknown): boolean => apiCodeOf(e) === JetStreamApiCodes.StreamNotFound

/** The consumer named in the request does not exist (10014). */
export const isConsumerNotFound = (e: unknown): boolean => apiCodeOf(e) === JetStreamApiCodes.ConsumerNotFound
