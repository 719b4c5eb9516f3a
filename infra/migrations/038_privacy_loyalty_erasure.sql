-- Privacy erasure of a loyalty member (issue 26). The ledger is kept for the programme's liability, without the
-- person: an erasure moves the member's rows to a new random member id and clears what names it. The old id cannot
-- stay: it is UUIDv5 of the email (core/loyalty/memberId.ts), so anyone holding the email could find the ledger again,
-- and a later enrolment of the address would take the old balance back.
-- The ledger stays append-only for everything else: only a transaction that declares it is erasing
-- (app.privacy_erasure = 'on', set by core/privacy/stores/loyalty.ts) may change an entry, and only the columns that
-- name the member (its id, the request fingerprint carrying that id, a reason quoting it).
CREATE OR REPLACE FUNCTION loyalty_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND current_setting('app.privacy_erasure', true) = 'on'
    AND to_jsonb(NEW) - ARRAY['member_id', 'fingerprint', 'reason'] = to_jsonb(OLD) - ARRAY['member_id', 'fingerprint', 'reason'] THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'loyalty_entries is append-only' USING ERRCODE = 'integrity_constraint_violation';
END $$;
