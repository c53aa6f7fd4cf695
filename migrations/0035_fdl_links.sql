-- A link imported from Firebase Dynamic Links (or made by its REST API, or a long link) keeps
-- FDL's parameters (a JSON object: link, apn, afl, ibi, ifl, isi, efr, ofl…), which decide where
-- its taps go by FDL's rules. NULL for every other link.
ALTER TABLE links ADD COLUMN fdl TEXT;
