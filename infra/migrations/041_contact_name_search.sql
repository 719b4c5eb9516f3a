-- Contact search by name (issue 27, GET /api/v1/contacts?name=): each word typed is the start of a word of the
-- contact's first or last name, whatever the case and the accents ("ana gar" finds Ana García-López). Prefixes of
-- words, not trigram similarity: an operator types the start of the names the guest gave, expects exactly those
-- guests (no "Anna" for "ana"), and the answer stays in the one list order (newest updated first, keyset paging).

CREATE EXTENSION IF NOT EXISTS unaccent;

-- unaccent() is STABLE (it reads its dictionary through the search path), so an index may not call it; this wrapper
-- names the function and the dictionary by schema and is bound when created (a SQL-standard body), so it is
-- IMMUTABLE in fact (as long as the unaccent rules file is not edited; a REINDEX follows any such edit).
CREATE FUNCTION immutable_unaccent(text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  RETURN public.unaccent('public.unaccent'::regdictionary, $1);

-- The words of a contact's name, lower-cased without accents ('simple': no stemming, no stop words: a name is not prose).
CREATE FUNCTION contact_name_words(first_name text, last_name text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN to_tsvector('simple'::regconfig, immutable_unaccent(coalesce(first_name, '') || ' ' || coalesce(last_name, '')));

-- A GIN index answers the word prefixes (`ana:* & gar:*`); fastupdate (the default) keeps the contact upsert's cost
-- low: new entries go to a pending list merged in bulk (measured in docs/guide/reading-data.md, contact search).
CREATE INDEX contacts_name_words ON contacts USING gin (contact_name_words(first_name, last_name));
