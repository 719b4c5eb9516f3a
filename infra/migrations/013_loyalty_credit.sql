-- Loyalty credit holds, earning reversals and credit refunds (issue 14, second slice).
-- A hold reserves points on specific lots (lot.points_held) without spending them: the active balance still counts
-- them, `points_available` = active − held. Confirm spends the held points, release or expiry frees them, and a
-- credit reverse gives a confirmed hold's points back to the lots they came from (once: UNIQUE refund.hold_id).

ALTER TABLE loyalty_lots ADD COLUMN points_held bigint NOT NULL DEFAULT 0;
-- A pending lot with available_at confirms by itself then (the programme's pending_days), recorded by the member's
-- next command and counted as confirmed by every read from that instant; null: only an explicit confirm.
ALTER TABLE loyalty_lots ADD COLUMN available_at timestamptz;
ALTER TABLE loyalty_lots ADD CONSTRAINT loyalty_lots_held CHECK (points_held >= 0 AND points_held <= points_remaining);

ALTER TABLE loyalty_members ADD COLUMN balance_held bigint NOT NULL DEFAULT 0;
ALTER TABLE loyalty_members ADD CONSTRAINT loyalty_members_held CHECK (balance_held >= 0 AND balance_held <= balance_active);

-- Entries also carry the change to the held balance, and the held balance after it: Σ held_points = balance_held.
ALTER TABLE loyalty_entries ADD COLUMN held_points bigint NOT NULL DEFAULT 0;
ALTER TABLE loyalty_entries ADD COLUMN held_after bigint NOT NULL DEFAULT 0 CHECK (held_after >= 0);
-- The earn an entry reverses (kind 'reverse'), or the hold an entry moves (kinds hold*, credit_refund).
ALTER TABLE loyalty_entries ADD COLUMN reverses_entry_id uuid REFERENCES loyalty_entries(entry_id);
ALTER TABLE loyalty_entries ADD COLUMN hold_id uuid;
ALTER TABLE loyalty_entries DROP CONSTRAINT loyalty_entries_kind_check;
ALTER TABLE loyalty_entries ADD CONSTRAINT loyalty_entries_kind_check CHECK (kind IN (
  'earn', 'redeem', 'expire', 'opening_balance', 'balance_set', 'confirm', 'void', 'discount',
  'hold', 'hold_confirm', 'hold_release', 'hold_expire', 'credit_refund', 'reverse'));
-- An earn is reversed at most once, whatever retries or paths (API, reservation cancelled) ask for it.
CREATE UNIQUE INDEX loyalty_entries_reversal ON loyalty_entries (reverses_entry_id) WHERE kind = 'reverse';
CREATE INDEX loyalty_entries_reservation ON loyalty_entries (tenant_id, sandbox, reservation_id) WHERE reservation_id IS NOT NULL;

-- The lots are no longer expired, voided or emptied only: an earn reversal empties its lot too (status kept).

CREATE TABLE loyalty_holds (
  hold_id               uuid PRIMARY KEY,
  member_id             uuid NOT NULL REFERENCES loyalty_members(member_id),
  tenant_id             uuid NOT NULL REFERENCES tenants(id),
  sandbox               boolean NOT NULL,
  reservation_id        text NOT NULL,
  external_reference_id text NOT NULL,
  fingerprint           jsonb NOT NULL,
  points                bigint NOT NULL CHECK (points > 0),
  amount_minor          bigint NOT NULL CHECK (amount_minor >= 0),
  currency              char(3) NOT NULL,
  status                text NOT NULL CHECK (status IN ('active', 'confirmed', 'released', 'expired', 'reversed')),
  expires_at            timestamptz NOT NULL,
  created_at            timestamptz NOT NULL,
  confirmed_at          timestamptz,
  released_at           timestamptz,
  expired_at            timestamptz,
  reversed_at           timestamptz,
  -- Each terminal move stamps its own time: a hold is never both confirmed and released or expired.
  CHECK (num_nonnulls(released_at, expired_at) <= 1 AND (confirmed_at IS NULL OR (released_at IS NULL AND expired_at IS NULL))),
  CHECK (status <> 'reversed' OR (confirmed_at IS NOT NULL AND reversed_at IS NOT NULL)),
  UNIQUE (tenant_id, sandbox, external_reference_id)
);
CREATE INDEX loyalty_holds_member ON loyalty_holds (member_id, status);
CREATE INDEX loyalty_holds_reservation ON loyalty_holds (tenant_id, sandbox, reservation_id);

-- The lots an active hold reserves, and how much of each.
CREATE TABLE loyalty_hold_lots (
  hold_id   uuid NOT NULL REFERENCES loyalty_holds(hold_id),
  lot_id    uuid NOT NULL REFERENCES loyalty_lots(lot_id),
  tenant_id uuid NOT NULL REFERENCES tenants(id),
  points    bigint NOT NULL CHECK (points > 0),
  PRIMARY KEY (hold_id, lot_id)
);

-- A confirmed hold's refund: one per hold, ever (a retried credit reverse restores nothing more).
CREATE TABLE loyalty_refunds (
  refund_id       uuid PRIMARY KEY,
  hold_id         uuid NOT NULL UNIQUE REFERENCES loyalty_holds(hold_id),
  entry_id        uuid NOT NULL UNIQUE REFERENCES loyalty_entries(entry_id),
  tenant_id       uuid NOT NULL REFERENCES tenants(id),
  points_restored bigint NOT NULL CHECK (points_restored > 0),
  reason          text,
  created_at      timestamptz NOT NULL
);

-- The commit-time check now also covers holds: balance_held = Σ lot.points_held = Σ active holds = newest held_after.
CREATE OR REPLACE FUNCTION loyalty_check_member_balances() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE m loyalty_members; active_sum bigint; pending_sum bigint; held_sum bigint; holds_sum bigint;
  last_after bigint; last_pending bigint; last_held bigint;
BEGIN
  SELECT * INTO m FROM loyalty_members WHERE member_id = NEW.member_id;
  SELECT coalesce(sum(points_remaining) FILTER (WHERE status = 'active'), 0),
         coalesce(sum(points_remaining) FILTER (WHERE status = 'pending'), 0),
         coalesce(sum(points_held), 0)
    INTO active_sum, pending_sum, held_sum FROM loyalty_lots WHERE member_id = NEW.member_id;
  SELECT coalesce(sum(points), 0) INTO holds_sum FROM loyalty_holds WHERE member_id = NEW.member_id AND status = 'active';
  IF m.balance_active <> active_sum OR m.balance_pending <> pending_sum OR m.balance_held <> held_sum OR m.balance_held <> holds_sum THEN
    RAISE EXCEPTION 'loyalty member % balances (%, %, held %) differ from its lots (%, %, held %) or holds (%)',
      NEW.member_id, m.balance_active, m.balance_pending, m.balance_held, active_sum, pending_sum, held_sum, holds_sum
      USING ERRCODE = 'check_violation';
  END IF;
  SELECT balance_after, pending_after, held_after INTO last_after, last_pending, last_held
    FROM loyalty_entries WHERE member_id = NEW.member_id ORDER BY seq DESC LIMIT 1;
  IF last_after IS NOT NULL AND (last_after <> m.balance_active OR last_pending <> m.balance_pending OR last_held <> m.balance_held) THEN
    RAISE EXCEPTION 'loyalty member % balance % differs from its ledger''s balance_after %',
      NEW.member_id, m.balance_active, last_after USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END $$;

-- Holds and their lots must agree too: an active hold reserves exactly its points on its lots, others reserve none.
CREATE FUNCTION loyalty_check_hold() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE h loyalty_holds; reserved bigint;
BEGIN
  SELECT * INTO h FROM loyalty_holds WHERE hold_id = NEW.hold_id;
  SELECT coalesce(sum(points), 0) INTO reserved FROM loyalty_hold_lots WHERE hold_id = NEW.hold_id;
  IF reserved <> h.points THEN
    RAISE EXCEPTION 'loyalty hold % reserves % on its lots, not its % points', NEW.hold_id, reserved, h.points USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER loyalty_holds_lots AFTER INSERT ON loyalty_holds
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION loyalty_check_hold();
CREATE CONSTRAINT TRIGGER loyalty_holds_balances AFTER INSERT OR UPDATE ON loyalty_holds
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION loyalty_check_member_balances();

SELECT gep_enable_tenant_isolation(ARRAY['loyalty_holds', 'loyalty_hold_lots', 'loyalty_refunds']);

-- Tier windows: a tier's threshold is reached by the qualifying points or nights of the stays confirmed inside its
-- window (lifetime: the member's running totals; calendar_year: since 1 January; rolling_12_months: the last 12
-- months), leaving out stays whose earning was reversed. One definition for every reader (actor, API, screen pop).
CREATE FUNCTION loyalty_qualifying(p_member uuid, p_window text) RETURNS TABLE (points bigint, nights bigint)
LANGUAGE sql STABLE AS $$
  SELECT m.qualifying_points, m.qualifying_nights FROM loyalty_members m WHERE m.member_id = p_member AND p_window = 'lifetime'
  UNION ALL
  SELECT coalesce(sum(l.qualifying_points), 0)::bigint, coalesce(sum(l.qualifying_nights), 0)::bigint
  FROM loyalty_lots l
  JOIN loyalty_entry_lots el ON el.lot_id = l.lot_id
  JOIN loyalty_entries e ON e.entry_id = el.entry_id AND ((e.kind = 'earn' AND e.status = 'confirmed') OR e.kind = 'confirm')
  WHERE p_window <> 'lifetime' AND l.member_id = p_member AND (l.qualifying_points > 0 OR l.qualifying_nights > 0)
    AND e.created_at >= CASE p_window WHEN 'calendar_year' THEN date_trunc('year', now()) ELSE now() - interval '12 months' END
    AND NOT EXISTS (
      SELECT 1 FROM loyalty_entry_lots el2 JOIN loyalty_entries earn ON earn.entry_id = el2.entry_id AND earn.kind = 'earn'
      JOIN loyalty_entries r ON r.reverses_entry_id = earn.entry_id AND r.kind = 'reverse'
      WHERE el2.lot_id = l.lot_id)
  HAVING p_window <> 'lifetime'
$$;

-- The member's tier now: the highest-ranked tier whose threshold its qualifying totals in that tier's window reach.
CREATE FUNCTION loyalty_member_tier(p_member uuid)
RETURNS TABLE (tier_slug text, tier_name text, rank integer, earn_multiplier numeric)
LANGUAGE sql STABLE AS $$
  SELECT t.tier_slug, t.tier_name, t.rank, t.earn_multiplier
  FROM loyalty_members m JOIN loyalty_tiers t ON t.tenant_id = m.tenant_id AND t.sandbox = m.sandbox
  CROSS JOIN LATERAL loyalty_qualifying(m.member_id, t."window") q
  WHERE m.member_id = p_member AND (CASE t.basis WHEN 'qualifying_nights' THEN q.nights ELSE q.points END) >= t.threshold
  ORDER BY t.rank DESC LIMIT 1
$$;

-- Households: a pooled wallet (a loyalty_members row of kind 'household', with its own lots, entries and actor)
-- that members contribute points to (the lots keep their expiry) and redeem from. A member is in at most one.
ALTER TABLE loyalty_members ADD COLUMN kind text NOT NULL DEFAULT 'member' CHECK (kind IN ('member', 'household'));
ALTER TABLE loyalty_entries DROP CONSTRAINT loyalty_entries_kind_check;
ALTER TABLE loyalty_entries ADD CONSTRAINT loyalty_entries_kind_check CHECK (kind IN (
  'earn', 'redeem', 'expire', 'opening_balance', 'balance_set', 'confirm', 'void', 'discount',
  'hold', 'hold_confirm', 'hold_release', 'hold_expire', 'credit_refund', 'reverse', 'transfer_out', 'transfer_in'));

CREATE TABLE loyalty_households (
  household_id    uuid PRIMARY KEY REFERENCES loyalty_members(member_id),
  tenant_id       uuid NOT NULL REFERENCES tenants(id),
  sandbox         boolean NOT NULL,
  name            text NOT NULL,
  owner_member_id uuid NOT NULL REFERENCES loyalty_members(member_id),
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE loyalty_household_members (
  household_id uuid NOT NULL REFERENCES loyalty_households(household_id),
  member_id    uuid NOT NULL UNIQUE REFERENCES loyalty_members(member_id),
  tenant_id    uuid NOT NULL REFERENCES tenants(id),
  role         text NOT NULL CHECK (role IN ('owner', 'member')),
  joined_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (household_id, member_id)
);
SELECT gep_enable_tenant_isolation(ARRAY['loyalty_households', 'loyalty_household_members']);
