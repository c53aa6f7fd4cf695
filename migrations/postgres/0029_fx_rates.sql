-- As SQLite's 0047: reference rates by day, units of a currency per euro.
CREATE TABLE fx_rates (
    day      TEXT NOT NULL,
    currency TEXT NOT NULL,
    per_eur  DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (day, currency)
);
