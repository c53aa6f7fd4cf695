-- The install's country (ISO 3166-1 alpha-2), as its SDK reported it or its locale's region
-- shows: the postback macro {country}.
ALTER TABLE installs ADD COLUMN country TEXT;
