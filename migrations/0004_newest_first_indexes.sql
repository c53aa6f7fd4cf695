-- Lookups that want the newest row for an identifier (candidate clicks by IDFV or advertising id,
-- a LinkForty install by device id) read it from the index in order. Without created_at in the
-- index SQLite sorted every candidate list in a temporary B-tree, and for device ids it preferred
-- walking all of the project's installs in time order (installs_by_time) to sorting.
DROP INDEX clicks_by_idfv;
CREATE INDEX clicks_by_idfv ON clicks(project_id, idfv, created_at) WHERE idfv IS NOT NULL;
DROP INDEX clicks_by_advertising_id;
CREATE INDEX clicks_by_advertising_id ON clicks(project_id, advertising_id, created_at) WHERE advertising_id IS NOT NULL;
DROP INDEX installs_by_device;
CREATE INDEX installs_by_device ON installs(project_id, device_id, created_at) WHERE device_id IS NOT NULL;
