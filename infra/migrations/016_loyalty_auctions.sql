-- Loyalty experience auctions (issue 14, last slice). An auction is its own actor's state (the loyalty actor type keyed
-- by the experience id, as a household is keyed by its id): it serialises bids and its close. A bid is a credit-style
-- hold on the bidder (kind 'bid', on the member's lots): the new leader's acceptance releases the previous leader's
-- hold, a refused bid releases its own, and the close confirms the winner's hold into a redemption.

CREATE TABLE loyalty_auctions (
  auction_id      uuid PRIMARY KEY,
  tenant_id       uuid NOT NULL REFERENCES tenants(id),
  sandbox         boolean NOT NULL,
  name            text NOT NULL,
  description     text,
  hotel_id        text,
  starting_bid    bigint NOT NULL CHECK (starting_bid > 0),
  min_increment   bigint NOT NULL CHECK (min_increment > 0),
  ends_at         timestamptz NOT NULL,
  status          text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
  current_high_bid bigint CHECK (current_high_bid IS NULL OR current_high_bid >= starting_bid),
  leading_bid_id  uuid,
  bid_count       integer NOT NULL DEFAULT 0 CHECK (bid_count >= 0),
  -- The sweep published the close (so a close is sent once however many workers sweep).
  close_published boolean NOT NULL DEFAULT false,
  closed_at       timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  CHECK ((status = 'closed') = (closed_at IS NOT NULL))
);
CREATE INDEX loyalty_auctions_due ON loyalty_auctions (ends_at) WHERE status = 'open';
CREATE INDEX loyalty_auctions_tenant ON loyalty_auctions (tenant_id, sandbox, created_at);

-- Every bid the auction decided: one per hold (a bid is a hold), accepted (leading, then outbid or won) or refused.
CREATE TABLE loyalty_bids (
  bid_id        uuid PRIMARY KEY,
  auction_id    uuid NOT NULL REFERENCES loyalty_auctions(auction_id),
  tenant_id     uuid NOT NULL REFERENCES tenants(id),
  member_id     uuid NOT NULL REFERENCES loyalty_members(member_id),
  hold_id       uuid NOT NULL UNIQUE,
  points        bigint NOT NULL CHECK (points > 0),
  status        text NOT NULL CHECK (status IN ('leading', 'outbid', 'won', 'refused')),
  refusal       text CHECK (refusal IS NULL OR refusal IN ('AUCTION_CLOSED', 'BID_TOO_LOW')),
  -- What the auction stood at when it refused the bid (the 409's details, answered again to a retry).
  high_at_refusal bigint,
  min_at_refusal  bigint,
  placed_at     timestamptz NOT NULL,
  decided_at    timestamptz NOT NULL,
  CHECK ((status = 'refused') = (refusal IS NOT NULL))
);
-- The backstop of the auction actor's serial decisions: at most one leading (or winning) bid per auction.
CREATE UNIQUE INDEX loyalty_bids_one_leader ON loyalty_bids (auction_id) WHERE status IN ('leading', 'won');
CREATE INDEX loyalty_bids_auction ON loyalty_bids (auction_id, decided_at);

-- Holds are credit holds (a reservation's payment) or bid holds (an auction's). Bid holds have no reservation or money
-- amount, and their keys live apart from the credit keys; the credit endpoints never see them.
ALTER TABLE loyalty_holds ADD COLUMN kind text NOT NULL DEFAULT 'credit' CHECK (kind IN ('credit', 'bid'));
ALTER TABLE loyalty_holds ADD COLUMN auction_id uuid REFERENCES loyalty_auctions(auction_id);
ALTER TABLE loyalty_holds ALTER COLUMN reservation_id DROP NOT NULL;
ALTER TABLE loyalty_holds ALTER COLUMN currency DROP NOT NULL;
ALTER TABLE loyalty_holds ADD CONSTRAINT loyalty_holds_kind_shape CHECK (
  (kind = 'credit' AND reservation_id IS NOT NULL AND currency IS NOT NULL AND auction_id IS NULL)
  OR (kind = 'bid' AND auction_id IS NOT NULL AND reservation_id IS NULL));
ALTER TABLE loyalty_holds DROP CONSTRAINT loyalty_holds_tenant_id_sandbox_external_reference_id_key;
ALTER TABLE loyalty_holds ADD CONSTRAINT loyalty_holds_key UNIQUE (tenant_id, sandbox, kind, external_reference_id);
-- A member's bid holds on an auction (a raise replaces the member's active one in the same transaction).
CREATE INDEX loyalty_holds_auction ON loyalty_holds (auction_id, member_id) WHERE kind = 'bid';

-- An auction's winner pays once: one redemption per auction.
ALTER TABLE loyalty_redemptions ADD COLUMN auction_id uuid REFERENCES loyalty_auctions(auction_id);
CREATE UNIQUE INDEX loyalty_redemptions_auction ON loyalty_redemptions (auction_id) WHERE auction_id IS NOT NULL;

SELECT gep_enable_tenant_isolation(ARRAY['loyalty_auctions', 'loyalty_bids']);
