-- Reference rates by day: units of a currency per euro (the ECB's reference rates, or an
-- operator's), shared by every project; amounts are converted through the euro (docs/cost.md).
CREATE TABLE fx_rates (
    day      TEXT NOT NULL,
    currency TEXT NOT NULL,
    per_eur  REAL NOT NULL,
    PRIMARY KEY (day, currency)
) WITHOUT ROWID;
