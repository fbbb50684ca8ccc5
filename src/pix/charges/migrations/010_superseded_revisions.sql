-- charge_revisions keeps the superseded revisions of a charge; the current one is the charges row itself,
-- which is where GET ?revisao=<current> has always read it from. Creating a charge now writes one row, not
-- two: the row of the current revision is written when a later revision supersedes it.
delete from charge_revisions r using charges c where r.charge_id = c.id and r.revisao = c.revisao;
