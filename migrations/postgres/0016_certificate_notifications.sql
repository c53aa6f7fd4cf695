-- A certificate one node got reaches the other nodes' TLS listeners at its commit (0002's
-- notifications): they install it from the store without waiting for their next look.
CREATE TRIGGER domain_certificates_changed AFTER INSERT OR UPDATE OR DELETE ON domain_certificates
    FOR EACH STATEMENT EXECUTE FUNCTION attributiond_notify_change();
