-- Broadcasts (issue 25 items 4-8): one-off sends to a segment, exactly once per recipient.
--
-- The broadcast actor (key: the broadcast) owns the row: its status, the snapshot cursor and the step it is at. The
-- broadcast sweep publishes a `step` envelope for every broadcast due (`next_step_at`), its id naming `step_seq`, so a
-- step is applied once however often the sweep publishes it. Progress lives in the recipients and their messages,
-- never in counters on this row (no hot row while thousands of messages report).
CREATE TABLE broadcasts (
  id                    uuid PRIMARY KEY,
  tenant_id             uuid NOT NULL,
  sandbox               boolean NOT NULL,
  name                  text NOT NULL,
  channel               text NOT NULL CHECK (channel IN ('email', 'whatsapp')),
  category              text NOT NULL CHECK (category IN ('marketing', 'utility')),
  -- As asked: { segment_id } or { definition }, and exclude_segment_ids.
  audience              jsonb NOT NULL,
  -- Fixed when the snapshot starts (a segment edited later changes nothing): the definition the audience resolved to,
  -- and the exclusions' definitions. The message sender re-checks each recipient against both at send time.
  definition            jsonb,
  exclusions            jsonb NOT NULL DEFAULT '[]',
  content               jsonb NOT NULL,
  hotel_id              uuid,
  send_at               timestamptz,
  recipient_local_time  boolean NOT NULL DEFAULT false,
  -- send_at's wall-clock time as written (its own offset): with recipient_local_time, each recipient's moment is this
  -- time in the recipient's zone.
  send_at_local         timestamp,
  rate_limit_per_minute integer CHECK (rate_limit_per_minute > 0),
  -- { from: "HH:MM", to: "HH:MM" } in the recipient's local time (the hotel's zone as fallback).
  quiet_hours           jsonb,
  send_deadline         timestamptz,
  status                text NOT NULL CHECK (status IN ('draft', 'scheduled', 'sending', 'paused', 'sent', 'cancelled', 'failed')),
  status_reason         text,
  -- While sending: snapshotting, then dispatching, then settling (every recipient dispatched, messages still going).
  phase                 text CHECK (phase IN ('snapshotting', 'dispatching', 'settling')),
  snapshot_cursor       uuid,
  step_seq              integer NOT NULL DEFAULT 0,
  -- The last step_seq the sweep published: a due step is published once however many workers sweep.
  step_published        integer NOT NULL DEFAULT 0,
  next_step_at          timestamptz,
  -- The deployment whose workers carry it on (its steps go to that deployment's streams); deployments may share a
  -- database (a staged migration, the tests).
  namespace             text NOT NULL,
  targeted              integer,
  version               integer NOT NULL DEFAULT 1,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now(),
  started_at            timestamptz,
  sent_at               timestamptz,
  completed_at          timestamptz,
  cancelled_at          timestamptz
);
CREATE INDEX broadcasts_list ON broadcasts (tenant_id, sandbox, created_at DESC, id DESC);
-- The sweep's scan: broadcasts with a step due, across tenants.
CREATE INDEX broadcasts_due ON broadcasts (namespace, next_step_at) WHERE next_step_at IS NOT NULL;

-- One row per recipient: the snapshot writes `pending` rows (the primary key drops a contact matched twice), dispatch
-- turns them `queued` and tells the message actor, whose message (id derived from broadcast, contact and channel)
-- then carries the outcome; `skipped` is decided here only for a recipient the broadcast itself drops (cancelled, or
-- its deadline passed before it was handed over).
CREATE TABLE broadcast_recipients (
  broadcast_id  uuid NOT NULL REFERENCES broadcasts(id),
  contact_id    uuid NOT NULL,
  tenant_id     uuid NOT NULL,
  sandbox       boolean NOT NULL,
  -- Set when dispatched: deterministicId(broadcast:<broadcast>:<contact>:<channel>), the message actor's message id.
  message_id    uuid,
  status        text NOT NULL CHECK (status IN ('pending', 'queued', 'skipped')),
  skip_reason   text,
  -- The contact's local zone when the snapshot took it (its stays' hotel, else the broadcast's hotel): quiet hours
  -- and local-time sends are computed in it.
  time_zone     text,
  queued_at     timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (broadcast_id, contact_id),
  CHECK ((status = 'skipped') = (skip_reason IS NOT NULL))
);
CREATE INDEX broadcast_recipients_status ON broadcast_recipients (broadcast_id, status, contact_id);

SELECT gep_enable_tenant_isolation(ARRAY['broadcasts', 'broadcast_recipients']);
