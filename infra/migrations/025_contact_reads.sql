-- The contacts read side (issue 24): every filter of GET /api/v1/contacts and every source of a contact's timeline is
-- walked by an index that starts with the tenant or the contact, so a page costs a few index scans on any table size.

-- The list, newest updated_at first, keyset (updated_at, id); updated_since is a range on the same index.
CREATE INDEX IF NOT EXISTS contacts_updated ON contacts (tenant_id, sandbox, updated_at DESC, id DESC);
-- ?tag=: tags @> ARRAY[tag].
CREATE INDEX IF NOT EXISTS contacts_tags ON contacts USING gin (tags);
-- ?hotel_id= walks contacts_updated and probes the contact_hotels primary key (contact, hotel) per row: no index of
-- its own (contact_hotels is written 2.5 times per reservation).
-- The profile's identity conflicts, on either side.
CREATE INDEX IF NOT EXISTS identity_conflicts_contact ON identity_conflicts (contact_id);
CREATE INDEX IF NOT EXISTS identity_conflicts_other_contact ON identity_conflicts (other_contact_id);

-- Timeline sources whose only index did not start with the contact (or did not order by time).
-- (Events by contact: events_list_contact of migration 026, which the event list shares.)
-- A companion's reservations: their booking events by reservation (the events name the holder).
CREATE INDEX IF NOT EXISTS events_reservation_created ON events (reservation_id, created_at DESC) WHERE reservation_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS journey_runs_contact_started ON journey_runs (contact_id, started_at DESC);
CREATE INDEX IF NOT EXISTS journey_runs_contact_ended ON journey_runs (contact_id, ended_at DESC) WHERE ended_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS calls_contact_at ON calls (contact_id, (coalesce(started_at, created_at)) DESC);
CREATE INDEX IF NOT EXISTS loyalty_entries_member_created ON loyalty_entries (member_id, created_at DESC);
