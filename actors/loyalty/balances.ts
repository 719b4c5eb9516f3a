/** The balances every loyalty answer shows: one schema, the public contract's (schemas/loyaltyBalances.ts). */
export { Balances } from "../../schemas/loyaltyBalances.ts"
