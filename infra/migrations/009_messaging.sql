-- Messaging: channel configuration per tenant and mode, messages with their status history, conversations,
-- opt-outs and suppressed addresses. Every table carries tenant_id and gets the row-level security policy of 007.

-- Email channel: the sender identity, with per-hotel overrides ({ "<hotel_id>": { from_address?, from_name?, reply_to? } }).
CREATE TABLE channel_email (
  tenant_id             uuid NOT NULL REFERENCES tenants(id),
  sandbox               boolean NOT NULL,
  from_address          text NOT NULL,
  from_name             text,
  reply_to              text,
  hotel_overrides       jsonb NOT NULL DEFAULT '{}',
  -- sends per minute for this tenant and channel (null: the deployment default)
  send_rate_per_minute  integer CHECK (send_rate_per_minute > 0),
  updated_at            timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, sandbox)
);

-- WhatsApp Business Cloud API channel. The token and the app secret are AES-256-GCM (as webhook signing secrets) with
-- `<tenant>:<sandbox>:<field>` as associated data; the verify token of the subscription handshake is kept as SHA-256.
CREATE TABLE channel_whatsapp (
  tenant_id               uuid NOT NULL REFERENCES tenants(id),
  sandbox                 boolean NOT NULL,
  phone_number_id         text NOT NULL,
  access_token_encrypted  bytea NOT NULL,
  app_secret_encrypted    bytea NOT NULL,
  verify_token_sha256     text,
  send_rate_per_minute    integer CHECK (send_rate_per_minute > 0),
  updated_at              timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, sandbox),
  -- an inbound webhook names its number: it must lead to exactly one tenant and mode
  UNIQUE (phone_number_id)
);
CREATE INDEX channel_whatsapp_verify ON channel_whatsapp (verify_token_sha256) WHERE verify_token_sha256 IS NOT NULL;

-- Approved WhatsApp templates, registered so a send can be checked before it leaves.
CREATE TABLE whatsapp_templates (
  tenant_id        uuid NOT NULL REFERENCES tenants(id),
  sandbox          boolean NOT NULL,
  name             text NOT NULL,
  language         text NOT NULL,
  category         text NOT NULL CHECK (category IN ('marketing', 'utility', 'authentication')),
  body_parameters  integer NOT NULL CHECK (body_parameters BETWEEN 0 AND 100),
  PRIMARY KEY (tenant_id, sandbox, name, language)
);

-- One conversation per contact and channel at a time: opened by an inbound message or a first send, closed after
-- 24 h of silence or by the API.
CREATE TABLE conversations (
  id               uuid PRIMARY KEY,
  tenant_id        uuid NOT NULL REFERENCES tenants(id),
  sandbox          boolean NOT NULL,
  contact_id       uuid NOT NULL REFERENCES contacts(id),
  channel          text NOT NULL CHECK (channel IN ('email', 'whatsapp')),
  status           text NOT NULL CHECK (status IN ('open', 'closed')),
  opened_by        text NOT NULL CHECK (opened_by IN ('inbound', 'outbound')),
  opened_at        timestamptz NOT NULL DEFAULT now(),
  last_message_at  timestamptz NOT NULL DEFAULT now(),
  -- the guest's last message: the WhatsApp customer-service window runs 24 h from it
  last_inbound_at  timestamptz,
  closed_at        timestamptz,
  closed_reason    text CHECK (closed_reason IN ('inactivity', 'api')),
  CHECK ((status = 'closed') = (closed_at IS NOT NULL))
);
CREATE UNIQUE INDEX conversations_open ON conversations (tenant_id, sandbox, contact_id, channel) WHERE status = 'open';
CREATE INDEX conversations_idle ON conversations (last_message_at) WHERE status = 'open';

