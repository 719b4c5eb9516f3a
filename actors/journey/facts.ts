import type { JourneyStatus } from "../../schemas/journey.ts"

// What a run's steps read when they run, loaded fresh in the transaction that runs them.

export interface ContactFacts {
  readonly first_name: string | null
  readonly last_name: string | null
  readonly email: string | null
  readonly phone: string | null
  readonly language: string | null
  readonly email_consent: boolean | null
  readonly whatsapp_marketing_consent: boolean | null
}

export interface HotelFacts {
  readonly id: string
  readonly name: string
  readonly code: string | null
  readonly timezone: string
}

export interface ReservationFacts {
  readonly id: string
  readonly status: string
  readonly check_in: string
  readonly check_out: string
  readonly hotel_id: string
  readonly created_at: number
}

export interface RegisteredTemplate {
  readonly name: string
  readonly language: string
  readonly category: string
  readonly body_parameters: number
}

export interface ChannelFacts {
  readonly email: boolean
  readonly whatsapp: boolean
  readonly templates: ReadonlyArray<RegisteredTemplate>
}

/** What a step needs to know when it runs: read fresh in the transaction that runs it. */
export interface StepFacts {
  readonly now: number
  readonly journeyStatus: JourneyStatus
  readonly contact: ContactFacts
  readonly hotel: HotelFacts | null
  /** The run's reservation, else the contact's current or next one (for the guest stage). */
  readonly reservation: ReservationFacts | null
  readonly channels: ChannelFacts
  readonly messageId: (runId: string, stepId: string) => string
}
