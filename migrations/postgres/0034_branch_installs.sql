-- Branch's SDKs report installs too (docs/sdk-apis.md, "Branch"): `installs.api` may be 'branch'.
ALTER TABLE installs DROP CONSTRAINT installs_api_check;
ALTER TABLE installs ADD CONSTRAINT installs_api_check CHECK (api IN ('linkrunner', 'linkforty', 'warplink', 'branch'));