CREATE TABLE messages (
  id                   uuid PRIMARY KEY,
  tenant_id            uuid NOT NULL REFERENCES tenants(id),
  sandbox              boolean NOT NULL,
  contact_id           uuid NOT NULL REFERENCES contacts(id),
  conversation_id      uuid REFERENCES conversations(id),
  channel              text NOT NULL CHECK (channel IN ('email', 'whatsapp')),
  direction            text NOT NULL CHECK (direction IN ('outbound', 'inbound')),
  category             text CHECK (category IN ('marketing', 'utility', 'authentication', 'service')),
  -- who asked for it: api, journey, reply (a free-form answer inside the window), or the guest (inbound)
  origin               text NOT NULL,
  hotel_id             uuid,
  to_address           text,
  from_address         text,
  template_name        text,
  template_language    text,
  template_parameters  jsonb,
  subject              text,
  body_text            text,
  body_html            text,
  status               text NOT NULL CHECK (status IN ('skipped', 'queued', 'sent', 'delivered', 'read', 'failed', 'received')),
  skip_reason          text,
  provider_message_id  text,
  error_code           text,
  error_message        text,
  -- delivery bookkeeping: an attempt is recorded (attempt_started_at) before the provider is called and cleared with
  -- its outcome, so one left set after a crash is an attempt whose outcome is unknown
  attempts             integer NOT NULL DEFAULT 0,
  attempt_started_at   timestamptz,
  journey_run_id       uuid,
  step_id              text,
  created_at           timestamptz NOT NULL DEFAULT now(),
  sent_at              timestamptz,
  delivered_at         timestamptz,
  read_at              timestamptz,
  failed_at            timestamptz,
  updated_at           timestamptz NOT NULL DEFAULT now(),
  CHECK (status <> 'skipped' OR skip_reason IS NOT NULL)
);
CREATE INDEX messages_contact ON messages (contact_id, created_at DESC, id DESC);
CREATE INDEX messages_conversation ON messages (conversation_id, created_at, id);
CREATE UNIQUE INDEX messages_provider_id ON messages (tenant_id, sandbox, channel, provider_message_id)
  WHERE provider_message_id IS NOT NULL;

-- Every status a message reached (or was told of), as reported: the history beside the current status.
CREATE TABLE message_statuses (
  id           bigserial PRIMARY KEY,
  message_id   uuid NOT NULL REFERENCES messages(id),
  tenant_id    uuid NOT NULL,
  sandbox      boolean NOT NULL,
  status       text NOT NULL,
  error_code   text,
  occurred_at  timestamptz NOT NULL,
  applied      boolean NOT NULL,
  recorded_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX message_statuses_message ON message_statuses (message_id, id);

-- Addresses that must not be sent to at all (hard bounce, a number WhatsApp says is not on WhatsApp or invalid).
CREATE TABLE suppressions (
  tenant_id   uuid NOT NULL REFERENCES tenants(id),
  sandbox     boolean NOT NULL,
  channel     text NOT NULL CHECK (channel IN ('email', 'whatsapp')),
  address     text NOT NULL,
  reason      text NOT NULL,
  message_id  uuid,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, sandbox, channel, address)
);

-- An opt-out is sticky: once set, no feed's consent claim turns that channel's marketing consent back on.
ALTER TABLE contacts
  ADD COLUMN email_opted_out_at timestamptz,
  ADD COLUMN whatsapp_opted_out_at timestamptz;

-- Row-level security of 007 as one function, so each later migration enables it on its tables in one line.
CREATE OR REPLACE FUNCTION gep_enable_tenant_isolation(tables text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY tables LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format(
      'CREATE POLICY tenant_isolation ON %I USING (tenant_id = nullif(current_setting(''app.tenant_id'', true), '''')::uuid) '
      'WITH CHECK (tenant_id = nullif(current_setting(''app.tenant_id'', true), '''')::uuid)', t);
  END LOOP;
END $$;

SELECT gep_enable_tenant_isolation(ARRAY['channel_email', 'channel_whatsapp', 'whatsapp_templates', 'conversations', 'messages',
  'message_statuses', 'suppressions']);
