-- Loyalty programme: configuration (programme, tiers, rewards), members, and an exact append-only integer ledger.
-- Points are bigint integers. A member's spendable points are lots (one per earning, with its own expiry), drawn
-- oldest-expiring first; every movement is an entry carrying `balance_after`. The member actor (one per tenant + member)
-- serialises writes; the constraints below are the backstop that keeps a negative balance or a double spend impossible
-- even if the code were wrong.

CREATE TABLE loyalty_programs (
  tenant_id        uuid NOT NULL REFERENCES tenants(id),
  sandbox          boolean NOT NULL,
  currency         char(3) NOT NULL,
  points_per_unit  numeric NOT NULL CHECK (points_per_unit >= 0),
  points_per_night integer NOT NULL DEFAULT 0 CHECK (points_per_night >= 0),
  pending_days     integer NOT NULL DEFAULT 0 CHECK (pending_days >= 0),
  expiry_months    integer CHECK (expiry_months IS NULL OR expiry_months > 0),
  point_value      numeric NOT NULL CHECK (point_value >= 0),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, sandbox)
);

CREATE TABLE loyalty_tiers (
  tenant_id       uuid NOT NULL REFERENCES tenants(id),
  sandbox         boolean NOT NULL,
  tier_slug       text NOT NULL,
  tier_name       text NOT NULL,
  rank            integer NOT NULL,
  threshold       bigint NOT NULL CHECK (threshold >= 0),
  basis           text NOT NULL CHECK (basis IN ('qualifying_points', 'qualifying_nights')),
  "window"        text NOT NULL DEFAULT 'lifetime' CHECK ("window" IN ('lifetime', 'calendar_year', 'rolling_12_months')),
  earn_multiplier numeric NOT NULL DEFAULT 1 CHECK (earn_multiplier > 0),
  PRIMARY KEY (tenant_id, sandbox, tier_slug),
  UNIQUE (tenant_id, sandbox, rank)
);

CREATE TABLE loyalty_rewards (
  reward_id       uuid PRIMARY KEY,
  tenant_id       uuid NOT NULL REFERENCES tenants(id),
  sandbox         boolean NOT NULL,
  name            text NOT NULL,
  type            text NOT NULL,
  points_cost     bigint NOT NULL CHECK (points_cost > 0),
  auto_fulfill    boolean NOT NULL,
  -- null: unlimited. A redemption takes one by a conditional UPDATE; the CHECK makes an oversell impossible.
  stock_remaining integer CHECK (stock_remaining IS NULL OR stock_remaining >= 0),
  active          boolean NOT NULL DEFAULT true,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX loyalty_rewards_tenant ON loyalty_rewards (tenant_id, sandbox, created_at);

-- A member. member_id = UUIDv5(tenant, mode, normalised email), so two concurrent enrolments reach one actor.
-- The balances are the sums of the member's lots (checked at commit by loyalty_check_member_balances).
CREATE TABLE loyalty_members (
  member_id         uuid PRIMARY KEY,
  tenant_id         uuid NOT NULL REFERENCES tenants(id),
  sandbox           boolean NOT NULL,
  email             text NOT NULL,
  first_name        text,
  last_name         text,
  phone             text,
  status            text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'unsubscribed')),
  balance_active    bigint NOT NULL DEFAULT 0 CHECK (balance_active >= 0),
  balance_pending   bigint NOT NULL DEFAULT 0 CHECK (balance_pending >= 0),
  lifetime_points   bigint NOT NULL DEFAULT 0 CHECK (lifetime_points >= 0),
  qualifying_points bigint NOT NULL DEFAULT 0 CHECK (qualifying_points >= 0),
  qualifying_nights bigint NOT NULL DEFAULT 0 CHECK (qualifying_nights >= 0),
  joined_at         timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant_id, sandbox, email)
);

-- One earning's points. Spends take from points_remaining; it can never go below zero nor above what was earned.
CREATE TABLE loyalty_lots (
  lot_id           uuid PRIMARY KEY,
  member_id        uuid NOT NULL REFERENCES loyalty_members(member_id),
  tenant_id        uuid NOT NULL REFERENCES tenants(id),
  sandbox          boolean NOT NULL,
  status           text NOT NULL CHECK (status IN ('pending', 'active', 'expired', 'voided')),
  points_original  bigint NOT NULL CHECK (points_original > 0),
  points_remaining bigint NOT NULL CHECK (points_remaining >= 0 AND points_remaining <= points_original),
  expires_at       timestamptz,
  created_at       timestamptz NOT NULL,
  seq              bigint NOT NULL,
  -- What a stay lot adds to the tier totals once it is confirmed (0 for bonuses and adjustments).
  qualifying_points bigint NOT NULL DEFAULT 0 CHECK (qualifying_points >= 0),
  qualifying_nights bigint NOT NULL DEFAULT 0 CHECK (qualifying_nights >= 0),
  -- An expired or voided lot holds nothing.
  CHECK (status IN ('pending', 'active') OR points_remaining = 0)
);
CREATE INDEX loyalty_lots_draw ON loyalty_lots (member_id, status, expires_at, created_at, seq);

