-- The read side of issue 24: GET /api/v1/reservations and GET /api/v1/events page newest first on (time, id), keyset.
-- Measured with EXPLAIN ANALYZE on 1,000,000 reservations and 2,000,000 events (one tenant holding 620,000 and
-- 1,240,000 of them): without these, the unfiltered reservation list, its hotel, status and updated_since filters and
-- the event list by contact each read the whole table (parallel seq scan, 250-400 ms per page); with them each page
-- reads its 26 rows from an index (under 1 ms). Reservations change on every upsert (updated_at moves), so every index
-- here is also written by every upsert: only the filters the list serves most are indexed (the account's list and
-- `updated_since`, a hotel's list). The status and check-in filters walk reservations_list (or, with a hotel,
-- reservations_hotel_check_in) and keep the rows that match: quick while the status or range is common, slower for a
-- rare one on a large account. Indexes for them and for the event type were measured and left out: with them, the
-- write bench spent 1.66 ms of PostgreSQL CPU per reservation (batch) against 1.54 without and 1.34 before the read
-- side. The guest filter uses reservation_guests_contact.

CREATE INDEX reservations_list ON reservations (tenant_id, sandbox, updated_at DESC, id DESC);
CREATE INDEX reservations_list_hotel ON reservations (tenant_id, sandbox, hotel_id, updated_at DESC, id DESC);

-- Events are written once: this costs an insert each. The unfiltered list, `since` and `type` use events_tenant_created.
CREATE INDEX events_list_contact ON events (tenant_id, sandbox, contact_id, created_at DESC, id DESC) WHERE contact_id IS NOT NULL;
