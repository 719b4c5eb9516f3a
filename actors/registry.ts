import { B2bActor } from "./b2b/actor.ts"
import { BroadcastActor } from "./broadcast/actor.ts"
import { VisitorActor } from "./cdp/actor.ts"
import { EventActor } from "./event/actor.ts"
import { GuestActor } from "./guest/actor.ts"
import { JourneyActor } from "./journey/actor.ts"
import { LoyaltyActor } from "./loyalty/actor.ts"
import { MessageActor } from "./message/actor.ts"
import { NewsletterActor } from "./newsletter/actor.ts"
import { ReservationActor } from "./reservation/actor.ts"
import type { AnyActor } from "./runtime/Actor.ts"
import { TelephonyActor } from "./telephony/actor.ts"
import { WebsiteActor } from "./website/actor.ts"

/**
 * Every actor type the workers run. Subjects, consumers, partition leases, metrics labels and handler registration
 * all derive from this list: adding an actor type is its folder plus one line here.
 */
export const Actors: ReadonlyArray<AnyActor> = [ReservationActor, GuestActor, EventActor, TelephonyActor, MessageActor, B2bActor, LoyaltyActor, JourneyActor, WebsiteActor, NewsletterActor, VisitorActor, BroadcastActor]

export const ActorNames: ReadonlyArray<string> = Actors.map((a) => a.protocol.name)