-- The ledger: one row per movement, never updated nor deleted (a trigger refuses both). `op` + external_reference_id
-- is unique per tenant and mode forever: a retried earn or redeem finds its first answer, even for another member.
CREATE TABLE loyalty_entries (
  entry_id              uuid PRIMARY KEY,
  member_id             uuid NOT NULL REFERENCES loyalty_members(member_id),
  tenant_id             uuid NOT NULL REFERENCES tenants(id),
  sandbox               boolean NOT NULL,
  seq                   bigint NOT NULL,
  kind                  text NOT NULL CHECK (kind IN ('earn', 'redeem', 'expire', 'opening_balance', 'balance_set', 'confirm', 'void', 'discount')),
  status                text NOT NULL CHECK (status IN ('pending', 'confirmed', 'completed')),
  -- Change to the active (spendable) balance, and to the pending one: Σ points = balance, Σ pending_points = pending.
  points                bigint NOT NULL,
  pending_points        bigint NOT NULL DEFAULT 0,
  balance_after         bigint NOT NULL CHECK (balance_after >= 0),
  pending_after         bigint NOT NULL CHECK (pending_after >= 0),
  op                    text,
  external_reference_id text,
  -- The semantic fields of the request (member, points, reward): a reuse of the key with others is a conflict.
  fingerprint           jsonb,
  reward_id             uuid,
  reservation_id        text,
  reason                text,
  created_at            timestamptz NOT NULL,
  UNIQUE (member_id, seq),
  CHECK ((op IS NULL) = (external_reference_id IS NULL))
);
CREATE UNIQUE INDEX loyalty_entries_idempotency ON loyalty_entries (tenant_id, sandbox, op, external_reference_id)
  WHERE external_reference_id IS NOT NULL;
CREATE INDEX loyalty_entries_member ON loyalty_entries (member_id, seq DESC);

-- Which lots a spend or an expiry drew from, and how much.
CREATE TABLE loyalty_entry_lots (
  entry_id  uuid NOT NULL REFERENCES loyalty_entries(entry_id),
  lot_id    uuid NOT NULL REFERENCES loyalty_lots(lot_id),
  tenant_id uuid NOT NULL REFERENCES tenants(id),
  points    bigint NOT NULL CHECK (points > 0),
  PRIMARY KEY (entry_id, lot_id)
);

CREATE TABLE loyalty_redemptions (
  redemption_id uuid PRIMARY KEY,
  entry_id      uuid NOT NULL UNIQUE REFERENCES loyalty_entries(entry_id),
  member_id     uuid NOT NULL REFERENCES loyalty_members(member_id),
  tenant_id     uuid NOT NULL REFERENCES tenants(id),
  sandbox       boolean NOT NULL,
  reward_id     uuid REFERENCES loyalty_rewards(reward_id),
  points        bigint NOT NULL CHECK (points > 0),
  status        text NOT NULL CHECK (status IN ('pending', 'fulfilled', 'cancelled')),
  notes         text,
  created_at    timestamptz NOT NULL
);

CREATE FUNCTION loyalty_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'loyalty_entries is append-only' USING ERRCODE = 'integrity_constraint_violation';
END $$;
CREATE TRIGGER loyalty_entries_append_only BEFORE UPDATE OR DELETE ON loyalty_entries
  FOR EACH ROW EXECUTE FUNCTION loyalty_entries_append_only();

-- At commit, a member's stored balances must equal the sums of its lots, and its newest entry's balance_after must
-- equal its active balance: a write that moved one without the other fails whole.
CREATE FUNCTION loyalty_check_member_balances() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE m loyalty_members; active_sum bigint; pending_sum bigint; last_after bigint; last_pending bigint;
BEGIN
  SELECT * INTO m FROM loyalty_members WHERE member_id = NEW.member_id;
  SELECT coalesce(sum(points_remaining) FILTER (WHERE status = 'active'), 0),
         coalesce(sum(points_remaining) FILTER (WHERE status = 'pending'), 0)
    INTO active_sum, pending_sum FROM loyalty_lots WHERE member_id = NEW.member_id;
  IF m.balance_active <> active_sum OR m.balance_pending <> pending_sum THEN
    RAISE EXCEPTION 'loyalty member % balances (%, %) differ from its lots (%, %)',
      NEW.member_id, m.balance_active, m.balance_pending, active_sum, pending_sum USING ERRCODE = 'check_violation';
  END IF;
  SELECT balance_after, pending_after INTO last_after, last_pending FROM loyalty_entries WHERE member_id = NEW.member_id ORDER BY seq DESC LIMIT 1;
  IF last_after IS NOT NULL AND (last_after <> m.balance_active OR last_pending <> m.balance_pending) THEN
    RAISE EXCEPTION 'loyalty member % balance % differs from its ledger''s balance_after %',
      NEW.member_id, m.balance_active, last_after USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER loyalty_members_balances AFTER INSERT OR UPDATE ON loyalty_members
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION loyalty_check_member_balances();
CREATE CONSTRAINT TRIGGER loyalty_lots_balances AFTER INSERT OR UPDATE ON loyalty_lots
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION loyalty_check_member_balances();
CREATE CONSTRAINT TRIGGER loyalty_entries_balances AFTER INSERT ON loyalty_entries
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION loyalty_check_member_balances();

SELECT gep_enable_tenant_isolation(ARRAY['loyalty_programs', 'loyalty_tiers', 'loyalty_rewards', 'loyalty_members', 'loyalty_lots',
  'loyalty_entries', 'loyalty_entry_lots', 'loyalty_redemptions']);
