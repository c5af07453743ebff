-- Change notices for the exact read caches (src/lib/read-cache.ts, docs/event-day.md): every
-- committed change of a table a cached read reads sends a notice on channel `wcs_changes`, so
-- every service instance drops what the change may have made stale, whoever wrote it (a
-- request, the CLI, the scheduler, another instance, psql). NOTIFY is delivered at commit, in
-- commit order, and identical notices of one transaction are sent once.
-- * "User": one notice per row (`User:<id>`), so the session check of one user is kept while
--   others change; TRUNCATE sends `User` (every row).
-- * the other tables: one notice per statement (the table's name), so a statement writing many
--   rows (a matching run) costs one notice.

CREATE FUNCTION wcs_notify_table_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('wcs_changes', TG_TABLE_NAME);
  RETURN NULL;
END
$$;

CREATE FUNCTION wcs_notify_row_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('wcs_changes', TG_TABLE_NAME || ':' || OLD.id);
  ELSE
    PERFORM pg_notify('wcs_changes', TG_TABLE_NAME || ':' || NEW.id);
    IF TG_OP = 'UPDATE' AND OLD.id <> NEW.id THEN
      PERFORM pg_notify('wcs_changes', TG_TABLE_NAME || ':' || OLD.id);
    END IF;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "User_notify_row" AFTER INSERT OR UPDATE OR DELETE ON "User"
  FOR EACH ROW EXECUTE FUNCTION wcs_notify_row_change();
CREATE TRIGGER "User_notify_truncate" AFTER TRUNCATE ON "User"
  FOR EACH STATEMENT EXECUTE FUNCTION wcs_notify_table_change();

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['Event', 'EventParticipant', 'EventCheckinToken', 'ChatRoom', 'Message', 'UserBlock',
                           'Match', 'Rating', 'RecordingSuggestion', 'Heat', 'Division', 'CompetitionType',
                           'VideoTransfer']
  LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I
                    FOR EACH STATEMENT EXECUTE FUNCTION wcs_notify_table_change()', t || '_notify', t);
  END LOOP;
END
$$;
