import type { TenantScope } from "../TenantScope.ts"
import { decryptSecret, encryptSecret } from "../webhook/secrets.ts"

// A website source's signing secret, encrypted with the platform's at-rest key; the associated data names tenant,
// mode and source, so a ciphertext copied to another row fails to decrypt.

const aad = (scope: TenantScope, sourceId: string) => `website_source:${scope.tenant_id}:${scope.sandbox}:${sourceId}:signing`

export const encryptSourceSecret = (key: Buffer, scope: TenantScope, sourceId: string, secret: string): Buffer =>
  encryptSecret(key, secret, aad(scope, sourceId))

export const decryptSourceSecret = (key: Buffer, scope: TenantScope, sourceId: string, blob: Uint8Array): string =>
  decryptSecret(key, Buffer.from(blob), aad(scope, sourceId))
