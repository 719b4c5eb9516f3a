export { normalisePhone } from "./phone.ts"
export type { PhoneResult } from "./phone.ts"
export { normaliseEmail } from "./email.ts"
export type { EmailPlaceholderKind, EmailResult } from "./email.ts"
export { COUNTRY_ALIASES, normaliseCountry } from "./country.ts"
export { ADDRESS_FIELD_LIMITS, normaliseAddress } from "./address.ts"
export type { Address, AddressField, AddressResult, NormaliseWarning } from "./address.ts"
export {
  OTA_RELAY_EMAIL_DOMAINS,
  PLACEHOLDER_EMAIL_DOMAINS,
  PLACEHOLDER_EMAIL_LOCAL_PARTS,
  PLACEHOLDER_EMAILS,
  PLACEHOLDER_PHONE_PATTERNS,
  PLACEHOLDER_TEXT_VALUES
} from "./placeholders.ts"
export type { PlaceholderPhonePattern } from "./placeholders.ts"
