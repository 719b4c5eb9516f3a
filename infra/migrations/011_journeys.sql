-- Journeys: definitions kept in immutable versions, runs per contact and scope with durable timers, and what each
-- step did. The journey actor (key: contact) owns runs and steps; the API owns definitions.

-- The placeholder table of migration 002 becomes the journey header: its status and current version.
ALTER TABLE journey_definitions
  ADD COLUMN status       text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'active', 'paused', 'archived')),
  ADD COLUMN version      integer NOT NULL DEFAULT 1 CHECK (version >= 1),
  ADD COLUMN hotel_ids    uuid[] NOT NULL DEFAULT '{}',
  ADD COLUMN trigger_type text NOT NULL DEFAULT 'event' CHECK (trigger_type IN ('event', 'reservation_date')),
  ADD COLUMN updated_at   timestamptz NOT NULL DEFAULT now(),
  ALTER COLUMN trigger_event_type DROP NOT NULL;
UPDATE journey_definitions SET status = CASE WHEN active THEN 'active' ELSE 'paused' END,
  hotel_ids = CASE WHEN hotel_id IS NULL THEN '{}'::uuid[] ELSE ARRAY[hotel_id] END;
DROP INDEX journey_definitions_trigger;
ALTER TABLE journey_definitions DROP COLUMN active, DROP COLUMN hotel_id;
-- What an event finds: the active journeys of its type (matching_journeys, and the journey actor's starts).
CREATE INDEX journey_definitions_trigger ON journey_definitions (tenant_id, sandbox, trigger_event_type) WHERE status = 'active';
CREATE INDEX journey_definitions_list ON journey_definitions (tenant_id, sandbox, created_at DESC, id DESC);

-- Every saved version of a definition, never changed: a run interprets the version it started on.
CREATE TABLE journey_versions (
  journey_id  uuid NOT NULL REFERENCES journey_definitions(id),
  version     integer NOT NULL,
  tenant_id   uuid NOT NULL REFERENCES tenants(id),
  sandbox     boolean NOT NULL,
  definition  jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (journey_id, version)
);
CREATE FUNCTION gep_journey_versions_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'journey versions are immutable';
END $$;
CREATE TRIGGER journey_versions_immutable BEFORE UPDATE OR DELETE ON journey_versions
  FOR EACH ROW EXECUTE FUNCTION gep_journey_versions_immutable();

-- One contact's pass through one journey version, for one scope (cart, session, reservation, or the contact).
CREATE TABLE journey_runs (
  id              uuid PRIMARY KEY,
  tenant_id       uuid NOT NULL REFERENCES tenants(id),
  sandbox         boolean NOT NULL,
  journey_id      uuid NOT NULL REFERENCES journey_definitions(id),
  version         integer NOT NULL,
  contact_id      uuid NOT NULL REFERENCES contacts(id),
  scope           text NOT NULL,
  hotel_id        uuid,
  reservation_id  uuid,
  state           text NOT NULL CHECK (state IN ('active', 'waiting', 'completed', 'stopped', 'failed')),
  -- Index into the version's steps of the step to run next (or the wait in progress).
  step_index      integer NOT NULL DEFAULT 0,
  wake_at         timestamptz,
  -- Every wait gets the next sequence number; a wake carrying an older one changes nothing.
  wake_seq        integer NOT NULL DEFAULT 0,
  -- The highest wake_seq whose wake the timer sweep has already published.
  wake_published  integer NOT NULL DEFAULT 0,
  -- Step rows written so far (the next one's seq).
  steps_taken     integer NOT NULL DEFAULT 0,
  -- The starting event, frozen: merge tags and branches read it for the whole run.
  trigger         jsonb NOT NULL,
  started_at      timestamptz NOT NULL,
  ended_at        timestamptz,
  exit_reason     text,
  error           jsonb,
  updated_at      timestamptz NOT NULL,
  CHECK ((state IN ('completed', 'stopped', 'failed')) = (ended_at IS NOT NULL)),
  CHECK (state <> 'waiting' OR wake_at IS NOT NULL)
);
-- At most one live run per journey, contact and scope, whatever the code does.
CREATE UNIQUE INDEX journey_runs_one_live ON journey_runs (tenant_id, sandbox, journey_id, contact_id, scope)
  WHERE state IN ('active', 'waiting');
CREATE INDEX journey_runs_contact ON journey_runs (contact_id, journey_id, scope, started_at DESC);
CREATE INDEX journey_runs_journey ON journey_runs (journey_id, started_at DESC, id DESC);
-- The timer sweep's work: waits that are due and not yet woken.
CREATE INDEX journey_runs_due ON journey_runs (wake_at) WHERE state = 'waiting' AND wake_published < wake_seq;

-- What each step of a run did, in order.
CREATE TABLE journey_run_steps (
  run_id      uuid NOT NULL REFERENCES journey_runs(id),
  seq         integer NOT NULL,
  tenant_id   uuid NOT NULL REFERENCES tenants(id),
  step_id     text NOT NULL,
  step_type   text NOT NULL,
  -- sent: handed to messaging (its message row tells what became of it); skipped / failed with a reason;
  -- waited (until wake_at) / branched (to `reason`) / ended for the steps that send nothing.
  outcome     text NOT NULL CHECK (outcome IN ('sent', 'skipped', 'failed', 'waited', 'branched', 'ended')),
  reason      text,
  message_id  uuid,
  at          timestamptz NOT NULL,
  PRIMARY KEY (run_id, seq)
);

-- Reservation-date triggers fire once per journey and reservation.
CREATE TABLE journey_date_fires (
  journey_id      uuid NOT NULL REFERENCES journey_definitions(id),
  reservation_id  uuid NOT NULL,
  tenant_id       uuid NOT NULL REFERENCES tenants(id),
  sandbox         boolean NOT NULL,
  fire_at         timestamptz NOT NULL,
  late            boolean NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (journey_id, reservation_id)
);

-- A reservation resent unchanged emits no event: the hash of what was last applied tells.
ALTER TABLE reservations ADD COLUMN body_hash text;

SELECT gep_enable_tenant_isolation(ARRAY['journey_versions', 'journey_runs', 'journey_run_steps', 'journey_date_fires']);
