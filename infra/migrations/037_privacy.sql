-- Privacy requests (issue 26): a data subject's export, erasure, suppression and its lifting, asked for by the hotel
-- group (the controller) and carried out by the platform (its processor).

-- One row per request; once it has ended the row is the audit record: type, keyed hashes of the identifiers, the
-- counts per store, the key id that made the hashes and the times. The subject as sent is kept sealed (AES-256-GCM
-- under the privacy key) only while the request needs it, and cleared when it ends: the audit holds no plain
-- personal data, and a restored backup replays erasures from these rows' hashes.
CREATE TABLE privacy_requests (
  id              uuid PRIMARY KEY,
  tenant_id       uuid NOT NULL,
  sandbox         boolean NOT NULL,
  -- The deployment whose runner carries it out (tests share a database with namespaces of their own).
  namespace       text NOT NULL,
  type            text NOT NULL CHECK (type IN ('export', 'erase', 'suppress', 'unsuppress')),
  subject_kind    text NOT NULL CHECK (subject_kind IN ('contact_id', 'email', 'phone')),
  subject_sealed  bytea,
  -- Keyed hashes (privacy key, per tenant) of every identifier the request reached: the subject's and its contacts'.
  subject_hashes  bytea[] NOT NULL DEFAULT '{}',
  -- The contacts the subject resolved to (ids, not personal data by themselves): what the runner works through.
  contact_ids     uuid[] NOT NULL DEFAULT '{}',
  -- Contacts an identity conflict joins to the subject that its identifiers do not reach: reported, not acted on.
  related_contact_ids uuid[] NOT NULL DEFAULT '{}',
  reference       text,
  status          text NOT NULL DEFAULT 'received' CHECK (status IN ('received', 'running', 'completed', 'partial', 'failed')),
  -- The runner's place in the work (resumable after a crash): see src/privacy/PrivacyRunner.ts.
  step            text,
  progress        jsonb NOT NULL DEFAULT '{}',
  results         jsonb NOT NULL DEFAULT '[]',
  error           text,
  key_id          text NOT NULL,
  requested_by    text,
  owner           text,
  lease_until     timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  started_at      timestamptz,
  completed_at    timestamptz
);
CREATE UNIQUE INDEX privacy_requests_reference ON privacy_requests (tenant_id, sandbox, reference) WHERE reference IS NOT NULL;
CREATE INDEX privacy_requests_list ON privacy_requests (tenant_id, sandbox, created_at DESC, id DESC);
CREATE INDEX privacy_requests_pending ON privacy_requests (namespace, created_at) WHERE status IN ('received', 'running');

-- Who must not be re-created or reached: a keyed hash of the normalised identifier (E.164 phone, lower-cased email),
-- never the value. Checked by the ingress before anything reaches a stream and by the message sender before a send.
CREATE TABLE privacy_suppressions (
  tenant_id   uuid NOT NULL,
  sandbox     boolean NOT NULL,
  id_hash     bytea NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('email', 'phone')),
  request_id  uuid NOT NULL,
  key_id      text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, sandbox, id_hash)
);

-- An export's document until it expires (7 days), then deleted by the runner; an erasure of the same subject deletes
-- it at once.
CREATE TABLE privacy_exports (
  request_id  uuid PRIMARY KEY REFERENCES privacy_requests(id) ON DELETE CASCADE,
  tenant_id   uuid NOT NULL,
  sandbox     boolean NOT NULL,
  document    bytea NOT NULL,
  expires_at  timestamptz NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX privacy_exports_expiry ON privacy_exports (expires_at);

SELECT gep_enable_tenant_isolation(ARRAY['privacy_requests', 'privacy_suppressions', 'privacy_exports']);
