-- The console's tenant-wide reads (issue 27): the messages and webhook delivery logs across contacts and
-- subscriptions, the journeys list's run counts, and the overview statistics. Each index below walks one tenant and
-- mode in time order, with the columns a read groups or filters by alongside (INCLUDE), so the overview's counts are
-- index-only scans (measured on 1,000,000 reservations: docs/guide/reading-data.md, the overview).

-- GET /api/v1/messages: newest first across the account (the other filters keep the matching rows of this walk), and
-- the overview's messages per day, hotel, channel and outcome. `status` is included, although it changes: without it
-- the overview reads every message of the range from the table (92 days: twice the time). A status report (sent,
-- delivered, read) then writes this index too, like the sent report already writes messages_provider_id.
CREATE INDEX messages_tenant_created ON messages (tenant_id, sandbox, created_at DESC, id DESC) INCLUDE (hotel_id, channel, direction, status);
-- ?status=failed, the console's first question ("which messages failed?"): the failed ones only, a few of every
-- thousand, newest first; with other filters too (a hotel, a channel) the walk stays among the failed.
CREATE INDEX messages_failed ON messages (tenant_id, sandbox, created_at DESC, id DESC) INCLUDE (hotel_id, channel) WHERE status = 'failed';
-- ?journey_id=: a journey's runs (journey_runs_journey) and then their messages.
CREATE INDEX messages_run ON messages (journey_run_id) WHERE journey_run_id IS NOT NULL;
-- ?broadcast_id=: a broadcast's messages newest first, without sorting them all.
CREATE INDEX messages_broadcast_created ON messages (broadcast_id, created_at DESC, id DESC) WHERE broadcast_id IS NOT NULL;

-- GET /api/v1/webhook-deliveries, and the overview's attempts per day: every subscription's log in one walk.
CREATE INDEX webhook_deliveries_tenant ON webhook_deliveries (tenant_id, sandbox, attempted_at DESC, id DESC) INCLUDE (outcome);

-- GET /api/v1/journeys: a page's run counts by state, index-only (a run's state changes already touch
-- journey_runs_one_live, whose predicate names it, so this index adds no HOT update lost).
CREATE INDEX journey_runs_journey_state ON journey_runs (journey_id, state);

-- GET /api/v1/overview: what started, arrived or was created per UTC day and hotel.
CREATE INDEX journey_runs_tenant_started ON journey_runs (tenant_id, sandbox, started_at) INCLUDE (hotel_id);
CREATE INDEX reservations_tenant_created ON reservations (tenant_id, sandbox, created_at) INCLUDE (hotel_id);
CREATE INDEX contacts_tenant_created ON contacts (tenant_id, sandbox, created_at);
-- A hotel's new guests: the contacts first linked to it per day (first_seen_at never changes after the link).
CREATE INDEX contact_hotels_tenant_first_seen ON contact_hotels (tenant_id, sandbox, first_seen_at) INCLUDE (hotel_id);
