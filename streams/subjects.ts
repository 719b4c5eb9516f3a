/** Names of every JetStream object, all under the deployment's namespace (GEP_NAMESPACE). */

export const ingressStream = (ns: string) => `${ns}_INGRESS`
export const outboxStream = (ns: string) => `${ns}_OUTBOX`
export const ingressSubject = (ns: string, actor: string, partition: number) => `${ns}.in.${actor}.${partition}`
export const ingressWildcard = (ns: string) => `${ns}.in.>`
export const consumerName = (ns: string, actor: string, partition: number) => `${ns}_${actor}_p${partition}`
/** Outbox subjects: commands for later consumers (`cmd.webhook.*`, `cmd.journey.*`) and domain events (`evt.*`). */
export const outboxSubject = (ns: string, kind: "cmd" | "evt", name: string) => `${ns}.${kind}.${name}`
export const outboxWildcards = (ns: string) => [`${ns}.cmd.>`, `${ns}.evt.>`]
/** Core NATS subject prefix on which an ingress process receives actor replies. */
export const replyPrefix = (ns: string, processId: string) => `${ns}.reply.${processId}`
