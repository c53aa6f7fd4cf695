/// Keys made for the tests only, never used anywhere else.
public enum TestKeys {
    /// An EC P-256 private key (`openssl ecparam -genkey -name prime256v1 | openssl pkcs8 -topk8 -nocrypt`).
    public static let p256 = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgCT5xV+hwUL27ENZU
        2uRglLajH4vt4BXm+XgvjtD8NTehRANCAAS6unUc49GUFFFU+BxssJ6fVdwbfzRX
        AxK5qu2YZb/yiXNy6bVGgENp3CUiv0sRE6TEaWOqdsvJH+94JykIpcsU
        -----END PRIVATE KEY-----
        """
}
