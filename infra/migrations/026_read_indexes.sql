-- The read side of issue 24: GET /api/v1/reservations and GET /api/v1/events page newest first on (time, id), keyset.
-- Measured with EXPLAIN ANALYZE on 1,000,000 reservations and 2,000,000 events (one tenant holding 620,000 and
-- 1,240,000 of them): without these, the unfiltered reservation list, its hotel, status and updated_since filters and
-- the event list by contact each read the whole table (parallel seq scan, 250-400 ms per page); with them each page
-- reads its 26 rows from an index (under 1 ms). Reservations change on every upsert (updated_at moves), so every index
-- here is also written by every upsert: only the filters the list serves most are indexed. The check-in range is served
-- by its own small index (a week of arrivals is a few thousand rows, sorted by updated_at in memory); the guest filter
-- by reservation_guests_contact.

CREATE INDEX reservations_list ON reservations (tenant_id, sandbox, updated_at DESC, id DESC);
CREATE INDEX reservations_list_hotel ON reservations (tenant_id, sandbox, hotel_id, updated_at DESC, id DESC);
CREATE INDEX reservations_list_status ON reservations (tenant_id, sandbox, status, updated_at DESC, id DESC);
CREATE INDEX reservations_check_in ON reservations (tenant_id, sandbox, check_in);

-- Events are written once: these cost an insert each. The unfiltered list and `since` use events_tenant_created.
CREATE INDEX events_list_type ON events (tenant_id, sandbox, type, created_at DESC, id DESC);
CREATE INDEX events_list_contact ON events (tenant_id, sandbox, contact_id, created_at DESC, id DESC) WHERE contact_id IS NOT NULL;
