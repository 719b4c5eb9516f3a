-- Guests API, custom fields, core events and identity conflicts.

ALTER TABLE contacts
  ADD COLUMN subscription_status text,
  ADD COLUMN source text,
  ADD COLUMN tags text[] NOT NULL DEFAULT '{}',
  ADD COLUMN custom_fields jsonb NOT NULL DEFAULT '{}';

ALTER TABLE consent_records
  ADD COLUMN captured_at timestamptz;

ALTER TABLE reservations
  ADD COLUMN booking_channel_code text,
  ADD COLUMN channel_type text,
  ADD COLUMN room_type text,
  ADD COLUMN room_number text,
  ADD COLUMN rate_plan text;

ALTER TABLE reservation_guests
  ADD COLUMN relationship_to_holder text;

ALTER TABLE events
  ADD COLUMN idempotency_key text,
  ADD COLUMN status text NOT NULL DEFAULT 'accepted';
CREATE UNIQUE INDEX events_idempotency ON events (tenant_id, sandbox, idempotency_key) WHERE idempotency_key IS NOT NULL;

-- A phone pointing at one contact and an email at another: never merged silently, recorded for a person to decide.
CREATE TABLE identity_conflicts (
  id                bigserial PRIMARY KEY,
  tenant_id         uuid NOT NULL,
  sandbox           boolean NOT NULL,
  contact_id        uuid NOT NULL REFERENCES contacts(id),
  other_contact_id  uuid NOT NULL REFERENCES contacts(id),
  reason            text NOT NULL,
  phone             text,
  email             text,
  source            text NOT NULL,
  envelope_id       text NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  UNIQUE (envelope_id, contact_id, other_contact_id)
);
CREATE INDEX identity_conflicts_tenant ON identity_conflicts (tenant_id, sandbox, created_at);

CREATE TABLE custom_field_definitions (
  tenant_id      uuid NOT NULL REFERENCES tenants(id),
  sandbox        boolean NOT NULL,
  field_key      text NOT NULL,
  field_label    text NOT NULL,
  field_type     text NOT NULL CHECK (field_type IN ('string','text','number','boolean','date','datetime','select','multiselect')),
  options        text[],
  description    text,
  is_required    boolean NOT NULL DEFAULT false,
  is_visible     boolean NOT NULL DEFAULT true,
  display_order  integer NOT NULL DEFAULT 0,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, sandbox, field_key)
);

-- Raw PMS channel codes mapped to a readable name and a channel type, per tenant.
CREATE TABLE channel_mappings (
  tenant_id     uuid NOT NULL REFERENCES tenants(id),
  code          text NOT NULL,
  name          text NOT NULL,
  channel_type  text NOT NULL CHECK (channel_type IN ('direct', 'ota', 'tour_operator')),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, code)
);

-- Journey definitions: the journey engine comes later; the table exists now so matching_journeys is a real count.
CREATE TABLE journey_definitions (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id           uuid NOT NULL REFERENCES tenants(id),
  sandbox             boolean NOT NULL DEFAULT false,
  name                text NOT NULL,
  trigger_event_type  text NOT NULL,
  hotel_id            uuid REFERENCES hotels(id),
  active              boolean NOT NULL DEFAULT true,
  created_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX journey_definitions_trigger ON journey_definitions (tenant_id, sandbox, trigger_event_type) WHERE active;
