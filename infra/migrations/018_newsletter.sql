-- Newsletter double opt-in: the widget's settings per account and mode (the API owns them) and one subscription per
-- address (the newsletter actor owns it, keyed by the subscription id derived from tenant, mode and address).
-- A confirmed subscription gives the contact email marketing consent, recorded in consent_records with its evidence.

CREATE TABLE newsletter_settings (
  tenant_id                   uuid NOT NULL REFERENCES tenants(id),
  sandbox                     boolean NOT NULL,
  enabled                     boolean NOT NULL DEFAULT false,
  allowed_origins             text[] NOT NULL DEFAULT '{}',
  first_name_enabled          boolean NOT NULL DEFAULT false,
  bot_check_enabled           boolean NOT NULL DEFAULT false,
  -- The Turnstile secret (AES-256-GCM under the at-rest key); never returned.
  bot_check_secret_encrypted  bytea,
  -- The publishable key (svc_pub_): found by its SHA-256, shown again from its encrypted copy (it is public by nature).
  publishable_key_sha256      bytea NOT NULL UNIQUE,
  publishable_key_encrypted   bytea NOT NULL,
  created_at                  timestamptz NOT NULL DEFAULT now(),
  updated_at                  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, sandbox)
);

CREATE TABLE newsletter_subscriptions (
  id                  uuid PRIMARY KEY,
  tenant_id           uuid NOT NULL REFERENCES tenants(id),
  sandbox             boolean NOT NULL,
  email               text NOT NULL,
  contact_id          uuid NOT NULL REFERENCES contacts(id),
  status              text NOT NULL CHECK (status IN ('pending', 'subscribed')),
  -- The nonce of the newest confirmation link: an older link (superseded by a resend) confirms nothing.
  nonce               text NOT NULL,
  first_name          text,
  language            text,
  hotel_id            uuid,
  source              text,
  consent_text        text,
  caller              text NOT NULL CHECK (caller IN ('browser', 'server')),
  ip                  text,
  user_agent          text,
  origin              text,
  last_sent_at        timestamptz,
  sends               integer NOT NULL DEFAULT 0,
  confirmed_at        timestamptz,
  confirm_ip          text,
  confirm_user_agent  text,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant_id, sandbox, email)
);

-- Evidence of a consent statement made by the guest in person (the confirm click): where from and with what browser.
ALTER TABLE consent_records ADD COLUMN ip text, ADD COLUMN user_agent text;

SELECT gep_enable_tenant_isolation(ARRAY['newsletter_settings', 'newsletter_subscriptions']);
